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
// Each stage is whichever variant the recipe chose; the solver only owns the arrays and the order.
//
// In a decomposed run each rank runs this solver on its z-slab (case.grid is the slab's grid) with a
// halo variant: ghost planes are exchanged after the predictor, after every Jacobi sweep and after the
// correction, before the ghost rules (thesis transfers 0-5); reductions are summed over the ranks.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "projection/cases.hpp"
#include "device.hpp"
#include "halo.hpp"
#include "nvtx.hpp"
#include "recipe.hpp"
#include "timer.hpp"

namespace nsb {

// The state that defines a run, on the host: velocity, pressure, Adams-Bashforth history.
template <class T>
struct HostState {
  Grid grid;
  std::vector<T> u, v, w, p, hu, hv, hw;
  int step = 0;
  double time = 0;
};

// Array storage on the host or on the current GPU.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(std::size_t n, bool on_device, const char* what) : n_(n), on_device_(on_device) {
    if (on_device) ptr_ = static_cast<T*>(device::alloc(n * sizeof(T), what));
    else host_.assign(n, T(0)), ptr_ = host_.data();
  }
  ~Buffer() {
    if (on_device_) device::free(ptr_);
  }
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(n_, o.n_), std::swap(on_device_, o.on_device_), std::swap(ptr_, o.ptr_), std::swap(host_, o.host_);
    if (!on_device_) ptr_ = host_.empty() ? nullptr : host_.data();
    if (!o.on_device_) o.ptr_ = o.host_.empty() ? nullptr : o.host_.data();
    return *this;
  }
  T* get() const { return ptr_; }
  void upload(const std::vector<T>& h) {
    if (h.size() != n_) throw std::logic_error("Buffer::upload: size mismatch");
    if (on_device_) device::copy_to_device(ptr_, h.data(), n_ * sizeof(T));
    else std::copy(h.begin(), h.end(), host_.begin());
  }
  std::vector<T> download() const {
    if (!on_device_) return host_;
    std::vector<T> h(n_);
    device::copy_to_host(h.data(), ptr_, n_ * sizeof(T));
    return h;
  }

 private:
  std::size_t n_ = 0;
  bool on_device_ = false;
  T* ptr_ = nullptr;
  std::vector<T> host_;
};

struct SolverOptions {
  TimeScheme scheme = TimeScheme::euler;
  int jacobi_iterations = 20;  // fixed count per step (thesis nITERATIONS), or the cap with a tolerance
  double jacobi_tol = 0;       // > 0: iterate until RMS residual <= tol * RMS(div/dt)
  int check_every = 10;        // sweeps between residual checks in tolerance mode
  int threads = 0;             // cpu_omp threads (0: all)
};

// A rank of a decomposed run: its place in the decomposition and how it talks to the others.
struct RankSetup {
  std::vector<Slab> slabs;
  int rank = 0;
  Communicator* comm = nullptr;
  const HaloVariant* halo = nullptr;  // null: one rank, no exchange
  Tuning halo_tuning;
  int device = -1;
};

template <class T>
class ProjectionSolver {
 public:
  // `c` is the rank's own case (its slab's grid and boundary rules) when `rank` is given.
  ProjectionSolver(const Case& c, const ResolvedRecipe& r, SolverOptions o, SectionTimer* timer,
                   const RankSetup* rank = nullptr)
      : case_(c), recipe_(r), opt_(o), timer_(timer) {
    const Grid& g = c.grid;
    const bool dev = r.backend == Backend::cuda;
    const std::size_t n = g.padded_points();
    if (dev) require_gpu_memory(g, o.scheme);
    const char* names[] = {"u", "v", "w", "u*", "v*", "w*", "p", "p_new", "div"};
    buf_.reserve(12);  // the field pointers below must stay put
    for (int i = 0; i < 9; ++i) buf_.emplace_back(n, dev, names[i]);
    if (o.scheme == TimeScheme::adams_bashforth2)
      for (const char* h : {"hu", "hv", "hw"}) buf_.emplace_back(n, dev, h);
    if (dev) {
      stream_ = device::stream_create();
      scratch_bytes_ = kReduceScratchBytes;
      scratch_ = device::alloc(scratch_bytes_, "reduction scratch");
      reduce_out_ = static_cast<double*>(device::alloc(sizeof(double), "reduction result"));
    } else {
      reduce_out_ = &host_result_;
    }
    FieldPtrs<T>& f = call_.f;
    f.u = buf_[0].get(), f.v = buf_[1].get(), f.w = buf_[2].get();
    f.us = buf_[3].get(), f.vs = buf_[4].get(), f.ws = buf_[5].get();
    f.p = buf_[6].get(), f.p_new = buf_[7].get(), f.div = buf_[8].get();
    if (buf_.size() > 9) f.hu = buf_[9].get(), f.hv = buf_[10].get(), f.hw = buf_[11].get();
    call_.grid = g;
    call_.zr = ZRange::interior(g);
    call_.bc = BoundaryRules<T>::make(c.bc);
    call_.exec = Exec{r.backend, o.threads, stream_, scratch_, scratch_bytes_};
    StepParams<T>& p = call_.prm;
    p.dt = T(c.dt), p.nu = T(c.nu), p.gamma = T(c.gamma), p.scheme = o.scheme;
    for (int a = 0; a < 3; ++a) p.force[a] = T(c.force[a]);
    p.coef = make_grid_coef<T>(g);

    global_points_ = double(g.interior_points());
    if (rank && rank->slabs.size() > 1) {
      comm_ = rank->comm;
      global_points_ = comm_->allreduce_sum(global_points_);
      HaloContext hc{g, rank->slabs, rank->rank, rank->comm, rank->device, stream_, rank->halo_tuning};
      halo_ = rank->halo->factory<T>()(hc);
      std::vector<T*> arrays;
      for (const Buffer<T>& b : buf_) arrays.push_back(b.get());
      halo_->attach(arrays);
    }
  }
  ~ProjectionSolver() {
    halo_.reset();  // before the stream it may use
    if (recipe_.backend == Backend::cuda) {
      device::free(scratch_);
      device::free(reduce_out_);
      device::stream_destroy(stream_);
    }
  }
  ProjectionSolver(const ProjectionSolver&) = delete;

  // Throws, saying what the whole run needs (not only which array did not fit), when the current GPU
  // lacks the memory for a solver of grid g.
  static void require_gpu_memory(const Grid& g, TimeScheme scheme) {
    const int fields = scheme == TimeScheme::adams_bashforth2 ? 12 : 9;
    const std::size_t n = g.padded_points();
    device::require_free(fields * n * sizeof(T) + kReduceScratchBytes,
                         "grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz),
                         std::to_string(fields) + " fields of " + std::to_string((n * sizeof(T)) >> 20) +
                             " MiB and the reduction scratch");
  }
  ProjectionSolver& operator=(const ProjectionSolver&) = delete;

  void load(const HostState<T>& s) {
    const std::size_t n = case_.grid.padded_points();
    const std::vector<T> zero(n, T(0));
    buf_[0].upload(s.u), buf_[1].upload(s.v), buf_[2].upload(s.w), buf_[6].upload(s.p);
    for (int i : {3, 4, 5, 7, 8}) buf_[i].upload(zero);
    if (buf_.size() > 9) {
      buf_[9].upload(s.hu.empty() ? zero : s.hu);
      buf_[10].upload(s.hv.empty() ? zero : s.hv);
      buf_[11].upload(s.hw.empty() ? zero : s.hw);
    }
    step_ = s.step;
    time_ = s.time;
    call_.prm.first_step = s.step == 0;
    sync();
    // A neighbour that loads faster must not push its first halo into arrays this rank is still loading.
    if (comm_) comm_->barrier();
  }

  HostState<T> save() const {
    sync();
    HostState<T> s;
    s.grid = case_.grid;
    s.u = buffer_of(call_.f.u).download(), s.v = buffer_of(call_.f.v).download();
    s.w = buffer_of(call_.f.w).download(), s.p = buffer_of(call_.f.p).download();
    if (call_.f.hu) {
      s.hu = buffer_of(call_.f.hu).download(), s.hv = buffer_of(call_.f.hv).download();
      s.hw = buffer_of(call_.f.hw).download();
    }
    s.step = step_;
    s.time = time_;
    return s;
  }

  void step() {
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    FieldPtrs<T>& f = call_.f;

    run_and_exchange(StageKind::momentum, {f.us, f.vs, f.ws}, kHaloPredictorSection);
    run(StageKind::velocity_bc);
    run(StageKind::divergence);
    solve_pressure();
    run_and_exchange(StageKind::correction, {f.us, f.vs, f.ws}, kHaloCorrectionSection);
    run(StageKind::velocity_bc);
    std::swap(f.u, f.us), std::swap(f.v, f.vs), std::swap(f.w, f.ws);

    end(kStepSection);
    call_.prm.first_step = false;
    ++step_;
    time_ += case_.dt;
  }

  // RMS over the interior of u^{n+1} - u^n (all three components) after a step: the steady-state
  // monitor. Synchronises (reads the reduction back).
  double change_rms() {
    const FieldPtrs<T>& f = call_.f;
    const double s = reduce(f.u, f.us) + reduce(f.v, f.vs) + reduce(f.w, f.ws);
    return std::sqrt(s / (3.0 * global_points_));
  }
  // RMS of div u over the interior of the current velocity (projection quality).
  double divergence_rms() {
    std::swap(call_.f.u, call_.f.us), std::swap(call_.f.v, call_.f.vs), std::swap(call_.f.w, call_.f.ws);
    run_untimed(StageKind::divergence);
    std::swap(call_.f.u, call_.f.us), std::swap(call_.f.v, call_.f.vs), std::swap(call_.f.w, call_.f.ws);
    return std::sqrt(reduce(call_.f.div, nullptr) / global_points_);
  }

  void set_timer(SectionTimer* t) { timer_ = t; }
  // Graph mode: the work of `steps` steps was recorded once and is replayed; the counters follow.
  void replayed(int steps) {
    step_ += steps;
    time_ += steps * case_.dt;
  }
  int step_index() const { return step_; }
  double time() const { return time_; }
  int last_jacobi_iterations() const { return last_iterations_; }
  double last_relative_residual() const { return last_residual_; }
  double last_absolute_residual() const { return last_abs_residual_; }
  const ResolvedRecipe& recipe() const { return recipe_; }
  void sync() const {
    if (recipe_.backend == Backend::cuda) device::stream_sync(stream_);
  }
  void* stream() const { return stream_; }
  const HaloExchange<T>* halo() const { return halo_.get(); }

 private:
  void solve_pressure() {
    FieldPtrs<T>& f = call_.f;
    const bool tolerance = opt_.jacobi_tol > 0;
    double rhs_rms = 0;
    if (tolerance) rhs_rms = std::sqrt(reduce(f.div, nullptr) / global_points_) / case_.dt;
    const double b = double(call_.prm.coef.jacobi_b);
    last_iterations_ = 0;
    last_residual_ = 0;
    for (int it = 1; it <= opt_.jacobi_iterations; ++it) {
      run_and_exchange(StageKind::pressure, {f.p_new}, kHaloPressureSection);
      const bool check = tolerance && (it % opt_.check_every == 0 || it == opt_.jacobi_iterations);
      // p_new - p = B * (lap p - div/dt): the residual of the sweep's input, read before the swap.
      if (check) last_residual_ = std::sqrt(reduce(f.p_new, f.p) / global_points_) / b;
      std::swap(f.p, f.p_new);
      run(StageKind::pressure_bc);
      last_iterations_ = it;
      if (check && last_residual_ <= opt_.jacobi_tol * std::max(rhs_rms, 1e-300)) break;
    }
    last_abs_residual_ = last_residual_;
    if (tolerance && rhs_rms > 0) last_residual_ /= rhs_rms;
  }

  void begin(int section) {
    if (timer_) timer_->begin(section);
  }
  void end(int section) {
    if (timer_) timer_->end(section);
  }
  void run(StageKind s) {
    const ResolvedStage& rs = recipe_[s];
    NvtxRange range(rs.variant->id().c_str());
    begin(int(s));
    call_.tuning = rs.tuning;
    rs.variant->fn<T>()(call_);
    end(int(s));
  }
  // A compute stage whose output's ghost planes come from the neighbours. An overlapping exchange
  // computes the two edge planes first, sends them while the interior is computed, and waits last:
  // its timed section is then the exposed part of the exchange only.
  void run_and_exchange(StageKind s, const std::vector<T*>& fields, int halo_section) {
    if (!halo_) return run(s);
    const int nz = case_.grid.nz;
    if (halo_->overlaps() && nz >= 3) {
      const ResolvedStage& rs = recipe_[s];
      NvtxRange range(rs.variant->id().c_str());
      begin(int(s));
      call_.tuning = rs.tuning;
      for (ZRange zr : {ZRange{1, 2}, ZRange{nz, nz + 1}}) call_.zr = zr, rs.variant->fn<T>()(call_);
      halo_->start(fields);
      call_.zr = ZRange{2, nz}, rs.variant->fn<T>()(call_);
      call_.zr = ZRange::interior(case_.grid);
      end(int(s));
      NvtxRange halo_range("halo");
      begin(halo_section);
      halo_->finish();
      end(halo_section);
      return;
    }
    run(s);
    NvtxRange halo_range("halo");
    begin(halo_section);
    halo_->exchange(fields);
    end(halo_section);
  }
  void run_untimed(StageKind s) {
    const ResolvedStage& rs = recipe_[s];
    call_.tuning = rs.tuning;
    rs.variant->fn<T>()(call_);
  }
  // The reduce stage's result, read back to the host (a synchronising step).
  double reduce(const T* a, const T* b) {
    call_.reduce_a = a;
    call_.reduce_b = b;
    call_.reduce_out = reduce_out_;
    run(StageKind::reduce);
    double r = host_result_;
    if (recipe_.backend == Backend::cuda) {
      device::stream_sync(stream_);
      device::copy_to_host(&r, reduce_out_, sizeof r);
    }
    return comm_ ? comm_->allreduce_sum(r) : r;
  }
  const Buffer<T>& buffer_of(const T* p) const {
    for (const Buffer<T>& b : buf_)
      if (b.get() == p) return b;
    throw std::logic_error("unknown field pointer");
  }

  Case case_;
  ResolvedRecipe recipe_;
  SolverOptions opt_;
  SectionTimer* timer_;
  std::vector<Buffer<T>> buf_;
  StageCall<T> call_;
  void* stream_ = nullptr;
  void* scratch_ = nullptr;
  std::size_t scratch_bytes_ = 0;
  double* reduce_out_ = nullptr;
  double host_result_ = 0;
  double global_points_ = 0;       // interior cells of the whole (undecomposed) grid
  Communicator* comm_ = nullptr;   // decomposed runs: sums reductions over the ranks
  std::unique_ptr<HaloExchange<T>> halo_;
  int step_ = 0;
  double time_ = 0;
  int last_iterations_ = 0;
  double last_residual_ = 0;
  double last_abs_residual_ = 0;
};

// The case's initial state with its boundary conditions applied (on the host, by the serial reference).
template <class T>
HostState<T> initial_state(const Case& c);

}  // namespace nsb
