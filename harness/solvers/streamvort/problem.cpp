// The flow solver as the executor sees it (SolverDef streamvort): its cases, sections and stages, and a
// case set up for runs (initial state, the solver, validation against Blasius or symmetry).
#include "recipe.hpp"
#include "streamvort/case.hpp"
#include "streamvort/time_loop.hpp"

namespace nsb {
namespace {

class FlowProblem final : public ProblemImpl<FlowProblem> {
 public:
  explicit FlowProblem(const CaseOptions& o) : case_(make_flow_case(o)) {}

  const Grid& grid() const override { return case_.geo.grid; }
  bool periodic_z() const override { return false; }
  double dt() const override { return case_.dt; }
  nlohmann::json describe() const override {
    const GridSpec& s = case_.geo.spec;
    return {{"case", case_.name}, {"re", case_.re}, {"dt", case_.dt}, {"relax", case_.relax},
            {"body", s.body == Body::airfoil ? "NACA " + s.naca : "flat plate"}, {"wall_spacing", s.wall_spacing},
            {"far_radius", s.far_radius}, {"te_clustering", s.te_clustering}, {"xi_nodes", s.nx}, {"eta_unknowns", s.ny},
            {"convection", case_.convection == Convection::upwind2
                               ? "upwind2: central at cell Peclet <= 2, else van Leer-limited 2nd-order upwind"
                               : "hybrid: central at cell Peclet <= 2, else 1st-order upwind"},
            {"angle_of_attack", 0},
            {"turbulence", case_.turbulent ? "baldwin_lomax" : "none"}, {"sor_omega", case_.sor_omega}};
  }
  void check_options(const SolverOptions& o) const override { check_flow_options(case_, o); }

  template <class T>
  HostState<T> initial() const {
    return flow_initial_state<T>(case_);
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    if (ctx && ctx->decomposed()) throw std::runtime_error("the streamvort solver runs on one rank (no decomposition)");
    return std::make_unique<FlowSolver<T>>(case_, r, o);
  }
  // The validation record; for the airfoil also the vortical-impulse drag (geometry.hpp), an estimate
  // independent of the wall pressure: -2 dI_x/dt by a difference over kImpulseSteps CPU steps from the
  // final state (20 sweeps a step), so it costs the check, not the timed run. The steps run on every core
  // (cpu_omp: the same loops as cpu_serial, bit for bit, reference_cpu/streamvort/stages_cpu.cpp): on a
  // 1024^2 grid they are seconds on one.
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    nlohmann::json v = flow_validation(case_, s);
    if (case_.geo.spec.body != Body::airfoil) return v;
    constexpr int kImpulseSteps = 10;
    SolverOptions every_core;
    every_core.threads = 0;
    FlowSolver<T> cpu(case_, resolve(find_recipe("streamvort", "cpu-omp"), {}), every_core);
    cpu.load(s);
    for (int k = 0; k < kImpulseSteps; ++k) cpu.step();
    const std::vector<T>& w0 = s.field("omega");
    const std::vector<T> w1 = cpu.save().field("omega");
    const std::vector<double> before(w0.begin(), w0.end()), after(w1.begin(), w1.end());
    const auto cd = [&](double impulse_before, double r_min) {
      const double impulse_after = vortical_impulse_x(case_.geo, case_.metrics, after, r_min);
      return -2 * (impulse_after - impulse_before) / (kImpulseSteps * case_.dt);
    };
    const double impulse = vortical_impulse_x(case_.geo, case_.metrics, before, 0);
    v["impulse_x"] = impulse;
    v["cd_impulse"] = cd(impulse, 0);
    // The part of it from beyond one chord of mid-chord (the wake, where the O-grid's cells grow with the
    // radius and the hybrid convection is first-order upwind).
    v["cd_impulse_beyond_1_chord"] = cd(vortical_impulse_x(case_.geo, case_.metrics, before, 1), 1);
    return v;
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions& o) const {
    return FlowSolver<T>::device_bytes(g, o.jacobi_iterations, case_.turbulent);
  }

 private:
  FlowCase case_;
};

const SolverRegistrar reg{SolverDef{
    .name = "streamvort",
    .description = "Gohari, Esfahanian & Moqtaderi (2012): 2D incompressible flow in stream function and vorticity on "
                   "a body-fitted grid, explicit vorticity transport, Jacobi for the stream function, Baldwin-Lomax turbulence",
    .cases = {"naca0012", "flat_plate"},
    .sections = streamvort_sections(),
    .stages = {"vorticity", "stream", "boundary", "turbulence", "stream_sor"},
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<FlowProblem>(o); },
}};

}  // namespace
}  // namespace nsb
