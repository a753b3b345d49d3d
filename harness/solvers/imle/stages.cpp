// The IMLE solver's stage kinds (Liu, Wu, Kao & Sheu 2019): imle/ccd (CC-CCD derivatives along one
// axis) and imle/mls (MLS interpolation of the moved particles back to the cell centres), with the
// fixtures on which `nsbench verify`, `nsbench stages` and nsbench-micro run any of their variants.
#include <stdexcept>
#include <string>

#include "device.hpp"
#include "fields.hpp"
#include "imle/ccd_call.hpp"
#include "imle/mls_call.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

// ------------------------------------------------------------------------------------------- imle/ccd

// A workload names the axis and the boundary rule of the lines: "x_dirichlet", ..., "z_neumann".
const std::vector<std::string> kCcdWorkloads = {"x_dirichlet", "y_dirichlet", "z_dirichlet",
                                                "x_neumann",   "y_neumann",   "z_neumann"};

int workload_axis(const std::string& w) {
  if (w.empty()) return 0;
  return w[0] - 'x';
}
CcdBc workload_bc(const std::string& w) {
  return w.find("neumann") != std::string::npos ? CcdBc::neumann : CcdBc::dirichlet;
}

// phi, d1 and d2 (random, never zero: verify compares every array, ghosts included, so a stray write
// shows), the factor of the workload's lines, three scratch arrays (not compared: their contents are
// a variant's own).
template <class T>
class CcdFixture final : public StageFixture<T> {
 public:
  explicit CcdFixture(const FixtureSpec& s) : fields_(s.grid.padded_points(), gpu(s)) {
    for (const char* name : {"phi", "d1", "d2"}) fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    call_.grid = s.grid;
    call_.zr = ZRange::interior(s.grid);
    call_.axis = workload_axis(s.workload);
    call_.bc = workload_bc(s.workload);
    lines_ = ccd_lines(call_);
    const std::vector<double> f = ccd_factor(lines_.n, call_.bc);
    factor_ = Buffer<T>(f.size(), gpu(s), "ccd factor");
    factor_.upload(std::vector<T>(f.begin(), f.end()));
    for (int a = 0; a < 3; ++a) scratch_[a] = Buffer<T>(s.grid.padded_points(), gpu(s), "ccd scratch");
    call_.phi = fields_["phi"], call_.d1 = fields_["d1"], call_.d2 = fields_["d2"];
    call_.factor = factor_.get();
    call_.h = T(axis_spacing(s.grid, call_.axis));
    for (int a = 0; a < 3; ++a) call_.scratch[a] = scratch_[a].get();
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~CcdFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  CcdFixture(const CcdFixture&) = delete;
  CcdFixture& operator=(const CcdFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<CcdCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return ccd_model(lines_, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  FieldSet<T> fields_;
  Buffer<T> factor_;
  Buffer<T> scratch_[3];
  CcdCall<T> call_;
  CcdLines lines_{};
  void* stream_ = nullptr;
};

StageKind ccd_kind() {
  StageKind k;
  k.solver = "imle";
  k.name = "ccd";
  k.summary = "CC-CCD sixth-order d1 = dphi/dx, d2 = d2phi/dx2 along one axis: a 2x2 block-tridiagonal solve a "
              "line, L/U precomputed on the host (Eqs. 4-6)";
  k.reads = {"phi"};
  k.writes = {"d1", "d2"};
  k.workloads = kCcdWorkloads;
  k.tuning_axes = {"bx", "by"};
  // y_kept: where the forward sweep's y waits for the backward sweep (global: in d1, d2; shared; recomputed
  // from a checkpoint a chunk).
  k.tag_vocabulary = {{"memory", {"global", "shared", "register"}},
                      {"cta", {"1d", "2d"}},
                      {"traversal", {"thread_per_line", "transposed"}},
                      {"y_kept", {"global", "shared", "recomputed"}}};
  k.default_gpu_variant = "line_thread_1d";
  // Rounding of a recurrence: the GPU contracts multiply-adds, which the substitution carries along the
  // line (a contracting one, so the differences stay small). Measured with the CPU reference built with
  // and without contraction (g++ -mfma -ffp-contract=fast) on verify's line lengths: 4.5 ulps (double),
  // 3.7 (float); this leaves a factor of about 30 (the GPU test prints its own differences).
  k.tolerance_ulps = 128;
  k.flops_per_point = [](const std::string&) { return ccd_flops_per_point(); };
  set_fixture<CcdFixture>(k);
  return k;
}

// ------------------------------------------------------------------------------------------- imle/mls

// Displacements of the particles: a quarter cell, random in sign and size (what verify and the
// benchmarks feed; velocities are random_values as they are).
template <class T>
std::vector<T> scaled_displacements(std::size_t n, unsigned seed, double h) {
  std::vector<T> v = random_values<T>(n, seed);
  for (T& x : v) x = T(double(x) * 0.25 * h);
  return v;
}

template <class T>
class MlsFixture final : public StageFixture<T> {
 public:
  explicit MlsFixture(const FixtureSpec& s) : fields_(s.grid.padded_points(), gpu(s)) {
    const char* names[] = {"disp_x", "disp_y", "disp_z", "u_star", "v_star", "w_star", "u_interp", "v_interp", "w_interp"};
    for (const char* name : names) fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    const Grid& g = s.grid;
    const double h[3] = {g.dx(), g.dy(), g.dz()};
    for (unsigned f = 0; f < 9; ++f)
      fields_.upload(names[f], f < 3 ? scaled_displacements<T>(g.padded_points(), s.seed + f, h[f])
                                     : random_values<T>(g.padded_points(), s.seed + f));
    call_.grid = g;
    call_.zr = ZRange::interior(g);
    for (int c = 0; c < 3; ++c) {
      call_.disp[c] = fields_[names[c]];
      call_.value[c] = fields_[names[3 + c]];
      call_.out[c] = fields_[names[6 + c]];
    }
    call_.workspace_bytes = mls_workspace_bytes(g, call_.zr, int(sizeof(T)));
    workspace_ = Buffer<T>(call_.workspace_bytes / sizeof(T), gpu(s), "mls systems");
    call_.workspace = workspace_.get();
    // verify: a cap of 7 z-levels, so that the batched variant runs several batches and a short last
    // one; the benchmarks: the paper's 2 GB.
    call_.batch_cap_bytes = s.verify ? 7 * mls_plane_bytes(g, int(sizeof(T))) : kMlsPaperBatchCap;
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~MlsFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  MlsFixture(const MlsFixture&) = delete;
  MlsFixture& operator=(const MlsFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<MlsCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return mls_model(call_.grid, call_.zr, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  FieldSet<T> fields_;
  Buffer<T> workspace_;
  MlsCall<T> call_;
  void* stream_ = nullptr;
};

StageKind mls_kind() {
  StageKind k;
  k.solver = "imle";
  k.name = "mls";
  k.summary = "MLS interpolation of the moved particles' u* to the cell centres: quadratic basis, a 10x10 "
              "weighted normal system a cell (27 points), Gaussian elimination (Eqs. 9-10)";
  k.reads = {"disp_x", "disp_y", "disp_z", "u_star", "v_star", "w_star"};
  k.writes = {"u_interp", "v_interp", "w_interp"};
  k.tuning_axes = {"bx", "by"};
  k.tag_vocabulary = {{"memory", {"global", "register"}},
                      {"cta", {"1d", "2d"}},
                      {"phases", {"two_phase", "fused"}},
                      {"layout", {"planes", "aos"}},
                      {"index", {"int32_batched", "int64"}}};
  k.default_gpu_variant = "fused_register";
  // A 10x10 elimination whose matrix is far from the identity (corner points weigh little): contracted
  // multiply-adds on the GPU move the result by hundreds of roundoffs. Measured with the CPU reference
  // built with and without contraction (g++ -mfma -ffp-contract=fast) on verify's 37x23x19 grid: 206
  // ulps (double), 416 (float); this leaves a factor of about 10.
  k.tolerance_ulps = 4096;
  k.flops_per_point = [](const std::string&) { return mls_flops_per_point(); };
  set_fixture<MlsFixture>(k);
  return k;
}

const StageKindRegistrar ccd{ccd_kind()};
const StageKindRegistrar mls{mls_kind()};

}  // namespace
}  // namespace nsb
