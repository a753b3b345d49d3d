// The IMLE solver's pointwise stage kinds: imle/predict, imle/move, imle/ppe_rhs, imle/correct
// (point_formulas.hpp), with one fixture for the four: the kind's reads and writes as random fields
// (never zero; verify compares every array, ghosts included), wired to the call in that order.
#include <string>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "imle/point_call.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

struct PointKindInfo {
  ImlePoint stage;
  const char* name;
  const char* summary;
  std::vector<std::string> reads, writes;
};

const PointKindInfo kPointKinds[] = {
    {ImlePoint::predict, "predict", "u* = u + dt nu (u_xx + u_yy + u_zz), one component (Eq. 7)",
     {"u", "u_xx", "u_yy", "u_zz"}, {"u_star"}},
    {ImlePoint::move, "move", "particle displacement r* - x = dt u* (Eq. 8; every particle starts on its centre)",
     {"u_star", "v_star", "w_star"}, {"disp_x", "disp_y", "disp_z"}},
    {ImlePoint::ppe_rhs, "ppe_rhs", "rhs = wide (2h) central divergence of the interpolated u* (Eq. 13; walls h/2 away)",
     {"u_interp", "v_interp", "w_interp"}, {"rhs"}},
    {ImlePoint::correct, "correct", "u = u*_interp - dt / rho dp/dx, one component (Eq. 11)",
     {"u_interp", "dpdx"}, {"u"}},
};

const PointKindInfo& point_kind(const std::string& name) {
  for (const PointKindInfo& k : kPointKinds)
    if (name == k.name) return k;
  throw std::logic_error("no IMLE pointwise stage '" + name + "'");
}

template <class T>
class PointFixture final : public StageFixture<T> {
 public:
  explicit PointFixture(const FixtureSpec& s) : info_(point_kind(s.stage)), fields_(s.grid.padded_points(), gpu(s)) {
    for (const std::string& f : info_.reads) fields_.add(f);
    for (const std::string& f : info_.writes) fields_.add(f);
    if (gpu(s)) stream_ = device::stream_create();
    if (s.verify || !gpu(s)) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    call_.grid = s.grid;
    call_.zr = ZRange::interior(s.grid);
    for (std::size_t f = 0; f < info_.reads.size(); ++f) call_.in[f] = fields_[info_.reads[f]];
    for (std::size_t f = 0; f < info_.writes.size(); ++f) call_.out[f] = fields_[info_.writes[f]];
    call_.coef = T(0.37);  // any coefficient: dt nu, dt or dt / rho
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~PointFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  PointFixture(const PointFixture&) = delete;
  PointFixture& operator=(const PointFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<ImlePointCall<T>>()(call_);
  }
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<T>>> out;
    for (const std::string& name : fields_.names()) out.emplace_back(name, fields_.buffer(name).download());
    return out;
  }
  WorkModel model() const override { return imle_point_model(info_.stage, call_.grid, call_.zr, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  static bool gpu(const FixtureSpec& s) { return s.backend == Backend::cuda; }
  const PointKindInfo& info_;
  FieldSet<T> fields_;
  ImlePointCall<T> call_;
  void* stream_ = nullptr;
};

StageKind point_stage_kind(const PointKindInfo& info) {
  StageKind k;
  k.solver = "imle";
  k.name = info.name;
  k.summary = info.summary;
  k.reads = info.reads;
  k.writes = info.writes;
  k.tuning_axes = {"bx", "by", "sz"};
  k.tag_vocabulary = {{"memory", {"global"}}, {"cta", {"2d"}}};
  k.default_gpu_variant = "global_2d";
  const ImlePoint s = info.stage;
  k.flops_per_point = [s](const std::string&) { return imle_point_flops(s); };
  set_fixture<PointFixture>(k);
  return k;
}

const StageKindRegistrar predict{point_stage_kind(kPointKinds[0])};
const StageKindRegistrar move{point_stage_kind(kPointKinds[1])};
const StageKindRegistrar ppe_rhs{point_stage_kind(kPointKinds[2])};
const StageKindRegistrar correct{point_stage_kind(kPointKinds[3])};

}  // namespace
}  // namespace nsb
