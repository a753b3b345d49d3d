// The batched tridiagonal family's stage kinds (tridiag/contiguous, tridiag/interleaved, tridiag/cyclic):
// what they read and write, their work model and tolerance, and the fixture on which `nsbench verify`,
// `nsbench stages` and nsbench-micro run any of their variants.
//
// A generic tool's grid nx x ny x nz is read as nx*nz systems of ny unknowns (a 512^3 grid is the
// 512^3-point batch of the paper's y sweeps; the verify grids give 703 systems of 23 and 1305 of 3).
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>

#include "device.hpp"
#include "fields.hpp"
#include "stage_kind.hpp"
#include "tridiag/stage_call.hpp"
#include "tridiag/systems.hpp"

namespace nsb {
namespace {

// tridiag/pdd's workloads name the blocks a system is split into: "p2", "p4".
int ranks_of(const FixtureSpec& s) {
  return s.stage == "pdd" || s.stage == "ppt" ? std::stoi(s.workload.substr(1)) : 1;
}

double flops_per_point(const std::string& stage) {
  return stage == "cyclic" ? kCyclicFlopsPerPoint : (stage == "pdd" || stage == "ppt") ? kPddFlopsPerPoint
                                                                                        : kThomasFlopsPerPoint;
}

// Diagonally dominant random systems in place (tridiag/systems.hpp), and a call wired to them.
template <class T>
class TridiagFixture final : public StageFixture<T> {
 public:
  explicit TridiagFixture(const FixtureSpec& s)
      : gpu_(s.backend == Backend::cuda), layout_(tridiag_fixture_layout(s.stage, s.grid)), cyclic_(s.stage == "cyclic"),
        flops_(flops_per_point(s.stage)), a_(layout_.points(), gpu_, "tridiag a"), b_(layout_.points(), gpu_, "tridiag b"),
        c_(layout_.points(), gpu_, "tridiag c"), x_(layout_.points(), gpu_, "tridiag x"),
        work_(kTridiagWorkValuesPerPoint * layout_.points() + kTridiagWorkSlack / sizeof(T), gpu_, "tridiag work") {
    if (gpu_) stream_ = device::stream_create();
    const RandomSystems<T> sys = random_systems<T>(layout_, cyclic_, s.seed);
    a_.upload(sys.a), b_.upload(sys.b), c_.upload(sys.c), x_.upload(sys.d);
    call_.layout = layout_;
    call_.cyclic = cyclic_;
    call_.ranks = ranks_of(s);
    call_.ppt = s.stage == "ppt";
    call_.a = a_.get(), call_.b = b_.get(), call_.c = c_.get(), call_.x = x_.get();
    call_.work = work_.get(), call_.work_bytes = work_.size() * sizeof(T);
    call_.exec = Exec{s.backend, 0, stream_, nullptr, 0};
  }
  ~TridiagFixture() override {
    if (stream_) device::stream_destroy(stream_);
  }
  TridiagFixture(const TridiagFixture&) = delete;
  TridiagFixture& operator=(const TridiagFixture&) = delete;

  // Repeated calls (the benchmarks) solve again with the previous solution as right-hand side: the
  // same work, and the values stay bounded since the matrices are diagonally dominant.
  void run(const Variant& v, const Tuning& t) override {
    call_.tuning = t;
    call_.exec.backend = v.backend;
    v.fn<TridiagCall<T>>()(call_);
  }
  // The operands and the solution; `work` is scratch whose contents the call leaves undefined.
  std::vector<std::pair<std::string, std::vector<T>>> arrays() const override {
    if (stream_) device::stream_sync(stream_);
    return {{"a", a_.download()}, {"b", b_.download()}, {"c", c_.download()}, {"x", x_.download()}};
  }
  WorkModel model() const override { return tridiag_model(layout_, flops_, int(sizeof(T))); }
  void* stream() const override { return stream_; }

 private:
  bool gpu_;
  TridiagLayout layout_;
  bool cyclic_;
  double flops_;
  Buffer<T> a_, b_, c_, x_, work_;
  TridiagCall<T> call_;
  void* stream_ = nullptr;
};

StageKind tridiag_kind(const std::string& name, const std::string& summary, const std::string& default_variant) {
  StageKind k;
  k.solver = "tridiag";
  k.name = name;
  k.summary = summary;
  k.reads = {"a", "b", "c", "x"};
  k.writes = {"x"};
  k.tuning_axes = {"b", "bx", "sz", "mb"};  // partition_*: bx systems a block (a tile), sz rows a thread, mb blocks an SM
  k.tag_vocabulary = {{"memory", {"global", "shared", "registers", "library"}},
                      {"method", {"thomas", "pcr", "pcr_thomas", "partition", "cr_pcr", "lu_pivoting", "sherman_morrison",
                                  "pdd", "ppt"}},
                      {"mapping", {"thread_per_system", "thread_per_block_of_rows", "thread_per_chunk", "block_per_system",
                                   "library", "rank_per_gpu"}}};  // ranks_peer: the split solve on real ranks, a GPU each
  // A solve's rounding error grows with the condition number and the length of the recurrences; the
  // fixture's matrices are dominant by at least 0.5 a row (condition number below ~10), so the methods
  // (Thomas, PCR, cuSPARSE's CR+PCR) agree to well within this bound and a wrong coupling does not.
  k.tolerance_ulps = 256;
  k.default_gpu_variant = default_variant;
  k.flops_per_point = [name](const std::string&) { return flops_per_point(name); };
  set_fixture<TridiagFixture>(k);
  return k;
}

const StageKindRegistrar contiguous{tridiag_kind(
    "contiguous", "x = A^-1 x for nx*nz tridiagonal systems of ny unknowns, each system contiguous (lines along x)",
    "pcr_thomas_shared")};
const StageKindRegistrar interleaved{tridiag_kind(
    "interleaved", "x = A^-1 x for nx*nz tridiagonal systems of ny unknowns, unknown j of all systems contiguous",
    "thomas_thread")};
const StageKindRegistrar cyclic{tridiag_kind(
    "cyclic", "x = A^-1 x for nx*nz periodic tridiagonal systems of ny unknowns, interleaved (the z sweep)",
    "thomas_thread")};

const StageKindRegistrar lines_y{tridiag_kind(
    "lines_y", "x = A^-1 x along every y line of an x-fastest nx x ny x nz field (the paper's ADI-Y, TDMA-C)",
    "thomas_thread")};

// PDD and PPT on p virtual ranks (workload pP): every block's local solves, the reduced system (PDD:
// its 2x2 interface blocks; PPT: all of it), the correction; the GPU variants against the CPU ones (the
// same method). Blocks need 2 unknowns, so grids thinner than 8 in y are made 8 tall. Flops: those of
// the unknowns (the reduced systems' O(p^3) a line are not counted).
StageKind split_kind(const std::string& name, const std::string& summary, const std::string& default_variant) {
  StageKind k = tridiag_kind(name, summary, default_variant);
  k.workloads = {"p2", "p4"};
  k.verify_grid = [](const Grid& g) {
    Grid t = g;
    t.ny = std::max(g.ny, 8);
    return t;
  };
  return k;
}
const StageKindRegistrar pdd{split_kind(
    "pdd", "x ~ A^-1 x along every y line of an nx x ny x nz field, each line split into p blocks solved by PDD "
           "(Ha, Park & You Algorithm 1; workload pP)",
    "pdd_thread")};
const StageKindRegistrar ppt{split_kind(
    "ppt", "x = A^-1 x along every y line of an nx x ny x nz field, each line split into p blocks solved by PPT "
           "(the whole reduced system; workload pP)",
    "ppt_thread")};

}  // namespace
}  // namespace nsb
