// The variant registry: every implementation of every stage registers itself from its own file.
//
//   static const nsb::Registrar reg{{
//       .stage = StageKind::pressure, .name = "jacobi_global_2d", .backend = Backend::cuda,
//       .tags = {{"memory", "global"}, {"cta", "2d"}},
//       .tunings = {{"bx16_by8_sz2", 16, 8, 2}, ...},
//       .run_float = &sweep<float>, .run_double = &sweep<double>}};
//
// Nothing else needs editing: the solver, `nsbench list`/`verify`, the tests and reports find it here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "stage.hpp"

namespace nsb {

// How a variant's result may differ from the reference.
enum class Determinism {
  deterministic,     // same inputs, same bits, run after run
  order_dependent,   // reductions whose summation order varies between runs (atomics)
};

// A compiled kernel of a variant, for its register / shared / local-memory report.
struct KernelRef {
  std::string name;
  const void* fn;
  int elem_bytes;      // 4: the float instance, 8: the double one
  int min_blocks = 0;  // the instance tunings with this mb run (0: tunings without mb)
  std::string tuning = {};  // if set, the one tuning that runs this instance (min_blocks is then not consulted)

  // Whether a call with tuning t runs this instance.
  bool runs(const Tuning& t) const { return tuning.empty() ? min_blocks == t.mb : tuning == t.name; }
};

template <class T>
using StageFn = void (*)(const StageCall<T>&);

struct Variant {
  StageKind stage = StageKind::count;
  std::string name;
  Backend backend = Backend::cpu_serial;
  std::map<std::string, std::string> tags;
  std::vector<Tuning> tunings;  // the first one is the default
  Determinism determinism = Determinism::deterministic;
  bool synchronizes = false;  // waits on the host inside the stage (reads a result back)
  StageFn<float> run_float = nullptr;
  StageFn<double> run_double = nullptr;
  std::vector<KernelRef> kernels;
  std::string id_text;  // "stage/name", set by Registry::add (no allocation when the solver names a stage call)

  const std::string& id() const { return id_text; }
  template <class T>
  StageFn<T> fn() const {
    if constexpr (sizeof(T) == sizeof(float)) return run_float;
    else return run_double;
  }
  const Tuning* find_tuning(const std::string& name) const;
};

class Registry {
 public:
  static Registry& instance();
  void add(Variant v);
  const std::vector<Variant>& all() const { return variants_; }
  std::vector<const Variant*> of_stage(StageKind s) const;
  // Throws std::runtime_error naming the known variants when the id is unknown.
  const Variant& get(StageKind s, const std::string& name) const;
  const Variant* find(StageKind s, const std::string& name) const;

 private:
  std::vector<Variant> variants_;
};

struct Registrar {
  explicit Registrar(Variant v) { Registry::instance().add(std::move(v)); }
};

// Tuning names are "bx16_by8_sz2" style; parse_tuning fills bx, by, sz from such a name.
Tuning parse_tuning(const std::string& name);
std::vector<Tuning> tunings_2d(std::initializer_list<std::pair<int, int>> shapes, int sz);

}  // namespace nsb
