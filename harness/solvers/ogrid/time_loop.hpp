// The elliptic grid generator of Gohari et al. (2012), Sec. 2.1, as a solver of its own, so that its
// iterations are timed like a flow's steps (the paper's Table 3): one step is one over-relaxed Jacobi
// sweep (ogrid/sweep) of x and y, their pointers swapped after it; the body and far-field rows (and the
// plate's end columns) are in both arrays from load() on and no sweep writes them. The paper's CPU
// builds the algebraic grid first (geometry.hpp); that is the initial state here, untimed.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "nvtx.hpp"
#include "solver_base.hpp"
#include "grid2d/geometry.hpp"
#include "grid2d/stage_call.hpp"

namespace nsb {

struct GridCase {
  std::string name;
  Geometry geo;
  std::vector<double> phi, psi_c;  // Thomas-Middlecoff controls (geometry.hpp)
  double relax = 1;                // the paper over-relaxes; its factor is not given (notes Sec. 6.6)
};

template <class T>
class GridSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::sync;

 public:
  GridSolver(const GridCase& c, const ResolvedRecipe& r, const SolverOptions& o)
      : Base(0), case_(c), grid_(c.geo.grid), recipe_(r), stage_(&recipe_["sweep"]), gpu_(r.backend == Backend::cuda),
        fields_(grid_.padded_points(), gpu_) {
    for (const char* name : {"x", "y", "x_new", "y_new", "phi", "psi_c"}) fields_.add(name);
    exec_ = Exec{r.backend, o.threads, nullptr, nullptr, 0};
    if (gpu_) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "ogrid reduction scratch");
      residual_ = static_cast<T*>(device::alloc(sizeof(T), "ogrid residual"));
      exec_ = Exec{r.backend, o.threads, stream_, scratch_, kReduceScratchBytes};
    } else {
      residual_ = &host_residual_;
    }
    fields_.upload("phi", std::vector<T>(c.phi.begin(), c.phi.end()));
    fields_.upload("psi_c", std::vector<T>(c.psi_c.begin(), c.psi_c.end()));
  }
  ~GridSolver() override {
    if (!stream_) return;
    device::free(residual_);
    device::free(scratch_);
    device::stream_destroy(stream_);
  }
  GridSolver(const GridSolver&) = delete;
  GridSolver& operator=(const GridSolver&) = delete;

  static std::size_t device_bytes(const Grid& g) { return 6 * g.padded_points() * sizeof(T) + kReduceScratchBytes; }

  void load(const HostState<T>& s) override {
    x_ = fields_["x"], y_ = fields_["y"], x_new_ = fields_["x_new"], y_new_ = fields_["y_new"];
    for (const char* name : {"x", "x_new"}) fields_.upload(name, s.field("x"));
    for (const char* name : {"y", "y_new"}) fields_.upload(name, s.field("y"));
    step_ = s.step;
    sync();
  }
  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, double(step_)};
    s.fields.emplace_back("x", fields_.buffer_of(x_).download());
    s.fields.emplace_back("y", fields_.buffer_of(y_).download());
    return s;
  }
  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange range("sweep");
    if (timer_) timer_->begin(kStepSection), timer_->begin(0);
    const GridSweepCall<T> c{grid_, x_, y_, fields_["phi"], fields_["psi_c"], x_new_, y_new_, T(case_.relax),
                             case_.geo.ends, residual_, stage_->tuning, exec_};
    stage_->variant->template fn<GridSweepCall<T>>()(c);
    if (timer_) timer_->end(0), timer_->end(kStepSection);
    std::swap(x_, x_new_);
    std::swap(y_, y_new_);
    ++step_;
  }
  T residual() const {
    if (!gpu_) return host_residual_;
    sync();
    T r = 0;
    device::copy_to_host(&r, residual_, sizeof r);
    return r;
  }
  nlohmann::json final_checks() override { return {{"sweep_residual", double(residual())}}; }
  WorkModel work_model(int section) const override {
    return section == 0 ? grid_sweep_model(grid_, int(sizeof(T))) : WorkModel{};
  }
  int steps_per_graph() const override { return 2; }

 private:
  GridCase case_;
  Grid grid_;
  ResolvedRecipe recipe_;
  const ResolvedStage* stage_;
  bool gpu_;
  FieldSet<T> fields_;
  Exec exec_;
  T *x_ = nullptr, *y_ = nullptr, *x_new_ = nullptr, *y_new_ = nullptr;
  void* scratch_ = nullptr;
  T* residual_ = nullptr;
  T host_residual_ = 0;
};

}  // namespace nsb
