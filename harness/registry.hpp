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
//
// Where a tuning's values are template parameters, each tuning carries its compiled instance
// (Tuning::instance: an entry point per precision and its kernels), and the variant registers
// run_tuning_instance as its own entry point:
//
//       .tunings = {ring_tuning<RingAsync, 64, 4, 2>("bx64_by4_sz32_pf2"), ...},
//       .run_float = &run_tuning_instance<StageCall<float>>, .run_double = ...
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "stage.hpp"

namespace nsb {

// How a variant's result may differ from the reference.
enum class Determinism {
  deterministic,     // same inputs, same bits, run after run
  order_dependent,   // reductions whose summation order varies between runs (atomics)
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
    return entry_for<Call>(*this);
  }
  const Tuning* find_tuning(const std::string& name) const;
  // Whether `n` names this variant: its name or one of its aliases.
  bool answers_to(const std::string& n) const;
};

// A CPU reference variant: the serial or OpenMP backend's, named and tagged by its backend (the
// variants a CPU recipe runs for a stage it leaves out).
inline Variant cpu_reference_variant(std::string stage, Backend b, StageFn run_float, StageFn run_double) {
  Variant v;
  v.stage = std::move(stage);
  v.name = backend_name(b);
  v.backend = b;
  v.tags = {{"backend", backend_name(b)}};
  v.status = "reference";
  v.run_float = run_float;
  v.run_double = run_double;
  return v;
}

// The entry point of a variant whose tunings carry their compiled instances (Tuning::instance): runs
// the instance of the call's tuning. Every caller sets the call's tuning from the variant's list (a
// recipe, verify, the stage benchmarks), so this is one indirect call, not a look-up.
template <class Call>
void run_tuning_instance(const Call& c) {
  if (!c.tuning.instance)
    throw std::logic_error("tuning " + c.tuning.name + " carries no compiled instance (a variant of compiled "
                           "instances runs its registered tunings only)");
  entry_for<Call>(*c.tuning.instance)(c);
}

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

// Tuning names are "bx16_by8_sz2" style; parse_tuning fills bx, by, sz, pf, mb, b, w, co from such a name.
Tuning parse_tuning(const std::string& name);
std::vector<Tuning> tunings_2d(std::initializer_list<std::pair<int, int>> shapes, int sz);

}  // namespace nsb
