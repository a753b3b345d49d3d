// The Solver interface the executor drives, and the registry of solvers.
//
// A solver (harness/solvers/<name>/) is a time loop over its stage kinds. It registers a SolverDef:
// its name, cases, timing sections (its stage names in step order, then sections of its own such as
// halo exchanges) and a factory that turns a case into a Problem. The Problem knows the grid, the
// initial state, how to build a Solver<T> for a recipe and a rank, and how to validate a final state.
// The executor (harness/run/) does the rest for every solver alike: warm-up, timed steps with CUDA
// events or a host clock, CUDA-graph replay, ranks, the check against the CPU reference, profiling
// passes and the JSON result. No file of the generic core includes a solver's header.
#pragma once

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rank_context.hpp"
#include "recipe.hpp"
#include "stage_kind.hpp"
#include "timer.hpp"
#include "vtk.hpp"

namespace nsb {

// The state that defines a run, on the host, by field name (a rank's slab, or the whole grid).
template <class T>
struct HostState {
  Grid grid;
  std::vector<std::pair<std::string, std::vector<T>>> fields;
  int step = 0;
  double time = 0;

  std::vector<T>& field(const std::string& name) {
    for (auto& f : fields)
      if (f.first == name) return f.second;
    throw std::logic_error("state has no field '" + name + "'");
  }
  const std::vector<T>& field(const std::string& name) const { return const_cast<HostState*>(this)->field(name); }
  bool has(const std::string& name) const {
    for (const auto& f : fields)
      if (f.first == name) return true;
    return false;
  }
};

// Options of the time loop every solver may honour (a solver refuses those it cannot).
struct SolverOptions {
  TimeScheme scheme = TimeScheme::euler;
  std::string poisson_method = "jacobi";  // the Poisson family's method for a pressure solve
  // Kernel choices of the family's own stages ("poisson/<stage>" -> "variant[:tuning]"), from the run's
  // --stage options that name a poisson/ stage (the method resolves them; run/ranks.cpp splits them off).
  std::map<std::string, std::string> poisson_kernels;
  int jacobi_iterations = 20;  // pressure / Poisson sweeps per step (thesis nITERATIONS), or the cap with a tolerance
  double jacobi_tol = 0;       // > 0: iterate until RMS residual <= tol * RMS(right-hand side)
  int check_every = 0;         // iterations between residual checks in tolerance mode; 0: the method's default
  int threads = 0;             // cpu_omp threads (0: all)
};

template <class T>
class Solver {
 public:
  virtual ~Solver() = default;
  // The state of this rank (its slab), and back. load() synchronises the ranks.
  virtual void load(const HostState<T>& s) = 0;
  virtual HostState<T> save() const = 0;
  // One time step; each stage call and exchange is bracketed on the timer by its section index
  // (SolverDef::sections), the whole step by kStepSection.
  virtual void step() = 0;
  virtual void set_timer(SectionTimer* t) = 0;
  virtual void sync() const = 0;
  virtual void* stream() const = 0;  // the GPU stream the steps run on (null on the CPU)
  // Graph replay: how many steps bring every swapped pointer back, so that one recording replays for
  // ever; replayed() advances the counters after a replay (or winds them back after the recording).
  virtual int steps_per_graph() const = 0;
  virtual void replayed(int steps) = 0;
  virtual int step_index() const = 0;
  virtual double time() const = 0;
  // Relative change per unit time of the state over the last step, for --until-steady (synchronises),
  // where the solver has such a monitor; a NaN or Inf from it means the state blew up.
  virtual bool monitors_steady_state() const { return false; }
  virtual double steady_change() { return NAN; }
  // What the solver reports after the timed steps, untimed: e.g. the divergence after projection, the
  // last pressure iterations. Goes to the result's "checks" (numbers) and the summary.
  virtual nlohmann::json final_checks() = 0;
  // The work of one call of a section on this rank's grid (a stage: its byte and flop model; others: 0).
  virtual WorkModel work_model(int section) const = 0;
  // Calls of a section a step makes (what graph mode, which times whole steps only, counts flops by).
  virtual double calls_per_step(int section) const { (void)section; return 1; }
  // Bytes this rank sends per call of a halo section (0 for other sections).
  virtual double halo_bytes_per_call(int section) const { (void)section; return 0; }
  virtual nlohmann::json halo_description() const { return nlohmann::json::object(); }
};

// Selects a precision in overloads that would otherwise differ only by return type.
template <class T>
struct Precision {};

// A case set up for one solver: everything that does not depend on the precision, plus the
// precision-specific parts through ProblemOf<T>. A solver derives from ProblemImpl (below) and writes
// each precision-specific part once, as a member template.
template <class T>
class ProblemOf {
 public:
  virtual ~ProblemOf() = default;
  // The initial state of the whole grid.
  virtual HostState<T> initial_state(Precision<T>) const = 0;
  // One rank's slab of it (its planes or rows and their ghost layers, as scatter_slab cuts them), built without the
  // rest of the grid, every value as the whole state's; only where Problem::builds_slabs() says so.
  virtual HostState<T> initial_slab(Precision<T>, const Slab& s) const {
    (void)s;
    throw std::logic_error("this case builds its initial state for the whole grid only (Problem::builds_slabs)");
  }
  // A solver of this rank's part (ctx: null for an undecomposed run).
  virtual std::unique_ptr<Solver<T>> make_solver(Precision<T>, const ResolvedRecipe& r, const SolverOptions& o,
                                                 const RankContext* ctx) const = 0;
  // Validation of a final state of the whole grid against physics (exact solution, published data):
  // {"kind": ..., "max_error": ..., "rms_error": ...}, "kind": "none" with a "detail" where the case has
  // none. steady: whether the run reached steady state.
  virtual nlohmann::json validate(const HostState<T>& final_state, bool steady) const = 0;
  // The bytes one rank of grid g needs on the GPU, to refuse a run that cannot fit before anything is
  // allocated.
  virtual std::size_t device_bytes(Precision<T>, const Grid& g, const SolverOptions& o) const = 0;
  // Writes a state of the whole grid for people to look at (flow fields for ParaView, profiles as CSV)
  // into folder `dir`, its files named after `tag` ("final", "step000100"); returns their paths.
  virtual std::vector<std::string> write_output(const HostState<T>& s, const std::string& dir,
                                                const std::string& tag) const = 0;
};

class Problem : public ProblemOf<float>, public ProblemOf<double> {
 public:
  using ProblemOf<float>::initial_state, ProblemOf<double>::initial_state;
  using ProblemOf<float>::initial_slab, ProblemOf<double>::initial_slab;
  using ProblemOf<float>::make_solver, ProblemOf<double>::make_solver;
  using ProblemOf<float>::validate, ProblemOf<double>::validate;
  using ProblemOf<float>::device_bytes, ProblemOf<double>::device_bytes;
  using ProblemOf<float>::write_output, ProblemOf<double>::write_output;
  virtual const Grid& grid() const = 0;
  virtual bool periodic_z() const = 0;  // the decomposition axis wraps
  virtual double dt() const = 0;
  // The case's parameters for the result ("case", physical parameters, time step).
  virtual nlohmann::json describe() const = 0;
  // Refuses options the solver cannot honour (throws std::runtime_error naming them).
  virtual void check_options(const SolverOptions& o) const { (void)o; }
  // Whether initial_slab builds a rank's slab alone: an initial state that is a function of each point's global
  // indices (not a random stream over the whole array, nor a mesh read whole). Then an MPI rank holds its slab
  // from the start and no process builds the whole grid for the run (run/ranks.cpp).
  virtual bool builds_slabs() const { return false; }
};

// Implements the precision-specific overrides by forwarding to the member templates of D:
//   template <class T> HostState<T> initial() const;
//   template <class T> std::unique_ptr<Solver<T>> solver(const ResolvedRecipe&, const SolverOptions&, const RankContext*) const;
//   template <class T> nlohmann::json check(const HostState<T>&, bool steady) const;
//   template <class T> std::size_t bytes(const Grid&, const SolverOptions&) const;
// and, optionally, one rank's slab of the initial state (a case that overrides Problem::builds_slabs):
//   template <class T> HostState<T> slab_initial(const Slab&) const;
// and its own output (else every state field as stored, write_fields_vti):
//   template <class T> std::vector<std::string> output(const HostState<T>&, const std::string& dir, const std::string& tag) const;
template <class D>
class ProblemImpl : public Problem {
 public:
  HostState<float> initial_state(Precision<float>) const override { return self().template initial<float>(); }
  HostState<double> initial_state(Precision<double>) const override { return self().template initial<double>(); }
  HostState<float> initial_slab(Precision<float>, const Slab& s) const override { return slab_of<float>(s); }
  HostState<double> initial_slab(Precision<double>, const Slab& s) const override { return slab_of<double>(s); }
  std::unique_ptr<Solver<float>> make_solver(Precision<float>, const ResolvedRecipe& r, const SolverOptions& o,
                                             const RankContext* ctx) const override {
    return self().template solver<float>(r, o, ctx);
  }
  std::unique_ptr<Solver<double>> make_solver(Precision<double>, const ResolvedRecipe& r, const SolverOptions& o,
                                              const RankContext* ctx) const override {
    return self().template solver<double>(r, o, ctx);
  }
  nlohmann::json validate(const HostState<float>& s, bool steady) const override { return self().check(s, steady); }
  nlohmann::json validate(const HostState<double>& s, bool steady) const override { return self().check(s, steady); }
  std::size_t device_bytes(Precision<float>, const Grid& g, const SolverOptions& o) const override {
    return self().template bytes<float>(g, o);
  }
  std::size_t device_bytes(Precision<double>, const Grid& g, const SolverOptions& o) const override {
    return self().template bytes<double>(g, o);
  }
  std::vector<std::string> write_output(const HostState<float>& s, const std::string& dir,
                                        const std::string& tag) const override {
    return output_of(s, dir, tag);
  }
  std::vector<std::string> write_output(const HostState<double>& s, const std::string& dir,
                                        const std::string& tag) const override {
    return output_of(s, dir, tag);
  }

 private:
  const D& self() const { return static_cast<const D&>(*this); }
  template <class T>
  HostState<T> slab_of(const Slab& s) const {
    if constexpr (requires { self().template slab_initial<T>(s); }) return self().template slab_initial<T>(s);
    else return ProblemOf<T>::initial_slab(Precision<T>{}, s);
  }
  template <class T>
  std::vector<std::string> output_of(const HostState<T>& s, const std::string& dir, const std::string& tag) const {
    if constexpr (requires { self().template output<T>(s, dir, tag); }) return self().template output<T>(s, dir, tag);
    else return {write_fields_vti(dir, tag, s.grid, s.fields)};
  }
};

// What a case is built from; a solver reads what it needs and refuses what it cannot use.
struct CaseOptions {
  std::string name;       // "" = the solver's first case
  int nx = 64, ny = 4, nz = 64;
  double re = 100;       // Reynolds number on the case's reference velocity and length
  double dt = 0;         // 0: from the stability rule
  double safety = 0.8;   // fraction of the stable explicit time step
  double gamma = 0;      // upwind blend weight
  // A case's own settings, "key=value" (--case-param; e.g. the urban case's city seed or file): each
  // case names the keys it reads and refuses others.
  std::vector<std::string> params{};
};

// A case's --case-param KEY=VALUE settings, checked against the keys it knows (std::invalid_argument
// naming them otherwise), and one of them as a number (the fallback where it is not given).
std::map<std::string, std::string> case_params(const CaseOptions& o, const std::vector<std::string>& known);
double number_param(const std::map<std::string, std::string>& p, const std::string& key, double fallback);

struct SolverDef {
  std::string name;
  std::string description;
  std::vector<std::string> cases;     // --case names; the first is the default
  std::vector<std::string> sections;  // timing sections: the stage names in step order, then the solver's own
  std::vector<std::string> stages;    // the stage kinds a recipe chooses, in step order
  // Its cases share names with another solver's (imle's cavity): a run reaches them by --solver only.
  bool by_name_only = false;
  // The Poisson method a run's pressure solve uses where it is not --poisson as given (imle: its
  // "jacobi" means cg); the reference check's tolerance follows it (run/result.hpp reference_tolerance).
  std::function<std::string(const SolverOptions&)> pressure_method = {};
  // Throws std::invalid_argument naming the problem for a bad case name, grid or parameter.
  std::function<std::unique_ptr<Problem>(const CaseOptions&)> make_problem;

  std::string section_name(int section) const {
    if (section == kStepSection) return "step";
    return section >= 0 && section < int(sections.size()) ? sections[std::size_t(section)] : "?";
  }
  int section_index(const std::string& name) const;  // -1 where the solver has no such section
};

class SolverRegistry {
 public:
  static SolverRegistry& instance();
  void add(SolverDef d);
  const std::vector<SolverDef>& all() const { return solvers_; }
  const SolverDef* find(const std::string& name) const;
  const SolverDef& get(const std::string& name) const;  // throws naming the known solvers
  // The solver that has a case of this name, by_name_only solvers aside (throws naming every solver's
  // cases if none).
  const SolverDef& of_case(const std::string& case_name) const;
  // The named solver if solver_name is given (throws unless it has the case), else of_case.
  const SolverDef& of_run(const std::string& solver_name, const std::string& case_name) const;

 private:
  std::vector<SolverDef> solvers_;
};

struct SolverRegistrar {
  explicit SolverRegistrar(SolverDef d) { SolverRegistry::instance().add(std::move(d)); }
};

}  // namespace nsb
