// The direct solves' stage kinds, poisson/fft and poisson/fft2_tridiag (fft_solve.hpp): what they
// read and write, their work model, workloads (one per face set verify must exercise) and the fixture
// on which `nsbench verify`, `nsbench stages` and nsbench-micro run any of their variants.
#include <cmath>
#include <sstream>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/fft_real.hpp"
#include "poisson/fft_solve.hpp"

namespace nsb {

std::string direct_solve_key(const std::string& variant, int elem_bytes, const Grid& g, const PoissonFaces& f,
                             const double* y_faces, int y_ranks) {
  std::ostringstream out;
  out.precision(17);
  out << variant << ' ' << elem_bytes << ' ' << g.nx << 'x' << g.ny << 'x' << g.nz << ' ' << g.lx << ' ' << g.ly
      << ' ' << g.lz;
  for (const auto& axis : f.face) out << ' ' << int(axis[0]) << int(axis[1]);
  out << " ranks " << y_ranks;
  if (y_faces) {  // the faces' moments: a different stretching changes them (formatting all is too slow a call)
    double sum = 0, moment = 0;
    for (int j = 0; j <= g.ny; ++j) sum += y_faces[j], moment += j * y_faces[j];
    out << " y " << sum << ' ' << moment << ' ' << y_faces[1];
  }
  return out.str();
}

std::vector<double> tanh_wall_faces(int n, double ly, double s) {
  std::vector<double> y(std::size_t(n) + 1);
  for (int j = 0; j <= n; ++j)
    y[std::size_t(j)] = s == 0 ? ly * j / n : 0.5 * ly * (1 + std::tanh(s * (2.0 * j / n - 1)) / std::tanh(s));
  return y;
}

AxisTransform axis_transform(const PoissonFaces& f, int axis, std::string* why) {
  const PoissonFace lo = f.face[axis][0], hi = f.face[axis][1];
  if (lo == hi) {
    if (lo == PoissonFace::periodic) return AxisTransform::fourier;
    return lo == PoissonFace::neumann ? AxisTransform::cosine : AxisTransform::sine;
  }
  if (why)
    *why = std::string("faces ") + poisson_face_name(lo) + "/" + poisson_face_name(hi) + " on axis " + "xyz"[axis] +
           ": a direct solve needs one type per axis (periodic, neumann or dirichlet pairs)";
  return AxisTransform::fourier;
}

std::string direct_solve_refusal(const PoissonFaces& f, bool tridiagonal_y, bool stretched_y) {
  for (int a = 0; a < 3; ++a) {
    std::string why;
    axis_transform(f, a, &why);
    if (!why.empty()) return why;
  }
  if (tridiagonal_y && f.face[1][0] == PoissonFace::periodic)
    return "periodic y faces: fft2_tridiag solves y with a plain tridiagonal (Thomas) solve, which cannot "
           "do a periodic (cyclic) system; use fft";
  if (stretched_y && !tridiagonal_y) return "a stretched y: the transforms need a uniform axis; use fft2_tridiag";
  return "";
}

WorkModel fft_solve_model(const Grid& g, const PoissonFaces& f, int elem_bytes, bool tridiagonal_y) {
  const double n = double(g.interior_points());
  const int len[3] = {g.nx, g.ny, g.nz};
  double flops = 0;
  for (int a = 0; a < 3; ++a) {
    if (tridiagonal_y && a == 1) continue;
    if (len[a] > 1) flops += 2 * 5 * n * std::log2(double(len[a]));
    if (axis_transform(f, a, nullptr) != AxisTransform::fourier) flops += 2 * 6 * n;
  }
  flops += tridiagonal_y ? 14 * n : 2 * n;
  return {n, 2.0 * elem_bytes * n, flops};
}

// Per point, in words of T, what each pass reads and writes, as the variants run them.
// Complex path (spectral_lines.cuh): pack 3 (rhs read, complex written); per transformed axis and
// direction a gather into axis-contiguous lines 2+2, the FFT's read and write 4 (one pass for n <= 512
// assumed: cuFFT may take more for larger n), a scatter back 2+2; divide 4 (fft) or Thomas 10
// (fft2_tridiag: elimination and back substitution over the complex line and its scratch); unpack 3.
// Fused, the first gather reads rhs (3, not 4) with no pack, the last inverse scatter writes p (3)
// with no unpack, and (fft) the last forward scatter divides; a periodic x is transformed in place in
// W with no gather or scatter (its pack and unpack then run alone).
// Real path (spectral_real.cuh): pack 2 (rhs read, the real array written), the R2C transform one
// pass per axis of more than one cell reading and writing the half spectrum (h words a point each way,
// h = 2 (n_half/2 + 1) / n_half, ~1; assumed as above), the orbit pass 2h, C2R as R2C, unpack 2.
// Axes of one cell are skipped, as the variants skip them; the ghost passes (a surface) are left out.
std::vector<DirectSolvePass> fft_solve_passes(const Grid& g, const PoissonFaces& f, bool tridiagonal_y, DirectPasses p) {
  const int len[3] = {g.nx, g.ny, g.nz};
  std::vector<int> axes;
  for (int a = 0; a < 3; ++a)
    if (!(tridiagonal_y && a == 1) && len[a] > 1) axes.push_back(a);
  std::vector<DirectSolvePass> out;
  if (p == DirectPasses::real) {
    const int h_axis = real_half_axis(g);
    const double h = 2.0 * (len[h_axis] / 2 + 1) / len[h_axis];
    out.push_back({"real_pack", 2});
    for (int a : axes) out.push_back({std::string("cufft_r2c ") + "xyz"[a], 2 * h});
    out.push_back({"orbit", 2 * h});
    for (int a : axes) out.push_back({std::string("cufft_c2r ") + "xyz"[a], 2 * h});
    out.push_back({"real_unpack", 2});
    return out;
  }
  const bool fused = p == DirectPasses::fused && !axes.empty();
  const int first = axes.empty() ? -1 : axes.front(), last = axes.empty() ? -1 : axes.back();
  const auto in_place = [&](int a) { return fused && a == 0 && axis_transform(f, 0, nullptr) == AxisTransform::fourier; };
  const auto axis_passes = [&](int a, bool forward) {
    const std::string dir = forward ? "forward " : "inverse ", name(1, "xyz"[a]);
    if (in_place(a)) {
      if (forward && a == first) out.push_back({"pack", 3});
      out.push_back({"cufft " + dir + name, 4});
      if (forward && a == last && !tridiagonal_y) out.push_back({"divide", 4});
      if (!forward && a == first) out.push_back({"unpack", 3});
      return;
    }
    out.push_back({"gather " + dir + name, fused && forward && a == first ? 3.0 : 4.0});
    out.push_back({"cufft " + dir + name, 4});
    out.push_back({"scatter " + dir + name, fused && !forward && a == first ? 3.0 : 4.0});
  };
  if (!fused) out.push_back({"pack", 3});
  for (int a : axes) axis_passes(a, true);
  if (tridiagonal_y) out.push_back({"thomas", 10});
  else if (!fused) out.push_back({"divide", 4});
  for (auto a = axes.rbegin(); a != axes.rend(); ++a) axis_passes(*a, false);
  if (!fused) out.push_back({"unpack", 3});
  return out;
}

double fft_solve_traffic_bytes(const Grid& g, const PoissonFaces& f, int elem_bytes, bool tridiagonal_y, DirectPasses p) {
  double words = 0;
  for (const DirectSolvePass& pass : fft_solve_passes(g, f, tridiagonal_y, p)) words += pass.words;
  return words * elem_bytes * double(g.interior_points());
}

namespace {

PoissonFaces faces_of(PoissonFace x, PoissonFace y, PoissonFace z) {
  PoissonFaces f;
  const PoissonFace t[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) f.face[a][0] = f.face[a][1] = t[a];
  return f;
}

// The face sets verify and the benchmarks run: every transform on some axis, and the singular sets.
PoissonFaces workload_faces(const std::string& workload) {
  using F = PoissonFace;
  if (workload == "periodic_neumann_dirichlet") return faces_of(F::periodic, F::neumann, F::dirichlet);
  if (workload == "dirichlet_dirichlet_neumann") return faces_of(F::dirichlet, F::dirichlet, F::neumann);
  if (workload == "neumann") return faces_of(F::neumann, F::neumann, F::neumann);
  if (workload == "periodic") return faces_of(F::periodic, F::periodic, F::periodic);
  if (workload == "channel" || workload == "channel_stretched") return faces_of(F::periodic, F::neumann, F::periodic);
  throw std::invalid_argument("unknown direct-solve workload '" + workload + "'");
}

// The right-hand side (random) and the solution with its ghosts (random before the call, so a point
// the variant fails to write shows), and a call wired to them with the workload's faces.
template <class T>
class DirectSolveFixture final : public StageFixture<T> {
 public:
  explicit DirectSolveFixture(const FixtureSpec& s) : fields_(s.grid.padded_points(), gpu(s)) {
    tridiagonal_ = s.stage == "fft2_tridiag";
    for (const char* name : {"p", "rhs"}) fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    call_.grid = s.grid;
    call_.faces = workload_faces(s.workload.empty() ? "neumann" : s.workload);
    if (s.workload == "channel_stretched") {  // fracstep's grid: tanh clustering at both y walls, s = 3
      y_faces_ = tanh_wall_faces(s.grid.ny, s.grid.ly, 3.0);
      call_.y_faces = y_faces_.data();
    }
    call_.p = fields_["p"];
    call_.rhs = fields_["rhs"];
    call_.rhs_scale = T(0.5);
    call_.workspace = &workspace_;
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~DirectSolveFixture() override {
    workspace_.state.reset();  // device buffers and plans before the stream they were used on
    if (stream_) device::stream_destroy(stream_);
  }
  DirectSolveFixture(const DirectSolveFixture&) = delete;
  DirectSolveFixture& operator=(const DirectSolveFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<PoissonDirectCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return fft_solve_model(call_.grid, call_.faces, int(sizeof(T)), tridiagonal_); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  bool tridiagonal_ = false;
  std::vector<double> y_faces_;
  FieldSet<T> fields_;
  DirectSolveWorkspace workspace_;
  PoissonDirectCall<T> call_;
  void* stream_ = nullptr;
};

StageKind direct_kind(bool tridiagonal) {
  StageKind k;
  k.solver = "poisson";
  k.name = tridiagonal ? "fft2_tridiag" : "fft";
  k.summary = tridiagonal
                  ? "p = L^-1 (rhs_scale rhs): Fourier/cosine/sine transforms in x and z, a Thomas solve per (kx, kz) "
                    "line in y (rows kept per row, for a stretched y), transforms back; ghosts by the faces"
                  : "p = L^-1 (rhs_scale rhs): Fourier/cosine/sine transform per axis (periodic/neumann/dirichlet "
                    "pairs), division by the discrete operator's eigenvalues, transforms back; ghosts by the faces";
  k.reads = {"rhs"};
  k.writes = {"p"};
  k.workloads = tridiagonal ? std::vector<std::string>{"dirichlet_dirichlet_neumann", "neumann", "channel", "channel_stretched"}
                            : std::vector<std::string>{"periodic_neumann_dirichlet", "neumann", "periodic"};
  k.tuning_axes = {"b"};
  // memory: the passes of the variants (gathers, scatters, divide, Thomas) read and write global memory
  // directly; cuFFT's own kernels use shared memory inside.
  k.tag_vocabulary = {{"memory", {"global"}},
                      {"library", {"cufft"}},
                      {"transform", {"c2c_makhoul", "r2c_makhoul"}},
                      {"tridiagonal", {"thomas_per_thread"}},
                      {"passes", {"separate", "fused", "orbit"}}};
  // fft: the real path, a third of the complex path's traffic by the pass model (fft_solve_passes).
  k.default_gpu_variant = tridiagonal ? "cufft_thomas" : "cufft_r2c";
  // A solve's round-off grows with the condition number of L (~ (n / pi)^2 on verify's grids) over the
  // largest value of p: measured differences are far below this (docs/solvers/poisson_fft.md).
  k.tolerance_ulps = 4096;
  k.flops_per_point = [tridiagonal](const std::string& workload) {
    const Grid g{64, 64, 64, 1, 1, 1};
    return fft_solve_model(g, workload_faces(workload.empty() ? "neumann" : workload), 8, tridiagonal).flops /
           double(g.interior_points());
  };
  set_fixture<DirectSolveFixture>(k);
  return k;
}

const StageKindRegistrar fft_kind{direct_kind(false)};
const StageKindRegistrar fft2_tridiag_kind{direct_kind(true)};

}  // namespace
}  // namespace nsb
