// The wave solver as the executor sees it: its case, sections and stage (SolverDef), and a case set up
// for runs (WaveProblem: initial state, a solver per rank, validation against the exact solution).
#include "wave/case.hpp"
#include "wave/time_loop.hpp"

namespace nsb {
namespace {

class WaveProblem final : public ProblemImpl<WaveProblem> {
 public:
  explicit WaveProblem(const CaseOptions& o) : case_(make_wave_case(o)) {}

  const Grid& grid() const override { return case_.grid; }
  bool periodic_z() const override { return false; }
  double dt() const override { return case_.dt; }
  nlohmann::json describe() const override {
    const StandingWave& w = case_.exact;
    return {{"case", "standing_wave"}, {"c", w.c}, {"h", case_.h()}, {"dt", case_.dt}, {"rho", case_.rho()},
            {"mode", {w.m, w.n}}, {"domain", {w.lx, w.ly}}, {"omega", w.omega()}};
  }
  void check_options(const SolverOptions& o) const override { check_wave_options(o); }

  template <class T>
  HostState<T> initial() const {
    return wave_initial_state<T>(case_);
  }
  bool builds_slabs() const override { return true; }  // the exact solution at each node
  template <class T>
  HostState<T> slab_initial(const Slab& s) const {
    return wave_initial_slab<T>(case_, s);
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    const Grid local = ctx && ctx->decomposed() ? slab_grid(case_.grid, ctx->slab()) : case_.grid;
    return std::make_unique<WaveSolver<T>>(case_, local, r, o, ctx);
  }
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    return wave_validation(case_, s);
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions&) const {
    return WaveSolver<T>::device_bytes(g);
  }

 private:
  WaveCase case_;
};

const SolverRegistrar reg{SolverDef{
    .name = "wave",
    .description = "Thibault (2009) Sec. 2.3.1 / 3.1: the 2D wave equation, second order in time and space, one "
                   "kernel a step",
    .cases = {"standing_wave"},
    .sections = wave_sections(),
    .stages = {"step"},
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<WaveProblem>(o); },
}};

}  // namespace
}  // namespace nsb
