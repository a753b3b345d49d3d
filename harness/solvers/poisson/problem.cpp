// The poisson solver: one Poisson equation with a manufactured solution, solved by any method of the
// family, so that methods are compared on the same right-hand side. One "step" is one solve from a zero
// guess; the final solution is checked against the manufactured exact one (host_ops.hpp), and the
// final checks record the method's iterations, its residual history against wall time (one more
// solve, recorded) and the time of one Jacobi sweep of the fine grid measured in the same run (the
// unit of the family's "sweep equivalents").
//
// Cases: the faces are the case's (the pressure's are neumann, the projection's default):
//   poisson_manufactured            neumann on all six faces (singular: the family's null-space rule)
//   poisson_manufactured_dirichlet  dirichlet on all six faces
//   poisson_manufactured_periodic   periodic on all six faces (singular)
//   poisson_manufactured_mixed      x periodic, y neumann, z dirichlet
//   poisson_random                  neumann on all six faces, a random right-hand side (every mode of the
//                                   grid, as a pressure's right-hand side has; a single manufactured mode is
//                                   an eigenvector of L, which CG solves in one iteration): the study's. No
//                                   exact solution: checked by its residual.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "case_checks.hpp"
#include "device.hpp"
#include "fields.hpp"
#include "nvtx.hpp"
#include "poisson/convergence.hpp"
#include "poisson/host_ops.hpp"
#include "poisson/iterative.hpp"
#include "solver_base.hpp"

namespace nsb {
namespace {

const char* const kCases[] = {"poisson_manufactured", "poisson_manufactured_dirichlet", "poisson_manufactured_periodic",
                              "poisson_manufactured_mixed", "poisson_random"};
constexpr unsigned kRandomSeed = 18;  // issue 18

PoissonFaces case_faces(const std::string& name) {
  PoissonFaces f;
  auto axis = [&](int a, PoissonFace t) { f.face[a][0] = f.face[a][1] = t; };
  for (int a = 0; a < 3; ++a) axis(a, PoissonFace::neumann);
  if (name == "poisson_manufactured_dirichlet")
    for (int a = 0; a < 3; ++a) axis(a, PoissonFace::dirichlet);
  if (name == "poisson_manufactured_periodic")
    for (int a = 0; a < 3; ++a) axis(a, PoissonFace::periodic);
  if (name == "poisson_manufactured_mixed") axis(0, PoissonFace::periodic), axis(2, PoissonFace::dirichlet);
  return f;
}

enum PoissonSection : int { kSolveSection = 0 };

// Jacobi sweeps timed for the sweep equivalents, after the timed solves.
constexpr int kTimedSweeps = 20;

template <class T>
class PoissonSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::sync;

 public:
  PoissonSolver(const Grid& g, const PoissonFaces& f, const ResolvedRecipe& r, const SolverOptions& o)
      : Base(0), grid_(g), faces_(f), backend_(r.backend), fields_(g.padded_points(), r.backend == Backend::cuda) {
    for (const char* name : {"p", "p_new", "rhs"}) fields_.add(name);
    if (gpu()) stream_ = device::stream_create();
    settings_ = {o.jacobi_iterations, o.jacobi_tol, o.check_every, o.poisson_kernels, false, {}};
    method_name_ = o.poisson_method;
    method_ = make_poisson_method<T>(o.poisson_method, settings_);
  }
  ~PoissonSolver() override {
    method_.reset();
    stages_.reset();
    if (stream_) device::stream_destroy(stream_);
  }
  PoissonSolver(const PoissonSolver&) = delete;
  PoissonSolver& operator=(const PoissonSolver&) = delete;

  void load(const HostState<T>& s) override {
    fields_.upload("p", s.field("p"));
    fields_.upload("p_new", s.field("p"));
    fields_.upload("rhs", s.field("rhs"));
    step_ = s.step;
    rhs_host_ = s.field("rhs");
    sync();
  }
  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, double(step_)};
    s.fields.emplace_back("p", fields_.buffer("p").download());
    s.fields.emplace_back("rhs", rhs_host_);
    return s;
  }
  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange range("step");
    if (timer_) timer_->begin(kStepSection);
    if (timer_) timer_->begin(kSolveSection);
    report_ = solve(*method_);
    if (timer_) timer_->end(kSolveSection);
    if (timer_) timer_->end(kStepSection);
    ++step_;
  }
  nlohmann::json final_checks() override {
    nlohmann::json j = {{"poisson_method", method_name_},
                        {"poisson_iterations", report_.iterations},
                        {"poisson_relative_residual", report_.relative_residual},
                        {"poisson_kernels", report_.kernels}};
    j.update(poisson_convergence_checks(report_, settings_.tolerance));
    // The residual history of one more solve from zero (checks synchronise, so its clock includes them).
    PoissonSettings recorded = settings_;
    recorded.record_history = true;
    if (method_name_ != "jacobi") {
      const auto m = make_poisson_method<T>(method_name_, recorded);
      const PoissonReport h = solve(*m);
      nlohmann::json it = nlohmann::json::array(), sec = it, res = it;
      for (const PoissonHistoryPoint& p : h.history) it.push_back(p.iteration), sec.push_back(p.seconds), res.push_back(p.relative_residual);
      j["residual_history"] = {{"iteration", it}, {"seconds", sec}, {"relative_residual", res}};
    }
    j["jacobi_sweep_seconds"] = time_jacobi_sweep();
    return j;
  }
  WorkModel work_model(int) const override { return {}; }  // the method's stages have theirs (nsbench stages)
  int steps_per_graph() const override { return 1; }

  static std::size_t device_bytes(const Grid& g, const SolverOptions& o) {
    // p, p_new, rhs, the solver's own residual vector, and the method's workspace twice (the timed method
    // and the one that records the history; PoissonMethodInfo::work_arrays), and what the chosen kernels
    // keep themselves, once (a library's matrix: shared by the two).
    const double arrays = 4 + 2 * poisson_method_work_arrays(o.poisson_method);
    return std::size_t(arrays * double(g.padded_points() * sizeof(T)) +
                       poisson_kernels_workspace_bytes(o.poisson_kernels, g, int(sizeof(T)))) +
           2 * kReduceScratchBytes;
  }

 private:
  // The equation seen by a method: the solver's own sweep (the jacobi_sweep stage into p_new, its
  // residual by the residual stage) and the equation itself.
  class System final : public PoissonSystem<T> {
   public:
    explicit System(PoissonSolver& s) : s_(s) {}
    void sweep() override { s_.run_sweep(); }
    double sweep_residual_rms() override { return s_.residual_rms(); }
    double rhs_rms() override { return s_.start_.rhs_rms; }
    void accept_sweep() override {
      std::swap(s_.x_, s_.x_new_);
      PoissonCall<T> c = s_.call();
      s_.stages_->run("faces", c);
    }
    PoissonEquation<T> equation() override {
      PoissonEquation<T> e;
      e.grid = s_.grid_, e.faces = s_.faces_, e.p = s_.x_, e.rhs = s_.fields_["rhs"], e.rhs_scale = 1;
      e.exec = Exec{s_.backend_, 0, s_.stream_, nullptr, 0};
      return e;
    }

   private:
    PoissonSolver& s_;
  };

  bool gpu() const { return backend_ == Backend::cuda; }
  PoissonCall<T> call() {
    PoissonCall<T> c = poisson_call(System(*this).equation());
    c.rhs_shift = start_.rhs_shift;
    c.p = x_new_, c.r = stages_->vector(0), c.out = stages_->scalar(0);
    return c;
  }
  void ensure_stages() {
    if (stages_) return;
    x_ = fields_["p"], x_new_ = fields_["p_new"];
    stages_ = std::make_unique<PoissonStages<T>>(settings_, System(*this).equation(), 1);
    start_ = start_solve(*stages_, call(), 0);
  }
  void run_sweep() {
    PoissonCall<T> c = call();
    stages_->run("jacobi_sweep", c);
  }
  double residual_rms() {
    PoissonCall<T> c = call();
    stages_->run("residual", c);
    return std::sqrt(stages_->read(0, c.exec) / double(grid_.interior_points()));
  }
  // One solve from a zero guess, the solution in "p".
  PoissonReport solve(PoissonMethod<T>& m) {
    ensure_stages();
    x_ = fields_["p"], x_new_ = fields_["p_new"];
    zero(fields_["p"]);
    System system(*this);
    PoissonReport r = m.solve(system);
    if (x_ != fields_["p"]) device_or_host_copy(fields_["p"], x_);  // jacobi's last swap
    return r;
  }
  void zero(T* a) {
    if (gpu()) device::fill_bytes(a, 0, grid_.padded_points() * sizeof(T), stream_);
    else std::fill(a, a + grid_.padded_points(), T(0));
  }
  void device_or_host_copy(T* to, const T* from) {
    const std::size_t bytes = grid_.padded_points() * sizeof(T);
    if (gpu()) device::copy_device(to, from, bytes, stream_);
    else std::copy(from, from + grid_.padded_points(), to);
  }
  // Seconds of one Jacobi sweep of the fine grid (the jacobi_sweep stage's default or chosen variant).
  double time_jacobi_sweep() {
    ensure_stages();
    PoissonCall<T> c = call();
    c.x = fields_["p"], c.p = fields_["p_new"];
    stages_->run("jacobi_sweep", c);  // warm
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    for (int s = 0; s < kTimedSweeps; ++s) stages_->run("jacobi_sweep", c);
    sync();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / kTimedSweeps;
  }

  Grid grid_;
  PoissonFaces faces_;
  Backend backend_;
  FieldSet<T> fields_;
  PoissonSettings settings_;
  std::string method_name_;
  std::unique_ptr<PoissonMethod<T>> method_;
  std::unique_ptr<PoissonStages<T>> stages_;  // the solver's own sweep, residual and faces
  SolveStart<T> start_;
  T* x_ = nullptr;
  T* x_new_ = nullptr;
  std::vector<T> rhs_host_;
  PoissonReport report_;
};

class PoissonProblem final : public ProblemImpl<PoissonProblem> {
 public:
  explicit PoissonProblem(const CaseOptions& o) : name_(o.name.empty() ? kCases[0] : o.name), faces_(case_faces(name_)) {
    if (std::find(std::begin(kCases), std::end(kCases), name_) == std::end(kCases))
      throw std::invalid_argument("poisson: no case '" + name_ + "'");
    if (o.nx < 2 || o.ny < 2 || o.nz < 2)
      throw std::invalid_argument("poisson: every axis needs at least 2 cells (got " + std::to_string(o.nx) + "x" +
                                  std::to_string(o.ny) + "x" + std::to_string(o.nz) + ")");
    refuse_unused_case_options(o, "poisson", {"re", "dt", "safety", "gamma"},
                               "a step is one solve of the case's Poisson problem (no flow, no time step)");
    case_params(o, {});  // its cases have no settings of their own
    grid_ = Grid{o.nx, o.ny, o.nz, 1, 1, 1};
  }
  const Grid& grid() const override { return grid_; }
  bool periodic_z() const override { return faces_.face[2][0] == PoissonFace::periodic; }
  double dt() const override { return 1; }
  nlohmann::json describe() const override {
    nlohmann::json faces = nlohmann::json::array();
    for (const auto& axis : faces_.face) faces.push_back({poisson_face_name(axis[0]), poisson_face_name(axis[1])});
    return {{"case", name_}, {"faces", faces}, {"domain", {1, 1, 1}}};
  }
  void check_options(const SolverOptions& o) const override {
    if (o.scheme != TimeScheme::euler) throw std::runtime_error("the poisson solver has no time scheme (--scheme)");
  }

  template <class T>
  HostState<T> initial() const {
    HostState<T> s{grid_, {}, 0, 0};
    s.fields.emplace_back("p", std::vector<T>(grid_.padded_points(), T(0)));
    s.fields.emplace_back("rhs", random() ? random_values<T>(grid_.padded_points(), kRandomSeed)
                                          : manufactured_poisson<T>(grid_, faces_).rhs);
    return s;
  }
  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    if (ctx && ctx->decomposed())
      throw std::invalid_argument("the poisson solver runs on one rank (its methods solve whole grids)");
    return std::make_unique<PoissonSolver<T>>(grid_, faces_, r, o);
  }
  // Error of the solution against the manufactured one (both with their interior mean removed where the
  // problem is singular), relative to the exact solution's largest value.
  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    if (random())
      return {{"kind", "none"},
              {"detail", "random right-hand side, no exact solution: see checks.poisson_relative_residual"}};
    const ManufacturedPoisson<double> m = manufactured_poisson<double>(grid_, faces_);
    const std::vector<T>& p = s.field("p");
    const double mean = faces_.singular() ? interior_mean(p.data(), grid_) : 0;
    double max_err = 0, sum_sq = 0, max_exact = 0;
    for (int k = 1; k <= grid_.nz; ++k)
      for (int j = 1; j <= grid_.ny; ++j)
        for (int i = 1; i <= grid_.nx; ++i) {
          const std::size_t n = grid_.idx(i, j, k);
          const double e = double(p[n]) - mean - m.exact[n];
          max_err = std::max(max_err, std::abs(e));
          sum_sq += e * e;
          max_exact = std::max(max_exact, std::abs(m.exact[n]));
        }
    return {{"kind", "manufactured"},
            {"max_error", max_err / max_exact},
            {"rms_error", std::sqrt(sum_sq / double(grid_.interior_points())) / max_exact},
            {"detail", "solution vs the manufactured exact one, relative to its largest value"}};
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions& o) const {
    return PoissonSolver<T>::device_bytes(g, o);
  }
  bool random() const { return name_ == "poisson_random"; }

 private:
  std::string name_;
  PoissonFaces faces_;
  Grid grid_;
};

const SolverRegistrar reg{SolverDef{
    .name = "poisson",
    .description = "one Poisson equation with a manufactured solution, solved by any method of the Poisson family "
                   "(--poisson); a step is one solve from a zero guess",
    .cases = {kCases[0], kCases[1], kCases[2], kCases[3], kCases[4]},
    .sections = {"solve"},
    .stages = {},
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<PoissonProblem>(o); },
}};

}  // namespace
}  // namespace nsb
