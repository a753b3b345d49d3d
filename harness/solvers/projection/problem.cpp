// The projection solver as the executor sees it: its cases, sections and stages (SolverDef), and a
// case set up for runs (ProjectionProblem: initial state, solvers per rank, validation).
#include "projection/cases.hpp"
#include "projection/output.hpp"
#include "projection/time_loop.hpp"
#include "projection/validation.hpp"

namespace nsb {

BoundarySpec slab_bc(const BoundarySpec& global, const Slab& s) {
  BoundarySpec b = global;
  if (s.has_lo()) b.face[2][0].type = FaceType::neighbour;
  if (s.has_hi()) b.face[2][1].type = FaceType::neighbour;
  return b;
}

namespace {

nlohmann::json validation_json(const Validation& v, bool steady) {
  nlohmann::json j = {{"kind", v.kind}, {"detail", v.detail}};
  // The urban checks measure balances, not an error against a solution: no max_error to store (a 0 would read as exact).
  if (v.kind != "urban" && v.kind != "cube") j["max_error"] = v.max_error, j["rms_error"] = v.rms_error;
  if (v.kind == "ghia") {
    j["steady_state"] = steady;
    nlohmann::json up = nlohmann::json::array(), wp = nlohmann::json::array();
    for (const ProfilePoint& p : v.u_profile) up.push_back({p.position, p.reference, p.computed});
    for (const ProfilePoint& p : v.w_profile) wp.push_back({p.position, p.reference, p.computed});
    j["u_profile"] = up;
    j["w_profile"] = wp;
  }
  if (v.kind == "poiseuille") {
    nlohmann::json up = nlohmann::json::array();
    for (const ProfilePoint& p : v.u_profile) up.push_back({p.position, p.reference, p.computed});
    j["u_profile"] = up;
  }
  if (v.kind == "taylor_green") j["energy_ratio"] = v.energy_ratio, j["energy_ratio_exact"] = v.energy_ratio_exact;
  if (v.kind == "urban" || v.kind == "cube") {
    const UrbanChecks& u = v.urban;
    j["inflow_flux"] = u.inflow_flux, j["outflow_flux"] = u.outflow_flux, j["mass_imbalance"] = u.mass_imbalance;
    j["wall_normal_max"] = u.wall_normal_max, j["solid_interior_max"] = u.solid_interior_max;
    j["divergence_fluid_max"] = u.divergence_fluid_max, j["divergence_fluid_rms"] = u.divergence_fluid_rms;
    if (v.kind == "cube") j["symmetry_max"] = u.symmetry_max, j["reattachment_length"] = u.reattachment_length;
  }
  return j;
}

// The cavity's y = 1/2 section for the report's picture (at most 64 x 64 cells: ~100 kB of JSON).
nlohmann::json slice_json(const FlowSlice& s) {
  return {{"plane", "y = 1/2"}, {"x", s.x}, {"z", s.z}, {"u", s.u}, {"w", s.w}};
}

class ProjectionProblem final : public ProblemImpl<ProjectionProblem> {
 public:
  explicit ProjectionProblem(const CaseOptions& o) : case_(make_case(o)) {}

  const Grid& grid() const override { return case_.grid; }
  bool periodic_z() const override { return case_.bc.periodic(2); }
  double dt() const override { return case_.dt; }
  nlohmann::json describe() const override {
    nlohmann::json d = {{"case", case_.name}, {"re", case_.u_ref * case_.re_length / case_.nu}, {"nu", case_.nu},
                        {"dt", case_.dt}, {"gamma", case_.gamma}, {"velocity_scale", case_.u_ref}};
    if (case_.has_obstacles()) {
      const std::vector<double> f = solid_flags(case_.grid, case_.buildings);
      double solid = 0;
      for (int k = 1; k <= case_.grid.nz; ++k)
        for (int j = 1; j <= case_.grid.ny; ++j)
          for (int i = 1; i <= case_.grid.nx; ++i) solid += f[case_.grid.idx(i, j, k)];
      d["buildings"] = case_.buildings.size();
      d["solid_fraction"] = solid / double(case_.grid.interior_points());
      d["smagorinsky_cs"] = case_.smagorinsky_cs;
      d["inflow_profile"] = case_.bc.face[0][0].profile == InflowProfile::log_law ? "log" : "uniform";
    }
    return d;
  }
  void check_options(const SolverOptions& o) const override {
    if (o.jacobi_iterations < 1) throw std::runtime_error("--iterations must be at least 1");
    if (o.check_every < 0) throw std::runtime_error("--check-every must be 0 (the method's default) or more");
  }

  template <class T>
  HostState<T> initial() const {
    return nsb::initial_state<T>(case_);
  }
  // Every case's state is a function of the point (nsb::initial_slab): the cavity, the channel, Taylor-Green, the urban
  // cases' buildings.
  bool builds_slabs() const override { return true; }
  template <class T>
  HostState<T> slab_initial(const Slab& s) const {
    return nsb::initial_slab<T>(case_, s);
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    if (!ctx || !ctx->decomposed()) return std::make_unique<ProjectionSolver<T>>(case_, r, o, ctx);
    Case local = case_;
    local.grid = slab_grid(case_.grid, ctx->slab());
    local.bc = slab_bc(case_.bc, ctx->slab());
    return std::make_unique<ProjectionSolver<T>>(local, r, o, ctx);
  }
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool steady) const {
    nlohmann::json j = validation_json(nsb::validate(case_, s), steady);
    j["time"] = s.time;
    // A converged cavity's section, for the report's picture (only then: every other run stays small).
    if (case_.name == "cavity" && steady) j["slice"] = slice_json(centre_slice(case_, s, 64));
    return j;
  }
  template <class T>
  std::vector<std::string> output(const HostState<T>& s, const std::string& dir, const std::string& tag) const {
    return write_projection_output(case_, s, dir, tag);
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions& o) const {
    // the solver's fields, and the pressure solve's workspace on the rank's grid (PoissonMethodInfo::work_arrays)
    return ProjectionSolver<T>::device_bytes(g, o.scheme, case_.has_obstacles(), case_.turbulent) +
           std::size_t(poisson_method_work_arrays(o.poisson_method) * double(g.padded_points() * sizeof(T)) +
                       poisson_kernels_workspace_bytes(o.poisson_kernels, g, int(sizeof(T))));
  }

 private:
  Case case_;
};

const SolverRegistrar reg{SolverDef{
    .name = "projection",
    .description = "Thibault (2009): explicit projection method on a staggered grid, Jacobi pressure sweeps",
    .cases = case_names(),
    .sections = projection_sections(),
    .stages = projection_stage_names(),
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<ProjectionProblem>(o); },
}};

}  // namespace
}  // namespace nsb
