// V1's global transposes as stage kinds (transpose.hpp): fracstep/transpose_zx (z-slabs -> x-slabs: M1, P1)
// and fracstep/transpose_xz (back: M2, P4), with the fixture on which `nsbench verify`, `nsbench stages` and
// nsbench-micro run their variants. No time loop calls them (V1 is not a solver here): they are measured on
// their own for Fig. 3 (studies/ha2018/fig3_v1_transpose_model.yaml).
//
// A generic tool's grid nx x ny x nz is the whole field; the workload names the ranks and the point's words:
// p2, p4 (a real field: u, v, w), p2_complex, p4_complex (the Poisson solve's spectral field).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "transpose/transpose.hpp"
#include "stage_kind.hpp"

namespace nsb {
namespace {

TransposeShape fixture_shape(const FixtureSpec& s) {
  const bool complex = s.workload.find("complex") != std::string::npos;
  return TransposeShape{s.grid.nx, s.grid.ny, s.grid.nz, std::stoi(s.workload.substr(1)), complex ? 2 : 1};
}

template <class T>
class TransposeFixture final : public StageFixture<T> {
 public:
  explicit TransposeFixture(const FixtureSpec& s)
      : shape_(fixture_shape(s)), fields_(shape_.field_words(), s.backend == Backend::cuda) {
    check_transpose_shape(shape_);
    const bool zx = s.stage == "transpose_zx";
    from_ = zx ? "zslabs" : "xslabs", to_ = zx ? "xslabs" : "zslabs";
    for (const std::string& name : {from_, to_, std::string("buffer")}) fields_.add(name);
    if (fields_.on_device()) stream_ = device::stream_create();
    // "to" gets random values too: a value a variant leaves unwritten shows in verify.
    if (s.verify || !fields_.on_device()) fields_.fill_random_host(s.seed);
    else fields_.fill_random_device(1000, stream_);
    if (fields_.on_device()) timer_ = std::make_unique<GpuTimer>(stream_, 256);
    else timer_ = std::make_unique<CpuTimer>();
    timer_->enabled = false;  // on for `stages`' timed calls only (phase_reset)
    call_.shape = shape_;
    call_.direction = zx ? TransposeDirection::z_to_x : TransposeDirection::x_to_z;
    call_.from = fields_[from_], call_.to = fields_[to_], call_.buffer = fields_["buffer"];
    call_.timer = timer_.get();
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~TransposeFixture() override {
    timer_.reset();
    if (stream_) device::stream_destroy(stream_);
  }
  TransposeFixture(const TransposeFixture&) = delete;
  TransposeFixture& operator=(const TransposeFixture&) = delete;

  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<TransposeCall<T>>()(call_);
  }
  // The source and the destination slabs; `buffer` is scratch whose contents the call leaves undefined.
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    return {{from_, fields_.buffer(from_).download()}, {to_, fields_.buffer(to_).download()}};
  }
  WorkModel model() const override { return transpose_model(shape_, int(sizeof(T))); }
  void* stream() const override { return stream_; }
  void phase_reset() override {
    timer_->clear();
    timer_->enabled = true;
  }
  std::vector<std::pair<std::string, std::vector<double>>> phase_seconds() override {
    if (stream_) device::stream_sync(stream_);
    std::vector<std::pair<std::string, std::vector<double>>> out;
    for (int ph = kTransposePack; ph <= kTransposeUnpack; ++ph) {
      std::vector<double> secs;
      for (const Sample& x : timer_->samples())
        if (x.section == ph) secs.push_back(x.seconds);
      if (!secs.empty()) out.emplace_back(kTransposePhaseNames[ph], std::move(secs));
    }
    return out;
  }

 private:
  TransposeShape shape_;
  std::string from_, to_;  // the arrays' names: zslabs, xslabs
  FieldSet<T> fields_;
  void* stream_ = nullptr;
  std::unique_ptr<SectionTimer> timer_;
  TransposeCall<T> call_;
};

StageKind transpose_kind(const char* name, const char* summary, const char* from, const char* to) {
  StageKind k;
  k.solver = "fracstep";
  k.name = name;
  k.summary = summary;
  k.reads = {from};
  k.writes = {to};
  k.workloads = {"p2", "p4", "p2_complex", "p4_complex"};
  k.tuning_axes = {"b"};
  k.tag_vocabulary = {{"memory", {"global"}}, {"mapping", {"virtual_ranks", "rank_per_gpu"}}};
  k.default_gpu_variant = "pack_copy_unpack";
  k.tolerance_ulps = 0;  // a copy: every value exactly where it belongs
  k.flops_per_point = [](const std::string&) { return 0.0; };
  k.verify_grid = [](const Grid& g) {  // 4 ranks need a column and a plane each
    Grid t = g;
    t.nx = std::max(g.nx, 4), t.nz = std::max(g.nz, 4);
    return t;
  };
  set_fixture<TransposeFixture>(k);
  return k;
}

const StageKindRegistrar zx{transpose_kind(
    "transpose_zx", "V1's global transpose: p z-slabs (Nx x Ny x Nz/p) -> p x-slabs (Nx/p x Ny x Nz, x fastest), "
                    "pack, all-to-all, unpack (workload pP[_complex])",
    "zslabs", "xslabs")};
const StageKindRegistrar xz{transpose_kind(
    "transpose_xz", "V1's global transpose back: p x-slabs -> p z-slabs (workload pP[_complex])", "xslabs", "zslabs")};

}  // namespace
}  // namespace nsb
