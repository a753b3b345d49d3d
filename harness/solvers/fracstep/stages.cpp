// The fractional-step solver's stage kinds (stage_call.hpp): what each reads and writes, its work
// model, tuning axes and tag vocabulary, and the fixture on which `nsbench verify`, `nsbench stages` and
// nsbench-micro run any of their variants. One fixture class serves all six kinds: the fields of a
// sub-step and a call wired to them, at sub-step k = 1 (both RK3 terms present).
#include <memory>
#include <string>

#include "device.hpp"
#include "fields.hpp"
#include "fracstep/adi_tables.hpp"
#include "fracstep/stage_call.hpp"
#include "poisson/fft_solve.hpp"

namespace nsb {
namespace {

// The fixture's time step and viscosity: a CFL-1 step of a unit velocity (the paper's fixed CFL = 1.0,
// notes Sec. 1.4) at Re = 1000 (ADI rows with r = alpha dt nu / h^2 well above zero on verify grids).
constexpr double kFixtureRe = 1000;
constexpr double kFixtureStretch = 3;  // the solver's default y stretching
inline double fixture_dt(const Grid& g) { return std::min({g.dx(), g.dy(), g.dz()}); }

template <class T>
class FracstepFixture final : public StageFixture<T> {
 public:
  explicit FracstepFixture(const FixtureSpec& s)
      : stage_(s.stage), fields_(s.grid.padded_points(), gpu(s)),
        metric_(y_metric_values(tanh_wall_faces(s.grid.ny, s.grid.ly, kFixtureStretch)), gpu(s)),
        tables_(s.grid, fixture_dt(s.grid), 1 / kFixtureRe, metric_.values(), gpu(s)) {
    for (const char* name : {"u", "v", "w", "du", "dv", "dw", "n_u", "n_v", "n_w", "n_old_u", "n_old_v", "n_old_w", "p",
                             "phi", "div"})
      fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    const char* vel[3] = {"u", "v", "w"};
    const char* dvel[3] = {"du", "dv", "dw"};
    const char* conv[3] = {"n_u", "n_v", "n_w"};
    const char* old[3] = {"n_old_u", "n_old_v", "n_old_w"};
    call_.grid = s.grid;
    for (int c = 0; c < 3; ++c)
      call_.vel[c] = fields_[vel[c]], call_.dvel[c] = fields_[dvel[c]], call_.conv[c] = fields_[conv[c]],
      call_.conv_old[c] = fields_[old[c]];
    call_.p = fields_["p"], call_.phi = fields_["phi"], call_.div = fields_["div"];
    call_.spacing = metric_.spacing(s.grid);
    const double force[3] = {1, 0, 0};
    call_.coef = substep_coef<T>(1, fixture_dt(s.grid), 1 / kFixtureRe, force);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) call_.adi[a][c] = tables_.of_substep(1)[a][c];
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~FracstepFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  FracstepFixture(const FracstepFixture&) = delete;
  FracstepFixture& operator=(const FracstepFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<FracstepCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return fracstep_model(stage_, call_.grid, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  std::string stage_;
  FieldSet<T> fields_;
  YMetric<T> metric_;
  AdiTables<T> tables_;
  FracstepCall<T> call_;
  void* stream_ = nullptr;
};

// A grid every kind can run on: periodic ADI lines need 3 cells, v's y lines 1 (ny >= 2).
Grid fracstep_verify_grid(const Grid& g) {
  Grid out = g;
  out.nx = std::max(g.nx, 3), out.ny = std::max(g.ny, 2), out.nz = std::max(g.nz, 3);
  return out;
}

StageKind kind(const char* name, const char* summary, std::vector<std::string> reads, std::vector<std::string> writes,
               double tolerance_ulps) {
  StageKind k;
  k.solver = "fracstep";
  k.name = name;
  k.summary = summary;
  k.reads = std::move(reads);
  k.writes = std::move(writes);
  const bool adi = std::string(name).rfind("adi", 0) == 0;
  k.tuning_axes = adi ? std::vector<std::string>{"b"} : std::vector<std::string>{"bx", "by"};  // b: threads a block
  k.tag_vocabulary = {{"memory", {"global", "shared"}}, {"mapping", {"thread_per_point", "thread_per_line", "warp_per_32_lines"}}};
  k.default_gpu_variant = adi ? "thread_per_line" : "global_2d";
  k.tolerance_ulps = tolerance_ulps;
  const std::string stage = name;
  k.flops_per_point = [stage](const std::string&) { return fracstep_flops_per_point(stage); };
  k.verify_grid = fracstep_verify_grid;
  set_fixture<FracstepFixture>(k);
  return k;
}

// Tolerances: 32 ulps of the largest value (the kinds' default). The formulas compiled with and without
// multiply-add contraction (x86-64-v3, the verify grid 37x23x19, random inputs) differ by at most 1.2 ulps
// (float) and 0.9 (double) in rhs, N, the divergence and the correction (docs/solvers/fracstep.md).
const StageKindRegistrar rhs_kind{kind("rhs", "du = dt (-gamma N(u) - zeta N_old - 2 alpha G p + 2 alpha nu L u + 2 alpha f); n = N(u)",
                                       {"u", "v", "w", "p", "n_old_u", "n_old_v", "n_old_w"},
                                       {"du", "dv", "dw", "n_u", "n_v", "n_w"}, 32)};
const StageKindRegistrar adi_x_kind{kind("adi_x", "(1 - beta Lx)^-1 of du, dv, dw along every x line (periodic: Sherman-Morrison)",
                                         {"du", "dv", "dw"}, {"du", "dv", "dw"}, 32)};
const StageKindRegistrar adi_y_kind{kind("adi_y", "(1 - beta Ly)^-1 of du, dv, dw along every y line (walls: Thomas)",
                                         {"du", "dv", "dw"}, {"du", "dv", "dw"}, 32)};
const StageKindRegistrar adi_z_kind{kind("adi_z", "(1 - beta Lz)^-1 of du, dv, dw along every z line (periodic: Sherman-Morrison)",
                                         {"du", "dv", "dw"}, {"du", "dv", "dw"}, 32)};
const StageKindRegistrar div_kind{kind("divergence", "div = div(u + du) at the cells", {"u", "v", "w", "du", "dv", "dw"},
                                       {"div"}, 32)};
const StageKindRegistrar correct_kind{kind("correct", "u += du - 2 alpha dt G phi; p += phi",
                                           {"u", "v", "w", "du", "dv", "dw", "p", "phi"}, {"u", "v", "w", "p"}, 32)};

}  // namespace
}  // namespace nsb
