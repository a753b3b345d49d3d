// The projection solver of Thibault (2009), Sec. 2.3 / Fig. 3.11, one time step:
//
//   u* = u^n + dt RHS(u^n)                     momentum      (Euler, or Adams-Bashforth 2)
//   ghost cells of u*                          velocity_bc
//   div = D u*                                 divergence
//   repeat: p <- Jacobi(p, div / dt)           pressure      (fixed count, or until the residual
//           ghost cells of p                   pressure_bc    falls below a tolerance: reduce)
//   u^{n+1} = u* - dt G p                      correction
//   ghost cells of u^{n+1}                     velocity_bc
//
// A turbulent run (--case-param turbulence=smagorinsky) first computes nu_t from u^n (nu_turbulent,
// Sec. 2.2.3) and the momentum's diffusion uses nu + nu_t (Sec. 2.3.3). nu_t's ghost cells on the
// domain's faces stay 0 (the eddy viscosity vanishes at walls and is not extrapolated through the
// open faces); a cut face receives the neighbour's values (their own exchange).
//
// With obstacles (the urban cases, thesis Fig. 3.20) the obstacle logic runs after the predictor and
// after the correction (each followed by its own exchange in a decomposed run: it changes values its
// neighbours hold as ghosts), and the pressure sweep masks solid neighbours (Eq. 3.3).
//
// Each stage is whichever variant the recipe chose; the solver only owns the fields and the order.
//
// In a decomposed run each rank runs this solver on its z-slab (case.grid is the slab's grid) with a
// halo variant: ghost planes are exchanged after the predictor, after every Jacobi sweep and after the
// correction, before the ghost rules (thesis transfers 0-5); reductions are summed over the ranks.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fields.hpp"
#include "halo.hpp"
#include "nvtx.hpp"
#include "poisson/convergence.hpp"
#include "poisson/poisson.hpp"
#include "projection/cases.hpp"
#include "projection/models.hpp"
#include "projection/stage_call.hpp"
#include "projection/urban_ops.hpp"
#include "solver_base.hpp"

namespace nsb {

// The solver's timing sections: its seven stages (ProjectionStage order), then the three exchanges
// (the thesis's transfers, pairwise).
enum ProjectionSection : int {
  kHaloPredictorSection = int(ProjectionStage::count),  // u* v* w* after the predictor
  kHaloPressureSection,                                 // p after each Jacobi sweep
  kHaloCorrectionSection,                               // u v w after the correction
  kHaloNuTurbulentSection,                              // nut after nu_turbulent (turbulent runs)
};
std::vector<std::string> projection_sections();

// The projection solver's fields, in the order of the stage fixture (and so of its random seeds);
// with obstacles the flags and the obstacle logic's workspace.
inline std::vector<std::string> projection_field_names(bool adams_bashforth, bool obstacles = false,
                                                       bool turbulent = false) {
  std::vector<std::string> n = {"u", "v", "w", "us", "vs", "ws", "p", "p_new", "div"};
  if (adams_bashforth) n.insert(n.end(), {"hu", "hv", "hw"});
  if (obstacles) n.insert(n.end(), {"solid", "ut", "vt", "wt"});
  if (turbulent) n.push_back("nut");
  return n;
}

// Points a projection StageCall at a field set by name.
template <class T>
FieldPtrs<T> field_pointers(const FieldSet<T>& f) {
  FieldPtrs<T> p;
  p.u = f["u"], p.v = f["v"], p.w = f["w"], p.us = f["us"], p.vs = f["vs"], p.ws = f["ws"];
  p.p = f["p"], p.p_new = f["p_new"], p.div = f["div"];
  if (f.has("hu")) p.hu = f["hu"], p.hv = f["hv"], p.hw = f["hw"];
  if (f.has("solid")) p.solid = f["solid"];
  if (f.has("ut")) p.ut = f["ut"], p.vt = f["vt"], p.wt = f["wt"];
  if (f.has("nut")) p.nut = f["nut"];
  return p;
}

template <class T>
StepParams<T> step_params(const Case& c, TimeScheme scheme) {
  StepParams<T> p;
  p.dt = T(c.dt), p.nu = T(c.nu), p.gamma = T(c.gamma), p.scheme = scheme;
  for (int a = 0; a < 3; ++a) p.force[a] = T(c.force[a]);
  p.coef = make_grid_coef<T>(c.grid);
  const double delta = std::cbrt(c.grid.dx() * c.grid.dy() * c.grid.dz());
  p.cs_delta2 = T((c.smagorinsky_cs * delta) * (c.smagorinsky_cs * delta));
  return p;
}

template <class T>
class ProjectionSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::time_, Base::begin, Base::end, Base::timed, Base::sync;

 public:
  // `c` is the rank's own case (its slab's grid and boundary rules) when `rank` is given.
  ProjectionSolver(const Case& c, const ResolvedRecipe& r, SolverOptions o, const RankContext* rank = nullptr)
      : Base(c.dt), case_(c), recipe_(r), opt_(o),
        fields_(c.grid.padded_points(), r.backend == Backend::cuda),
        global_points_(double(c.grid.interior_points())),
        poisson_(make_poisson_method<T>(o.poisson_method, {o.jacobi_iterations, o.jacobi_tol, o.check_every, o.poisson_kernels, false, {}})) {
    const bool dev = r.backend == Backend::cuda;
    for (int s = 0; s < int(ProjectionStage::count); ++s) stage_[s] = &recipe_[stage_name(ProjectionStage(s))];
    refuse_what_cannot_run_this_case();  // before any device allocation
    for (const std::string& name : projection_field_names(o.scheme == TimeScheme::adams_bashforth2, c.has_obstacles(), c.turbulent))
      fields_.add(name);
    if (dev) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "reduction scratch");
      reduce_out_ = static_cast<double*>(device::alloc(sizeof(double), "reduction result"));
    } else {
      reduce_out_ = &host_result_;
    }
    call_.f = field_pointers(fields_);
    call_.grid = c.grid;
    call_.zr = ZRange::interior(c.grid);
    call_.bc = BoundaryRules<T>::make(c.bc);
    call_.exec = Exec{r.backend, o.threads, stream_, scratch_, dev ? kReduceScratchBytes : 0};
    call_.prm = step_params<T>(c, o.scheme);
    if (rank && rank->decomposed()) {
      comm_ = rank->comm;
      rank_slab_ = rank->slab();
      global_points_ = comm_->allreduce_sum(global_points_);
      RankContext mine = *rank;
      mine.grid = c.grid, mine.stream = stream_;
      halo_ = rank->halo->template factory<T>()(mine);
      halo_->attach(fields_.pointers());
    }
  }
  ~ProjectionSolver() override {
    halo_.reset();  // before the stream it may use
    if (recipe_.backend == Backend::cuda) {
      if (cells_device_) device::free(cells_device_);
      device::free(scratch_);
      device::free(reduce_out_);
      device::stream_destroy(stream_);
    }
  }
  ProjectionSolver(const ProjectionSolver&) = delete;
  ProjectionSolver& operator=(const ProjectionSolver&) = delete;

  // Bytes of a solver of grid g on the GPU.
  static std::size_t device_bytes(const Grid& g, TimeScheme scheme, bool obstacles = false, bool turbulent = false) {
    const std::size_t fields = projection_field_names(scheme == TimeScheme::adams_bashforth2, obstacles, turbulent).size();
    // The obstacle cell list holds at most every point, 4 bytes each.
    return fields * g.padded_points() * sizeof(T) + (obstacles ? g.padded_points() * 4 : 0) + kReduceScratchBytes;
  }

  void load(const HostState<T>& s) override {
    for (const std::string& name : fields_.names()) {  // a field the state does not set starts at zero
      if (s.has(name)) fields_.upload(name, s.field(name));
      else fields_.zero(name);
    }
    call_.f = field_pointers(fields_);
    if (case_.has_obstacles()) list_obstacle_cells(s.field("solid"));
    step_ = s.step;
    time_ = s.time;
    call_.prm.first_step = s.step == 0;
    sync();
    // A neighbour that loads faster must not push its first halo into arrays this rank is still loading.
    if (comm_) comm_->barrier();
  }

  HostState<T> save() const override {
    sync();
    HostState<T> s{case_.grid, {}, step_, time_};
    const FieldPtrs<T>& f = call_.f;
    for (auto [name, p] : {std::pair{"u", f.u}, {"v", f.v}, {"w", f.w}, {"p", f.p}})
      s.fields.emplace_back(name, fields_.buffer_of(p).download());
    if (f.hu)
      for (auto [name, p] : {std::pair{"hu", f.hu}, {"hv", f.hv}, {"hw", f.hw}})
        s.fields.emplace_back(name, fields_.buffer_of(p).download());
    return s;
  }

  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    FieldPtrs<T>& f = call_.f;

    if (case_.turbulent) run_and_exchange(ProjectionStage::nu_turbulent, {f.nut}, kHaloNuTurbulentSection);
    run_and_exchange(ProjectionStage::momentum, {f.us, f.vs, f.ws}, kHaloPredictorSection);
    apply_obstacles(kHaloPredictorSection);
    run(ProjectionStage::velocity_bc);
    run(ProjectionStage::divergence);
    solve_pressure();
    run_and_exchange(ProjectionStage::correction, {f.us, f.vs, f.ws}, kHaloCorrectionSection);
    apply_obstacles(kHaloCorrectionSection);
    run(ProjectionStage::velocity_bc);
    std::swap(f.u, f.us), std::swap(f.v, f.vs), std::swap(f.w, f.ws);

    end(kStepSection);
    call_.prm.first_step = false;
    ++step_;
    time_ += case_.dt;
  }

  // RMS over the interior of u^{n+1} - u^n (all three components) per unit time, relative to the
  // velocity scale: the steady-state monitor. Synchronises (reads the reduction back).
  bool monitors_steady_state() const override { return true; }
  double steady_change() override {
    const FieldPtrs<T>& f = call_.f;
    const double s = reduce(f.u, f.us) + reduce(f.v, f.vs) + reduce(f.w, f.ws);
    return std::sqrt(s / (3.0 * global_points_)) / (case_.dt * case_.u_ref);
  }
  // RMS of div u over the interior of the current velocity (projection quality).
  double divergence_rms() {
    std::swap(call_.f.u, call_.f.us), std::swap(call_.f.v, call_.f.vs), std::swap(call_.f.w, call_.f.ws);
    run_untimed(ProjectionStage::divergence);
    std::swap(call_.f.u, call_.f.us), std::swap(call_.f.v, call_.f.vs), std::swap(call_.f.w, call_.f.ws);
    return std::sqrt(reduce(call_.f.div, nullptr) / global_points_);
  }
  nlohmann::json final_checks() override {
    nlohmann::json j = {{"divergence_rms", divergence_rms()}, {"jacobi_last_iterations", last_iterations_}};
    PoissonReport last;
    last.iterations = last_iterations_, last.relative_residual = last_residual_;
    j.update(poisson_convergence_checks(last, opt_.jacobi_tol));
    return j;
  }
  WorkModel work_model(int section) const override {
    if (section < 0 || section >= int(ProjectionStage::count)) return {};
    const int bytes = int(sizeof(T));
    if (section == int(ProjectionStage::obstacles)) return obstacles_work_model(double(cells_.size()), bytes);
    if (section == int(ProjectionStage::nu_turbulent)) return nu_turbulent_work_model(case_.grid, ZRange::interior(case_.grid), bytes);
    if (section == int(ProjectionStage::momentum) && case_.turbulent)
      return momentum_eddy_work_model(case_.grid, ZRange::interior(case_.grid), bytes, opt_.scheme, case_.gamma != 0);
    if (section == int(ProjectionStage::pressure) && case_.has_obstacles())
      return masked_pressure_work_model(case_.grid, ZRange::interior(case_.grid), bytes);
    return nsb::work_model(ProjectionStage(section), case_.grid, ZRange::interior(case_.grid), int(sizeof(T)),
                           opt_.scheme, case_.gamma != 0);
  }
  double calls_per_step(int section) const override {
    if (section == int(ProjectionStage::pressure) || section == int(ProjectionStage::pressure_bc))
      return opt_.jacobi_iterations;
    if (section == int(ProjectionStage::velocity_bc)) return 2;
    if (section == int(ProjectionStage::obstacles)) return case_.has_obstacles() ? 2 : 0;
    if (section == int(ProjectionStage::nu_turbulent)) return case_.turbulent ? 1 : 0;
    return section == int(ProjectionStage::reduce) ? 0 : 1;  // reductions: only in tolerance mode and monitors
  }
  // Edge planes of each exchanged field, one per neighbour.
  double halo_bytes_per_call(int section) const override {
    if (!halo_) return 0;
    int fields = 0;
    if (section == kHaloPressureSection || (section == kHaloNuTurbulentSection && case_.turbulent)) fields = 1;
    if (section == kHaloPredictorSection || section == kHaloCorrectionSection) fields = 3;
    const Slab& s = rank_slab_;
    return double(case_.grid.sz()) * sizeof(T) * fields * (int(s.has_lo()) + int(s.has_hi()));
  }
  nlohmann::json halo_description() const override { return halo_ ? halo_->describe() : nlohmann::json::object(); }

  int steps_per_graph() const override { return 2; }  // u/u* and p/p_new are back where they were
  int last_jacobi_iterations() const { return last_iterations_; }
  double last_relative_residual() const { return last_residual_; }
  double last_absolute_residual() const { return last_abs_residual_; }

 private:
  // The pressure equation as the Poisson family sees it: the sweep stage (with its exchange), the
  // residual and right-hand side through the reduce stage, the ghost rule.
  class PressureSystem final : public PoissonSystem<T> {
   public:
    explicit PressureSystem(ProjectionSolver& s) : s_(s) {}
    void sweep() override {
      s_.run_and_exchange(ProjectionStage::pressure, {s_.call_.f.p_new}, kHaloPressureSection);
    }
    // p_new - p = B * (lap p - div/dt): the residual of the sweep's input, read before the swap.
    double sweep_residual_rms() override {
      return std::sqrt(s_.reduce(s_.call_.f.p_new, s_.call_.f.p) / s_.global_points_) /
             double(s_.call_.prm.coef.jacobi_b);
    }
    double rhs_rms() override { return std::sqrt(s_.reduce(s_.call_.f.div, nullptr) / s_.global_points_) / s_.case_.dt; }
    void accept_sweep() override {
      std::swap(s_.call_.f.p, s_.call_.f.p_new);
      s_.run(ProjectionStage::pressure_bc);
    }
    // lap p = div / dt with the pressure's ghost rule (boundary.hpp): Neumann on walls and free-slip
    // planes, periodic copies; a face cut by the decomposition marks the equation decomposed.
    PoissonEquation<T> equation() override {
      PoissonEquation<T> e;
      e.grid = s_.case_.grid;
      for (int a = 0; a < 3; ++a)
        for (int side = 0; side < 2; ++side) {
          const FaceType t = s_.case_.bc.face[a][side].type;
          e.faces.face[a][side] = t == FaceType::periodic ? PoissonFace::periodic : PoissonFace::neumann;
          if (t == FaceType::neighbour) e.decomposed = true;
        }
      e.p = s_.call_.f.p;
      e.rhs = s_.call_.f.div;
      e.rhs_scale = T(1) / s_.call_.prm.dt;
      e.exec = s_.call_.exec;
      return e;
    }

   private:
    ProjectionSolver& s_;
  };

  void solve_pressure() {
    PressureSystem system(*this);
    const PoissonReport r = poisson_->solve(system);
    last_iterations_ = r.iterations;
    last_residual_ = r.relative_residual;
    last_abs_residual_ = r.absolute_residual;
  }

  // A case with obstacles needs a pressure variant that masks them and the Jacobi method (whose sweep
  // is that variant); a turbulent case a momentum variant that takes nu_t; an outflow face (p = 0 there) needs the Jacobi method too: the other Poisson
  // methods see every non-periodic face as Neumann (PoissonEquation).
  void refuse_what_cannot_run_this_case() const {
    if (case_.has_obstacles()) {
      const Variant& v = *chosen(ProjectionStage::pressure).variant;
      const auto tag = v.tags.find("obstacles");
      if (tag == v.tags.end() || tag->second != "masked")
        throw std::runtime_error("case '" + case_.name + "' has obstacles: pressure variant " + v.id() +
                                 " does not mask them (Eq. 3.3); use one tagged obstacles=masked, e.g. "
                                 "--stage pressure=jacobi_masked_global_2d_zloop");
    }
    if (case_.turbulent) {
      const Variant& v = *chosen(ProjectionStage::momentum).variant;
      const auto tag = v.tags.find("viscosity");
      if (tag == v.tags.end() || tag->second != "eddy")
        throw std::runtime_error("case '" + case_.name + "' is turbulent: momentum variant " + v.id() +
                                 " does not add nu_t to nu; use one tagged viscosity=eddy, e.g. "
                                 "--stage momentum=global_2d_zloop");
    }
    if ((case_.has_obstacles() || case_.has_outflow()) && opt_.poisson_method != "jacobi")
      throw std::runtime_error("case '" + case_.name + "' (obstacles, outflow face) runs with --poisson jacobi only; '" +
                               opt_.poisson_method + "' does not take obstacles or an open face");
  }
  // The points the obstacle logic may change, from this rank's flags (host values), where the stage's
  // backend reads them.
  void list_obstacle_cells(const std::vector<T>& solid) {
    cells_ = obstacle_cell_list(case_.grid, solid);
    call_.obstacle_cells = {cells_.data(), cells_.size()};
    if (recipe_.backend != Backend::cuda || cells_.empty()) return;
    if (cells_device_) device::free(cells_device_);
    const std::size_t bytes = cells_.size() * sizeof(std::uint32_t);
    cells_device_ = device::alloc(bytes, "obstacle cell list");
    device::copy_to_device(cells_device_, cells_.data(), bytes);
    call_.obstacle_cells.index = static_cast<const std::uint32_t*>(cells_device_);
  }
  // The obstacle logic on u* v* w* (thesis Fig. 3.20), then, decomposed, the exchange of what it
  // changed (the whole slab at once: its passes read their neighbours' results, so it cannot overlap).
  void apply_obstacles(int halo_section) {
    if (!case_.has_obstacles()) return;
    run(ProjectionStage::obstacles);
    if (!halo_) return;
    FieldPtrs<T>& f = call_.f;
    timed(halo_section, "halo", [&] { halo_->exchange({f.us, f.vs, f.ws}); });
  }

  const ResolvedStage& chosen(ProjectionStage s) const { return *stage_[int(s)]; }
  void run(ProjectionStage s) {
    const ResolvedStage& rs = chosen(s);
    call_.tuning = rs.tuning;
    timed(int(s), rs.variant->id().c_str(), [&] { rs.variant->template fn<StageCall<T>>()(call_); });
  }
  // A compute stage whose output's ghost planes come from the neighbours (halo.hpp,
  // compute_and_exchange: overlapped where the halo variant overlaps).
  void run_and_exchange(ProjectionStage s, const std::vector<T*>& fields, int halo_section) {
    if (!halo_) return run(s);
    const ResolvedStage& rs = chosen(s);
    const StageFn& fn = rs.variant->template fn<StageCall<T>>();
    call_.tuning = rs.tuning;
    compute_and_exchange(
        halo_.get(), case_.grid.nz, fields, [&](ZRange zr) { call_.zr = zr, fn(call_); },
        [&](const auto& work) { this->timed(int(s), rs.variant->id().c_str(), work); },
        [&](const auto& work) { this->timed(halo_section, "halo", work); });
    call_.zr = ZRange::interior(case_.grid);
  }
  void run_untimed(ProjectionStage s) {
    call_.tuning = chosen(s).tuning;
    chosen(s).variant->template fn<StageCall<T>>()(call_);
  }
  // The reduce stage's result, read back to the host (a synchronising step).
  double reduce(const T* a, const T* b) {
    call_.reduce_a = a;
    call_.reduce_b = b;
    call_.reduce_out = reduce_out_;
    run(ProjectionStage::reduce);
    double r = host_result_;
    if (recipe_.backend == Backend::cuda) {
      device::stream_sync(stream_);
      device::copy_to_host(&r, reduce_out_, sizeof r);
    }
    return comm_ ? comm_->allreduce_sum(r) : r;
  }

  Case case_;
  ResolvedRecipe recipe_;
  const ResolvedStage* stage_[int(ProjectionStage::count)] = {};
  SolverOptions opt_;
  FieldSet<T> fields_;
  StageCall<T> call_;
  void* scratch_ = nullptr;
  double* reduce_out_ = nullptr;
  double host_result_ = 0;
  double global_points_ = 0;       // interior cells of the whole (undecomposed) grid
  Communicator* comm_ = nullptr;   // decomposed runs: sums reductions over the ranks
  Slab rank_slab_;
  std::unique_ptr<HaloExchange<T>> halo_;
  std::unique_ptr<PoissonMethod<T>> poisson_;  // the pressure solve (Poisson family), with its workspaces
  std::vector<std::uint32_t> cells_;           // obstacle cell list (host copy)
  void* cells_device_ = nullptr;
  int last_iterations_ = 0;
  double last_residual_ = 0;
  double last_abs_residual_ = 0;
};

// The case's initial state with its boundary conditions applied (on the host, by the serial reference).
template <class T>
HostState<T> initial_state(const Case& c);
// Rank s's slab of it (z-slab: its planes and ghost planes, as scatter_slab cuts them), built without the rest of
// the grid, every value as the whole state's (tests/test_harness.cpp compares them).
template <class T>
HostState<T> initial_slab(const Case& c, const Slab& s);

}  // namespace nsb
