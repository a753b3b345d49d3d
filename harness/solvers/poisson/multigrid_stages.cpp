// Multigrid's stage kinds (poisson/mg_*, calls in multigrid_call.hpp): what each reads and writes, its
// work model, tolerance, tuning axes and tags, and one fixture for all of them on which `nsbench
// verify`, `nsbench stages` and nsbench-micro run any of their variants.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/multigrid.hpp"
#include "poisson/multigrid_call.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

// Faces that exercise every rule and a mixed pair (verify compares every array, ghosts included).
PoissonFaces fixture_faces() {
  PoissonFaces f;
  f.face[0][0] = f.face[0][1] = PoissonFace::periodic;
  f.face[1][0] = PoissonFace::neumann, f.face[1][1] = PoissonFace::dirichlet;
  f.face[2][0] = PoissonFace::dirichlet, f.face[2][1] = PoissonFace::neumann;
  return f;
}

// Restriction and prolongation work between the fixture's grid (fine, rounded up to even) and the grid
// of half its cells (which stays odd where the fixture's is, so the bounds are exercised).
Grid coarse_of(const Grid& g) {
  Grid c = g;
  c.nx = (g.nx + 1) / 2, c.ny = (g.ny + 1) / 2, c.nz = (g.nz + 1) / 2;
  return c;
}
Grid fine_of(const Grid& c) {
  Grid f = c;
  f.nx = 2 * c.nx, f.ny = 2 * c.ny, f.nz = 2 * c.nz;
  return f;
}
// The coarsest-level solve takes a few hundred cells at most.
Grid coarsest_of(const Grid& g) {
  Grid c = g;
  c.nx = std::min(g.nx, 7), c.ny = std::min(g.ny, 6), c.nz = std::min(g.nz, 5);
  return c;
}

// mg_rbgs's workloads: each colour plain (omega 1, the default smoother) and over-relaxed (the
// "_over" ones, at an omega the methods take with the option w115: the arithmetic verified is the same
// for any omega other than 1).
constexpr double kFixtureOmega = 1.15;
double rbgs_workload_omega(const std::string& workload) {
  return workload.size() > 5 && workload.compare(workload.size() - 5, 5, "_over") == 0 ? kFixtureOmega : 1.0;
}

// A call of kind C with the common part b.
template <class C>
C with_base(const MgCallBase& b) {
  C c;
  static_cast<MgCallBase&>(c) = b;
  return c;
}

void fill(void* p, std::size_t n, int eb, const FixtureSpec& s, unsigned index, void* stream) {
  if (eb == 4) {
    auto* a = static_cast<float*>(p);
    if (s.backend == Backend::cuda && !s.verify) return device::fill_random(a, n, 4, s.seed * 1000ull + index, stream);
    const std::vector<float> v = random_values<float>(n, s.seed + index);
    if (s.backend == Backend::cuda) device::copy_to_device(a, v.data(), n * 4);
    else std::copy(v.begin(), v.end(), a);
  } else {
    auto* a = static_cast<double*>(p);
    if (s.backend == Backend::cuda && !s.verify) return device::fill_random(a, n, 8, s.seed * 1000ull + index, stream);
    const std::vector<double> v = random_values<double>(n, s.seed + index);
    if (s.backend == Backend::cuda) device::copy_to_device(a, v.data(), n * 8);
    else std::copy(v.begin(), v.end(), a);
  }
}

template <class T>
class MgFixture final : public StageFixture<T> {
 public:
  explicit MgFixture(const FixtureSpec& s) : spec_(s), gpu_(s.backend == Backend::cuda) {
    if (gpu_) stream_ = device::stream_create();
    Grid g = s.grid;
    if (s.stage == "mg_restrict" || s.stage == "mg_prolong" || s.stage == "mg_residual_restrict") g = coarse_of(g);
    if (s.stage == "mg_coarse") g = coarsest_of(g);
    base_.grid = g;
    base_.zr = ZRange::interior(g);
    base_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
    sums_ = Buffer<double>(2, gpu_, "mg fixture sums");
    partials_ = Buffer<double>(2 * kMgSumsMaxBlocks, gpu_, "mg fixture partials");
    const std::string& k = s.stage;
    if (k == "mg_ghosts") add("a", g);
    if (k == "mg_jacobi") add("p", g), add("f", g), add("out", g);
    if (k == "mg_rbgs") add("p", g), add("f", g);
    if (k == "mg_residual") add("p", g), add("f", g), add("r", g);
    if (k == "mg_restrict") add("fine_r", fine_of(g)), add("coarse_f", g);
    if (k == "mg_residual_restrict") add("p", fine_of(g)), add("f", fine_of(g)), add("coarse_f", g);
    if (k == "mg_prolong") add("coarse_e", g), add("fine_e", fine_of(g));
    if (k == "mg_coarse") add("e", g), add("f", g);
    if (k == "mg_sums") add("a", g);
    if (k == "mg_shift") add("in", g), add("out", g), set_sums_of_first();
  }
  ~MgFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  MgFixture(const MgFixture&) = delete;
  MgFixture& operator=(const MgFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    MgCallBase b = base_;
    b.tuning = t;
    b.exec.backend = v.backend;
    const std::string& k = spec_.stage;
    const Grid g = b.grid;
    if (k == "mg_ghosts") {
      auto c = with_base<MgGhostsCall<T>>(b);
      c.faces = fixture_faces(), c.a = at(0);
      v.fn<MgGhostsCall<T>>()(c);
    } else if (k == "mg_jacobi") {
      auto c = with_base<MgJacobiCall<T>>(b);
      c.p = at(0), c.f = at(1), c.out = at(2);
      v.fn<MgJacobiCall<T>>()(c);
    } else if (k == "mg_rbgs") {
      auto c = with_base<MgRbgsCall<T>>(b);
      c.p = at(0), c.f = at(1), c.colour = spec_.workload.rfind("black", 0) == 0 ? 1 : 0;
      c.omega = T(rbgs_workload_omega(spec_.workload));
      v.fn<MgRbgsCall<T>>()(c);
    } else if (k == "mg_residual") {
      auto c = with_base<MgResidualCall<T>>(b);
      c.p = at(0), c.f = at(1), c.r = at(2);
      v.fn<MgResidualCall<T>>()(c);
    } else if (k == "mg_restrict") {
      auto c = with_base<MgRestrictCall<T>>(b);
      c.fine = fine_of(g), c.fine_r = at(0), c.coarse_f = at(1);
      v.fn<MgRestrictCall<T>>()(c);
    } else if (k == "mg_residual_restrict") {
      auto c = with_base<MgResidualRestrictCall<T>>(b);
      c.fine = fine_of(g), c.p = at(0), c.f = at(1), c.coarse_f = at(2);
      v.fn<MgResidualRestrictCall<T>>()(c);
    } else if (k == "mg_prolong") {
      auto c = with_base<MgProlongCall<T>>(b);
      c.grid = fine_of(g), c.zr = ZRange::interior(c.grid), c.coarse = g, c.coarse_e = at(0), c.fine_e = at(1);
      v.fn<MgProlongCall<T>>()(c);
    } else if (k == "mg_coarse") {
      auto c = with_base<MgCoarseCall<T>>(b);
      c.faces = fixture_faces(), c.e = at(0), c.f = at(1), c.sweeps = mg_coarse_sweeps(g);
      v.fn<MgCoarseCall<T>>()(c);
    } else if (k == "mg_sums") {
      auto c = with_base<MgSumsCall<T>>(b);
      c.a = at(0), c.sums = sums_.get(), c.partials = partials_.get();
      v.fn<MgSumsCall<T>>()(c);
    } else if (k == "mg_shift") {
      auto c = with_base<MgShiftCall<T>>(b);
      c.in = at(0), c.out = at(1), c.scale = T(0.75), c.sums = sums_.get();
      v.fn<MgShiftCall<T>>()(c);
    }
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const auto& [name, buffer] : arrays_) out.emplace_back(name, buffer.download());
    if (spec_.stage == "mg_sums") {
      const std::vector<double> s = sums_.download();
      out.emplace_back("sums", std::vector<T>{T(s[0]), T(s[1])});
    }
    return out;
  }
  WorkModel model() const override {
    const Grid& g = base_.grid;
    const int eb = int(sizeof(T));
    const std::string& k = spec_.stage;
    if (k == "mg_ghosts") return mg_ghosts_model(g, eb);
    if (k == "mg_jacobi") return mg_jacobi_model(g, eb);
    if (k == "mg_rbgs") return mg_rbgs_model(g, eb);
    if (k == "mg_residual") return mg_residual_model(g, eb);
    if (k == "mg_restrict") return mg_restrict_model(g, eb);
    if (k == "mg_residual_restrict") return mg_residual_restrict_model(g, eb);
    if (k == "mg_prolong") return mg_prolong_model(fine_of(g), eb);
    if (k == "mg_coarse") return mg_coarse_model(g, mg_coarse_sweeps(g), eb);
    if (k == "mg_sums") return mg_sums_model(g, eb);
    return mg_shift_model(g, eb);
  }
  void* stream() const override { return stream_; }

 private:
  void add(const std::string& name, const Grid& g) {
    Buffer<T> b(g.padded_points(), gpu_, "mg fixture array");
    fill(b.get(), b.size(), int(sizeof(T)), spec_, unsigned(arrays_.size()), stream_);
    arrays_.emplace_back(name, std::move(b));
  }
  T* at(std::size_t i) const { return arrays_[i].second.get(); }
  // mg_shift's sums: those of its input, taken on the host so that every backend shifts by the same value.
  void set_sums_of_first() {
    const std::vector<T> a = arrays_[0].second.download();
    const Grid& g = base_.grid;
    double s = 0;
    for (int k = 1; k <= g.nz; ++k)
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) s += double(a[g.idx(i, j, k)]);
    sums_.upload({s, 0.0});
  }

  FixtureSpec spec_;
  bool gpu_;
  void* stream_ = nullptr;
  MgCallBase base_;
  std::vector<std::pair<std::string, Buffer<T>>> arrays_;
  Buffer<double> sums_, partials_;
};

const std::map<std::string, std::vector<std::string>> kMgTags = {
    {"memory", {"global", "shared"}}, {"cta", {"1d", "2d"}}, {"reduce", {"buffer"}}, {"traversal", {"one_point", "colour_packed"}}};

StageKind mg_kind(const char* name, const char* summary, std::vector<std::string> reads, std::vector<std::string> writes,
                  double flops, const char* default_gpu, std::vector<std::string> axes) {
  StageKind k;
  k.solver = "poisson";
  k.name = name;
  k.summary = summary;
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  k.tuning_axes = std::move(axes);
  k.tag_vocabulary = kMgTags;
  k.default_gpu_variant = default_gpu;
  k.flops_per_point = [flops](const std::string&) { return flops; };
  set_fixture<MgFixture>(k);
  return k;
}

std::vector<StageKind> mg_kinds() {
  const std::vector<std::string> zloop = {"bx", "by", "sz"};
  std::vector<StageKind> out;
  out.push_back(mg_kind("mg_ghosts", "a's ghost shell from the six faces' rules (neumann, dirichlet, periodic), one pass",
                        {"a"}, {"a"}, 0, "global_shell", {"b"}));
  out.push_back(mg_kind("mg_jacobi", "out = p + omega ((neighbours - f) / diag - p), weighted Jacobi (omega 6/7)",
                        {"p", "f"}, {"out"}, kMgJacobiFlops, "global_zloop", zloop));
  StageKind rbgs = mg_kind("mg_rbgs", "p = (neighbours - f) / diag at the points of one colour (red: i+j+k even), in place; "
                           "the _over workloads over-relaxed, p + omega (that - p)",
                           {"p", "f"}, {"p"}, kMgGaussSeidelFlops, "global_zloop", zloop);
  rbgs.workloads = {"red", "black", "red_over", "black_over"};
  rbgs.flops_per_point = [](const std::string& w) { return rbgs_workload_omega(w) == 1 ? kMgGaussSeidelFlops : kMgSorFlops; };
  out.push_back(rbgs);
  out.push_back(mg_kind("mg_residual", "r = f - L p (7-point operator)", {"p", "f"}, {"r"}, kMgResidualFlops,
                        "global_zloop", zloop));
  out.push_back(mg_kind("mg_restrict", "coarse_f = average of the 8 fine residuals each coarse cell covers",
                        {"fine_r"}, {"coarse_f"}, kMgRestrictFlops, "global_zloop", zloop));
  out.push_back(mg_kind("mg_residual_restrict",
                        "coarse_f = average of the 8 fine residuals f - L p each coarse cell covers, computed in place "
                        "(mg_residual and mg_restrict in one pass)",
                        {"p", "f"}, {"coarse_f"}, 8 * kMgResidualFlops + kMgRestrictFlops, "global_zloop", zloop));
  out.push_back(mg_kind("mg_prolong", "fine_e += trilinear interpolation of coarse_e (weights 27, 9, 3, 1 / 64)",
                        {"coarse_e", "fine_e"}, {"fine_e"}, kMgProlongFlops, "global_zloop", zloop));
  StageKind coarse = mg_kind("mg_coarse", "e = red-black Gauss-Seidel sweeps on the coarsest level (<= 512 cells), ghosts set",
                             {"e", "f"}, {"e"}, kMgGaussSeidelFlops, "shared_block", {});
  coarse.tolerance_ulps = 1024;  // a hundred sweeps: rounding differences of FMA contraction add up
  out.push_back(coarse);
  StageKind sums = mg_kind("mg_sums", "sum and sum of squares of a over the interior, in double, in a fixed order",
                           {"a"}, {"sums"}, kMgSumsFlops, "global_two_pass", {"b"});
  out.push_back(sums);
  out.push_back(mg_kind("mg_shift", "out = scale in - scale mean(in) (the mean from mg_sums; a singular problem's fix)",
                        {"in", "sums"}, {"out"}, kMgShiftFlops, "global_zloop", zloop));
  return out;
}

const bool registered = [] {
  for (StageKind& k : mg_kinds()) StageKindRegistry::instance().add(std::move(k));
  return true;
}();

}  // namespace
}  // namespace nsb
