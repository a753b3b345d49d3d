// The wave solver's stage kind, wave/step (one kernel a time step, thesis Fig. 3.2): what it reads and
// writes, its work model, tuning axes and tag vocabulary, and the fixture on which `nsbench verify`,
// `nsbench stages` and nsbench-micro run any of its variants.
#include "device.hpp"
#include "fields.hpp"
#include "stage_kind.hpp"
#include "wave/formulas.hpp"
#include "wave/stage_call.hpp"

namespace nsb {
namespace {

// The generic tools ask for 3D grids (verify: odd ones); a wave step reads one as a plane of as many
// points, nx by ny nz (so distinct grids stay distinct, and NXx1xNY is itself).
Grid as_wave_grid(const Grid& g) { return wave_grid(g.nx, g.ny * g.nz); }

// The three time levels (random, never zero: verify compares every array, ghosts included, so a stray
// write shows) and a call wired to them.
template <class T>
class WaveStepFixture final : public StageFixture<T> {
 public:
  explicit WaveStepFixture(const FixtureSpec& s) : fields_(as_wave_grid(s.grid).padded_points(), gpu(s)) {
    for (const char* name : {"u_prev", "u", "u_next"}) fields_.add(name);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    call_.grid = as_wave_grid(s.grid);
    call_.zr = ZRange::interior(call_.grid);
    call_.u_prev = fields_["u_prev"], call_.u = fields_["u"], call_.u_next = fields_["u_next"];
    const double rho = 0.8 * wave_rho_limit();  // the default case's (CaseOptions::safety = 0.8)
    call_.rho2 = T(rho * rho);
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~WaveStepFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  WaveStepFixture(const WaveStepFixture&) = delete;
  WaveStepFixture& operator=(const WaveStepFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<WaveCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return wave_step_model(call_.grid, call_.zr, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  FieldSet<T> fields_;
  WaveCall<T> call_;
  void* stream_ = nullptr;
};

StageKind step_kind() {
  StageKind k;
  k.solver = "wave";
  k.name = "step";
  k.summary = "u_next = 2 u - u_prev + rho^2 (sum of the 4 neighbours of u - 4 u) (Eq. 2.8), on rows zr";
  k.reads = {"u_prev", "u"};
  k.writes = {"u_next"};
  k.tuning_axes = {"bx", "by", "sz"};
  k.tag_vocabulary = {{"memory", {"global", "shared", "register"}},
                      {"cta", {"1d", "2d"}},
                      {"traversal", {"one_point", "row_march"}},
                      {"access", {"vector"}}};
  k.default_gpu_variant = "global_2d";
  k.flops_per_point = [](const std::string&) { return kWaveFlopsPerPoint; };
  k.verify_grid = as_wave_grid;
  set_fixture<WaveStepFixture>(k);
  return k;
}

const StageKindRegistrar kind{step_kind()};

}  // namespace
}  // namespace nsb
