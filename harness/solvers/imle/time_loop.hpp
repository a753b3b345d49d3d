// The IMLE solver (Liu, Wu, Kao & Sheu 2019) as the executor drives it: the step of imle_step.hpp
// (Algorithm 1 over the imle/* stage kinds) with its fields, kernels from a recipe, the Poisson
// family's method for the pressure, a timer and an NVTX range around every section, on one rank.
//
// Pressure: --poisson cg by default (the paper's classical CG; the generic default "jacobi" means cg
// here: Jacobi sweeps through a solver's own stage, which IMLE has not), any method that works on the
// equation allowed (pcg, rbsor, mg, fft). The CG settings are the generic ones: --jacobi-tol > 0
// iterates until the relative RMS residual falls below it (capped at --jacobi-iterations), 0 runs a fixed
// --jacobi-iterations (the notes' "fixed CG iteration count" for timing comparisons). The initial guess
// is the previous step's pressure (the notes' x0, unstated in the paper). In tolerance mode the last
// solve's residual history goes to the result's checks.
//
// Walls: every velocity field's ghost layer holds the walls' velocity (ccd reads u's, mls u_star's,
// ppe_rhs u_interp's), set at load from the state's u, v, w. A case whose walls move in time (the
// Taylor-Green box) hands a wall function; the ghosts are then rewritten before each step: u's at t^n,
// u_star's and u_interp's at t^{n+1} (on a GPU through the host: a validation case, not a timed one).
//
// Ranks: a decomposed run's rank holds its z-slab (imle_ranks.hpp: the stored layout, what crosses the
// cut); the state it loads and saves is its own planes (harness/decomposition.hpp).
#pragma once

#include <cmath>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.hpp"
#include "imle/imle_step.hpp"
#include "nvtx.hpp"
#include "solver_base.hpp"

namespace nsb {

// The stage kinds a recipe chooses, in step order (SolverDef::stages); the sections are ImleStep's.
inline std::vector<std::string> imle_stages() { return {"ccd", "predict", "move", "mls", "ppe_rhs", "correct"}; }

// The velocity component c of a moving wall at (x, y, z) and time t (null: the ghosts stay as loaded).
using ImleWallFunction = std::function<double(int c, double x, double y, double z, double t)>;

inline std::string imle_poisson_method(const SolverOptions& o) {
  return o.poisson_method == "jacobi" ? "cg" : o.poisson_method;
}

template <class T>
class ImleSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::time_, Base::sync;

 public:
  static std::vector<std::string> state_names() { return {"u", "v", "w", "p"}; }

  // g: the whole grid; rank: this rank of a decomposed run (null: one rank).
  ImleSolver(const Grid& g, const ImleParameters& prm, const ResolvedRecipe& r, const SolverOptions& o,
             ImleWallFunction walls, const RankContext* rank = nullptr, ImleRankPaths paths = {})
      : Base(prm.dt), layout_(rank && rank->decomposed() ? ImleLayout::of(g, rank->slab()) : ImleLayout::whole(g)),
        grid_(layout_.own), prm_(prm), walls_(std::move(walls)), method_(imle_poisson_method(o)),
        fields_(layout_.store.padded_points(), r.backend == Backend::cuda),
        pressure_(make_poisson_method<T>(method_, {o.jacobi_iterations, o.jacobi_tol, o.check_every,
                                                   o.poisson_kernels, o.jacobi_tol > 0, {}})) {
    if (o.scheme != TimeScheme::euler)
      throw std::runtime_error("the IMLE solver's time scheme is the paper's explicit Euler; drop --scheme");
    for (const std::string& name : imle_field_names()) fields_.add(name);
    if (r.backend == Backend::cuda) stream_ = device::stream_create();
    const auto choice = [&](const char* stage) { return ImleKernels::Choice{r[stage].variant, r[stage].tuning}; };
    ImleKernels k;
    k.ccd = choice("ccd"), k.predict = choice("predict"), k.move = choice("move");
    k.mls = choice("mls"), k.ppe_rhs = choice("ppe_rhs"), k.correct = choice("correct");
    for (const std::string& stage : imle_stages()) variant_ids_.push_back(r[stage].variant->id());
    variant_ids_.push_back("pressure/" + method_);  // the sections' order
    variant_ids_.push_back(rank && rank->halo ? rank->halo->id() : "halo/none");
    const Exec exec{r.backend, o.threads, stream_, nullptr, 0};
    if (layout_.decomposed()) {
      ranks_ = std::make_unique<ImleRanks<T>>(*rank, layout_, exec, paths);
      ranks_->attach_velocity(
          {own_view("u_star"), own_view("v_star"), own_view("w_star"), own_view("w_interp")});
    }
    stepper_ = std::make_unique<ImleStep<T>>(layout_, prm, fields_, k, exec, *pressure_,
                                          [this](int section, bool begin) { bracket(section, begin); }, ranks_.get());
  }
  ~ImleSolver() override {
    stepper_.reset();
    pressure_.reset();  // its workspaces may use the stream
    ranks_.reset();     // its halo exchanges too
    if (stream_) device::stream_destroy(stream_);
  }
  ImleSolver(const ImleSolver&) = delete;
  ImleSolver& operator=(const ImleSolver&) = delete;

  // Bytes on the GPU: the step's fields, the MLS systems of a whole grid, CG's three vectors.
  static std::size_t device_bytes(const Grid& g) {
    return (imle_field_names().size() + 3) * g.padded_points() * sizeof(T) +
           mls_workspace_bytes(g, ZRange::interior(g), int(sizeof(T)));
  }

  void load(const HostState<T>& s) override {
    const std::vector<T> zero(grid_.padded_points(), T(0));
    for (const std::string& name : imle_field_names())  // no field starts as whatever the allocator left
      upload(name, s.has(name) ? s.field(name) : zero);
    const char* vel[3] = {"u", "v", "w"};
    const char* copies[3][2] = {{"u_star", "u_interp"}, {"v_star", "v_interp"}, {"w_star", "w_interp"}};
    for (int c = 0; c < 3; ++c)  // the walls' velocity in every velocity field's ghosts
      for (const char* name : copies[c]) upload(name, s.field(vel[c]));
    step_ = s.step;
    time_ = s.time;
    sync();
    monitored_ = s;
    // A neighbour that loads faster must not push its first halo into arrays this rank is still loading.
    if (ranks_) ranks_->comm().barrier();
  }
  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, time_};
    for (const std::string& name : state_names()) {
      const std::vector<T> stored = fields_.buffer(name).download();
      const auto first = stored.begin() + std::ptrdiff_t(layout_.own_offset());
      s.fields.emplace_back(name, std::vector<T>(first, first + std::ptrdiff_t(grid_.padded_points())));
    }
    return s;
  }

  void step() override {
    if (timer_) timer_->set_step(step_);
    if (walls_) move_walls();
    NvtxRange range("step");
    if (timer_) timer_->begin(kStepSection);
    stepper_->step();
    if (timer_) timer_->end(kStepSection);
    ++step_;
    time_ += prm_.dt;
  }

  // Relative change per unit time since the last call (or the load): RMS(u - u_then) / ((t - t_then) U),
  // U = 1, from host copies (the step keeps no previous velocity: correct overwrites it).
  bool monitors_steady_state() const override { return true; }
  double steady_change() override {
    HostState<T> now = save();
    double sum = 0;
    for (const char* name : {"u", "v", "w"}) {
      const std::vector<T>&a = now.field(name), &b = monitored_.field(name);
      for (int k = 1; k <= grid_.nz; ++k)
        for (int j = 1; j <= grid_.ny; ++j)
          for (int i = 1; i <= grid_.nx; ++i) {
            const double d = double(a[grid_.idx(i, j, k)]) - double(b[grid_.idx(i, j, k)]);
            sum += d * d;
          }
    }
    const double elapsed = now.time - monitored_.time;
    monitored_ = std::move(now);
    if (ranks_) sum = ranks_->comm().allreduce_sum(sum);
    return std::sqrt(sum / (3.0 * layout_.global.interior_points())) / elapsed;
  }

  // The last pressure solve (iterations, residual, its history in tolerance mode) and the largest
  // relative divergence of the final velocity by the PPE's own wide difference (the paper's scheme
  // leaves it at the CG tolerance plus the gap between that difference and CC-CCD's gradient).
  nlohmann::json final_checks() override {
    sync();
    const PoissonReport& r = stepper_->last_pressure();
    nlohmann::json history = nlohmann::json::array();
    for (const PoissonHistoryPoint& h : r.history) history.push_back({h.iteration, h.relative_residual});
    return {{"poisson_method", method_},
            {"pressure_iterations", r.iterations},
            {"pressure_relative_residual", r.relative_residual},
            {"pressure_absolute_residual", r.absolute_residual},
            {"pressure_history", history},
            {"pressure_history_columns", {"iteration", "relative_residual"}},
            {"dt", prm_.dt}};
  }

  WorkModel work_model(int section) const override {
    const ZRange all = ZRange::interior(grid_);
    const int e = int(sizeof(T));
    using S = ImleStep<T>;
    switch (section) {
      case S::kCcd: return ccd_model(ccd_lines(grid_, 0, all), e);  // the three axes' calls do the same work
      case S::kPredict: return imle_point_model(ImlePoint::predict, grid_, all, e);
      case S::kMove: return imle_point_model(ImlePoint::move, grid_, all, e);
      case S::kMls: return mls_model(grid_, all, e);
      case S::kPpeRhs: return imle_point_model(ImlePoint::ppe_rhs, grid_, all, e);
      case S::kCorrect: return imle_point_model(ImlePoint::correct, grid_, all, e);
      default: return {};  // the pressure: its iterations vary (the Poisson family models its stages)
    }
  }
  // ccd: 3 axes x 3 components (diffusion) + 3 (pressure gradient); predict and correct per component.

  // The velocity halo: u*, v*, w* once a step and w_interp once (2 calls), each plane sent to each
  // neighbour: the mean bytes a call a rank sends.
  double halo_bytes_per_call(int section) const override {
    if (section != ImleStep<T>::kHalo || !ranks_) return 0;
    return (3 + 1) / 2.0 * (layout_.lo + layout_.hi) * double(plane_elems(grid_)) * sizeof(T);
  }
  nlohmann::json halo_description() const override { return ranks_ ? ranks_->describe() : nlohmann::json::object(); }
  // Per step: the two velocity exchanges.
  double calls_per_step(int section) const override {
    using S = ImleStep<T>;
    if (section == S::kHalo) return ranks_ ? 2 : 0;
    return section == S::kCcd ? 12 : section == S::kPredict || section == S::kCorrect ? 3 : 1;
  }

  int steps_per_graph() const override { return 1; }  // every step runs the same pointers

 private:
  // A section's timer bracket and NVTX range (named by the variant it runs).
  void bracket(int section, bool begin) {
    if (begin) {
      ranges_.push_back(std::make_unique<NvtxRange>(variant_ids_[std::size_t(section)].c_str()));
      if (timer_) timer_->begin(section);
    } else {
      if (timer_) timer_->end(section);
      ranges_.pop_back();
    }
  }

  void move_walls() {
    const char* names[3][3] = {{"u", "u_star", "u_interp"}, {"v", "v_star", "v_interp"}, {"w", "w_star", "w_interp"}};
    for (int c = 0; c < 3; ++c)
      for (int f = 0; f < 3; ++f) set_ghosts(names[c][f], c, f == 0 ? time_ : time_ + prm_.dt);
  }
  T* own_view(const std::string& name) const { return fields_[name] + layout_.own_offset(); }
  // A field of the own planes (padded) into its place in the stored planes.
  void upload(const std::string& name, const std::vector<T>& own) {
    if (!layout_.decomposed()) return fields_.upload(name, own);
    std::vector<T> stored(layout_.store.padded_points(), T(0));
    std::copy(own.begin(), own.end(), stored.begin() + std::ptrdiff_t(layout_.own_offset()));
    fields_.upload(name, stored);
  }
  void set_ghosts(const char* name, int c, double t) {
    sync();
    std::vector<T> h = fields_.buffer(name).download();
    const Grid& g = grid_;
    const auto at = [](int i, int n, double l, double d) { return i == 0 ? 0.0 : i == n + 1 ? l : (i - 0.5) * d; };
    for (int k = 0; k <= g.nz + 1; ++k)
      for (int j = 0; j <= g.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i) {
          const bool ghost = i == 0 || j == 0 || k == 0 || i == g.nx + 1 || j == g.ny + 1 || k == g.nz + 1;
          if (ghost) h[g.idx(i, j, k)] = T(walls_(c, at(i, g.nx, g.lx, g.dx()), at(j, g.ny, g.ly, g.dy()),
                                                  at(k, g.nz, g.lz, g.dz()), t));
        }
    fields_.upload(name, h);
  }

  ImleLayout layout_;
  Grid grid_;  // the own planes
  ImleParameters prm_;
  ImleWallFunction walls_;
  std::string method_;
  FieldSet<T> fields_;
  std::unique_ptr<PoissonMethod<T>> pressure_;
  std::unique_ptr<ImleRanks<T>> ranks_;  // several ranks: the exchanges and the z-line gather
  std::unique_ptr<ImleStep<T>> stepper_;
  std::vector<std::string> variant_ids_;  // NVTX names by section
  std::vector<std::unique_ptr<NvtxRange>> ranges_;
  HostState<T> monitored_;  // the state steady_change compares with
};

}  // namespace nsb
