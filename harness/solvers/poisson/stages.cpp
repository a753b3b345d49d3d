// The stage kinds of the Poisson family's iterative methods (stage_call.hpp): what each reads and
// writes, its work model, tuning axes, tag vocabulary, and the fixture on which `nsbench verify`,
// `nsbench stages` and nsbench-micro run any variant of any of them.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/stage_call.hpp"
#include "stage_kind.hpp"

namespace nsb {

PoissonKindModel poisson_kind_model(const std::string& stage, bool shift) {
  // words: arrays read + written per interior point; flops as written in stage_call.hpp / formulas.hpp
  // (the operator: 8 for the weighted neighbours, 2 for the centre). The kind's minimum, whatever the
  // variant: the separate ones move more (apply_dot/separate_cub +2 words, cg_update/separate_cub +4), the
  // cuBLAS ones gather compact doubles for the library (cublas_dots.cuh; dot/library_cublas: + 2 doubles
  // written and 2 read; apply_dot/separate_cublas: + 2 written, 2 read; cg_update/separate_cublas: + 2
  // written, 3 read).
  if (stage == "faces") return {shift ? 2.0 : 0.0, shift ? 1.0 : 0.0};
  if (stage == "residual") return {3, 15};      // x, rhs read; r written; r^2 summed
  if (stage == "jacobi_sweep") return {3, 12};  // x, rhs read; p written
  // Two passes, each reading all of x (a cache line holds both colours), rhs read and x written once.
  if (stage == "rbsor") return {4, 16};
  if (stage == "dot") return {2, 2};
  if (stage == "apply_dot") return {2, 12};   // p read, q written, p q summed
  if (stage == "cg_update") return {6, 9};    // x p r q read; x r written; r z and r r summed
  if (stage == "cg_direction") return {3, 3};  // r p read; p written
  if (stage == "cg_check") return {0, 0};      // two scalars, no array
  throw std::logic_error("poisson_kind_model: no stage '" + stage + "'");
}

double poisson_ghost_points(const Grid& g) {
  return 2.0 * (double(g.NY()) * g.NZ() + double(g.NX()) * g.NZ() + double(g.NX()) * g.NY());
}

template <class T>
void check_reachable_tolerance(const Grid& g, double tolerance, const char* method) {
  if (tolerance <= 0) return;
  const double n = std::max({g.nx, g.ny, g.nz});
  const double eps = std::numeric_limits<T>::epsilon();
  const double floor = eps * n * n / 50;
  if (tolerance < floor) {
    char text[320];  // %g: tolerances are 1e-6 .. 1e-12, which std::to_string writes as 0.000000
    std::snprintf(text, sizeof text,
                  "%s: tolerance %g cannot be reached in %s on a grid %d cells long: the rounding floor of the relative "
                  "residual is about eps n^2 / 5 = %g; ask for at least %g or use double",
                  method, tolerance, sizeof(T) == 4 ? "float" : "double", int(n), eps * n * n / 5, floor);
    throw std::invalid_argument(text);
  }
}
template void check_reachable_tolerance<float>(const Grid&, double, const char*);
template void check_reachable_tolerance<double>(const Grid&, double, const char*);

double omega_of_tuning(const Tuning& t) {
  const double omega = t.w / 100.0;
  if (!(omega > 0 && omega < 2))
    throw std::invalid_argument("rbsor: omega " + std::to_string(omega) + " (tuning '" + t.name +
                                "') is outside (0, 2), where SOR does not converge");
  return omega;
}

namespace {

// Faces that exercise every ghost rule on the odd verify grids. Red-black needs an even count of cells
// along a periodic axis (else a point and its wrapped neighbour share a colour), so rbsor's fixture
// has none.
PoissonFaces fixture_faces(const std::string& stage) {
  PoissonFaces f;
  f.face[0][0] = f.face[0][1] = stage == "rbsor" ? PoissonFace::dirichlet : PoissonFace::periodic;
  f.face[1][0] = PoissonFace::dirichlet, f.face[1][1] = PoissonFace::neumann;
  f.face[2][0] = PoissonFace::neumann, f.face[2][1] = PoissonFace::dirichlet;
  return f;
}

// The fixed omega of rbsor's fixture: the tuning's omega is the method's choice (it sets the call's
// omega); the arithmetic verified is the same for any.
constexpr double kFixtureOmega = 1.7;

// Every array a stage may touch (random, never zero, ghosts included: verify compares them all, so a
// stray write shows) and the scalar inputs and outputs, wired to a call for the fixture's stage.
template <class T>
class PoissonStageFixture final : public StageFixture<T> {
 public:
  explicit PoissonStageFixture(const FixtureSpec& s) : stage_(s.stage), fields_(s.grid.padded_points(), gpu(s)) {
    for (const char* name : {"x", "p", "q", "r", "rhs"}) fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    // cg_update: alpha = rz / pq = 3/7 (both negative, as L's are); cg_direction: beta = rz / rz_prev = 2/3;
    // cg_check: out = {0, 0} (running, no iteration yet) and {rz, rr} with a relative residual of 0.4.
    const double points = double(s.grid.interior_points());
    const double in[kScalars] = {-3.0, -4.5, -7.0, 0.0, 0.0, -3.0, 0.16 * points};
    if (gpu(s)) {
      scalars_ = static_cast<double*>(device::alloc(kScalars * sizeof(double), "poisson fixture scalars"));
      device::copy_to_device(scalars_, in, sizeof in);
    } else {
      scalars_ = host_scalars_;
      std::copy(in, in + kScalars, host_scalars_);
    }
    call_.grid = s.grid;
    call_.faces = fixture_faces(stage_);
    call_.coef = make_poisson_coef<T>(s.grid);
    call_.x = fields_["x"], call_.p = fields_["p"], call_.q = fields_["q"], call_.r = fields_["r"];
    call_.rhs = fields_["rhs"];
    call_.rhs_scale = T(0.75), call_.rhs_shift = T(0.125), call_.shift = T(0.25);
    call_.omega = T(kFixtureOmega);
    call_.precondition = true;
    call_.a = fields_["x"], call_.b = fields_["r"];
    call_.rz = scalars_ + 0, call_.rz_prev = scalars_ + 1, call_.pq = scalars_ + 2;
    call_.out = scalars_ + 3;
    if (stage_ == "cg_check") call_.rz = scalars_ + 5, call_.tolerance = 0.5, call_.rhs_rms = 1;
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
    if (gpu(s)) {
      scratch_ = device::alloc(kReduceScratchBytes, "poisson fixture scratch");
      call_.exec.scratch = scratch_, call_.exec.scratch_bytes = kReduceScratchBytes;
    }
  }
  ~PoissonStageFixture() override {
    if (stream_) {
      device::stream_sync(stream_);
      device::free(scratch_);
      device::free(scalars_);
      device::stream_destroy(stream_);
    }
  }
  PoissonStageFixture(const PoissonStageFixture&) = delete;
  PoissonStageFixture& operator=(const PoissonStageFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<PoissonCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    // The sums a stage with arrays also produces (residual, apply_dot, cg_update), in T.
    const Sums s = sums();
    if (stage_ == "residual" || stage_ == "apply_dot") out.emplace_back("sum", std::vector<T>{T(s[0])});
    if (stage_ == "cg_update" || stage_ == "cg_check") out.emplace_back("sums", std::vector<T>{T(s[0]), T(s[1])});
    return out;
  }
  double scalar() const override { return stage_ == "dot" ? sums()[0] : std::nan(""); }
  WorkModel model() const override { return poisson_work_model<T>(stage_, call_.grid, true); }
  void* stream() const override { return stream_; }

 private:
  using Sums = std::array<double, 2>;
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  Sums sums() const {
    Sums s{};
    if (stream_) {
      device::stream_sync(stream_);
      device::copy_to_host(s.data(), scalars_ + 3, sizeof s);
    } else {
      s = {host_scalars_[3], host_scalars_[4]};
    }
    return s;
  }

  std::string stage_;
  FieldSet<T> fields_;
  PoissonCall<T> call_;
  void* stream_ = nullptr;
  void* scratch_ = nullptr;
  static constexpr int kScalars = 7;
  double* scalars_ = nullptr;  // rz, rz_prev, pq, out[0], out[1], cg_check's {rz, rr}
  double host_scalars_[kScalars] = {};
};

StageKind kind(const std::string& name, const std::string& summary, std::vector<std::string> reads,
               std::vector<std::string> writes, const std::string& default_gpu) {
  StageKind k;
  k.solver = "poisson";
  k.name = name;
  k.summary = summary;
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.tuning_axes = {"bx", "by", "sz"};
  if (name == "rbsor") k.tuning_axes.push_back("w");
  k.tag_vocabulary = {{"memory", {"global", "shared", "register"}},
                      {"cta", {"2d"}},
                      {"reduce", {"atomic", "buffer", "library"}},
                      {"fusion", {"fused", "separate"}}};
  k.default_gpu_variant = default_gpu;
  k.flops_per_point = [name](const std::string&) { return poisson_kind_model(name, true).flops_per_point; };
  if (name == "dot") {
    k.scalar_output = true;
    k.tolerance_absolute = 1e-10;  // sums in double whatever the precision; only the order differs
  }
  set_fixture<PoissonStageFixture>(k);
  return k;
}

const StageKindRegistrar faces_kind{kind("faces", "x -= shift at interior points, then x's ghost layer from the faces",
                                         {"x"}, {"x"}, "global")};
const StageKindRegistrar residual_kind{kind("residual", "r = rhs_scale (rhs - rhs_shift) - L x; sum r^2", {"x", "rhs"},
                                            {"r"}, "global_atomic")};
const StageKindRegistrar jacobi_kind{kind("jacobi_sweep", "p = (neighbours of x - rhs_scale (rhs - rhs_shift)) / diag",
                                          {"x", "rhs"}, {"p"}, "global_2d")};
const StageKindRegistrar rbsor_kind{kind("rbsor",
                                         "one red-black SOR iteration on x (red, ghosts, black, ghosts); omega from the "
                                         "tuning (w190 = 1.90)",
                                         {"x", "rhs"}, {"x"}, "global_2d")};
const StageKindRegistrar dot_kind{kind("dot", "sum a b over interior points, in double", {"x", "r"}, {}, "library_cub")};
const StageKindRegistrar apply_kind{kind("apply_dot", "q = L p; sum p q (CG's operator)", {"p"}, {"q"}, "fused_atomic")};
const StageKindRegistrar update_kind{kind("cg_update",
                                          "alpha = rz/pq; x += alpha p; r -= alpha q; sums r z (z = m r) and r r",
                                          {"x", "p", "r", "q"}, {"x", "r"}, "fused_atomic")};
const StageKindRegistrar check_kind{kind("cg_check",
                                         "CG's convergence check on the device: unless stopped, count the iteration and "
                                         "stop when the relative residual from rz[1] reaches the tolerance",
                                         {}, {}, "single_thread")};
const StageKindRegistrar direction_kind{kind("cg_direction", "p = m r + (rz/rz_prev) p, then p's ghost layer", {"r", "p"},
                                             {"p"}, "global")};

}  // namespace
}  // namespace nsb
