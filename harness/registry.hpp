// The variant registry: every implementation of every stage registers itself from its own file.
//
//   static const nsb::Registrar reg{{
//       .stage = "projection/pressure", .name = "jacobi_global_2d", .backend = Backend::cuda,
//       .tags = {{"memory", "global"}, {"cta", "2d"}},
//       .tunings = {parse_tuning("bx16_by8_sz2"), ...},
//       .run_float = &sweep<float>, .run_double = &sweep<double>}};
//
// Nothing else needs editing: the solver, `nsbench list`/`verify`/`stages`, the tests and the reports
// find it here. The identity of a variant is solver/stage/variant (+ :tuning): "projection/pressure/
// jacobi_global_2d:bx16_by8_sz2". The stage kind ("projection/pressure") is registered by its solver
// (stage_kind.hpp); registrations are checked against it (call type, tags, tuning axes) the first time
// the registry is read, since the order of static registrations across files is unspecified.
#pragma once

#include <map>
#include <string>
#include <typeindex>
#include <typeinfo>
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

// A variant's entry point for one precision, whatever its solver's call structure: `void f(const Call&)`.
// The call type is kept, so that a variant registered for the wrong stage kind is refused by name.
class StageFn {
 public:
  StageFn() = default;
  template <class Call>
  StageFn(void (*f)(const Call&)) : fn_(reinterpret_cast<void (*)()>(f)), call_type_(typeid(Call)) {}
  template <class Call>
  void operator()(const Call& c) const {
    reinterpret_cast<void (*)(const Call&)>(fn_)(c);
  }
  explicit operator bool() const { return fn_ != nullptr; }
  std::type_index call_type() const { return call_type_; }

 private:
  void (*fn_)() = nullptr;
  std::type_index call_type_ = typeid(void);
};

struct Variant {
  std::string stage;  // the stage kind, "solver/stage"
  std::string name;
  // Names it had before (recorded results, baselines, recipes and studies say them): Registry::find
  // and get answer to them too; the id is always the name now.
  std::vector<std::string> aliases;
  Backend backend = Backend::cpu_serial;
  std::map<std::string, std::string> tags;
  std::vector<Tuning> tunings;  // the first one is the default
  Determinism determinism = Determinism::deterministic;
  bool synchronizes = false;  // waits on the host inside the stage (reads a result back)
  // What the variant is for a reader of `nsbench list`: "thesis baseline", "best on H200", "negative:
  // <why>", ... (free text; docs/performance-notes.md has the measurements behind it).
  std::string status;
  StageFn run_float;
  StageFn run_double;
  std::vector<KernelRef> kernels;
  std::string id_text;  // "solver/stage/name", set by Registry::add (no allocation when a solver names a call)

  const std::string& id() const { return id_text; }
  std::string solver() const { return stage.substr(0, stage.find('/')); }
  std::string stage_name() const { return stage.substr(stage.find('/') + 1); }
  // The entry point for calls of type Call (float or double by Call::value_type).
  template <class Call>
  const StageFn& fn() const {
    if constexpr (sizeof(typename Call::value_type) == sizeof(float)) return run_float;
    else return run_double;
  }
  const Tuning* find_tuning(const std::string& name) const;
  // Whether `n` names this variant: its name or one of its aliases.
  bool answers_to(const std::string& n) const;
};

class Registry {
 public:
  static Registry& instance();
  void add(Variant v);
  // Every variant, sorted by stage kind, backend, name; checked against the stage kinds on first use.
  const std::vector<Variant>& all() const;
  std::vector<const Variant*> of_stage(const std::string& stage_id) const;
  // By name or alias. Throws std::runtime_error naming the known variants when the id is unknown.
  const Variant& get(const std::string& stage_id, const std::string& name) const;
  const Variant* find(const std::string& stage_id, const std::string& name) const;

 private:
  void check() const;
  std::vector<Variant> variants_;
  mutable bool checked_ = false;
};

struct Registrar {
  explicit Registrar(Variant v) { Registry::instance().add(std::move(v)); }
};

// Tuning names are "bx16_by8_sz2" style; parse_tuning fills bx, by, sz, pf, mb from such a name.
Tuning parse_tuning(const std::string& name);
std::vector<Tuning> tunings_2d(std::initializer_list<std::pair<int, int>> shapes, int sz);

}  // namespace nsb
