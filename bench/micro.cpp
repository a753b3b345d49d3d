// nsbench-micro: every GPU stage variant x tuning x grid x precision as a Google Benchmark, generated
// from the registry (harness/micro_cases.hpp). GPU time from CUDA events around each call
// (UseManualTime), a few untimed calls first, and optionally the L2 cache flushed before each
// iteration (--nsb_cold). Counters: modelled bytes/s and flops/s, the fraction of the copy bandwidth
// measured at start-up, and the SM clock measured the same way. Before a variant is timed it is
// checked against the CPU reference (nsbench verify's check); a variant that fails reports an error,
// not a time. Google Benchmark's own flags work as usual (--benchmark_filter, _repetitions,
// _format=json, _out=...); the JSON context carries nsbench's machine and build metadata.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "device.hpp"
#include "micro_cases.hpp"
#include "nvtx.hpp"
#include "run/result.hpp"
#include "verify.hpp"

namespace {

using nsb::MicroCase;

bool g_cold = false;
double g_copy_bandwidth = 0, g_sm_clock_mhz = 0;

// One fixture at a time: the cases come grouped by grid, precision and stage kind, so it is rebuilt
// rarely, and the previous one is freed first (a 512^3 double fixture alone is 12 GiB).
struct Fixtures {
  std::unique_ptr<nsb::StageFixture<float>> f;
  std::unique_ptr<nsb::StageFixture<double>> d;
  std::string key;
} g_fixtures;

template <class T>
nsb::StageFixture<T>& fixture(const MicroCase& c) {
  Fixtures& x = g_fixtures;
  const std::string key = c.kind->id() + "/" + c.workload + "/" + c.name.substr(c.name.rfind('/', c.name.rfind('/') - 1));
  auto& mine = [&]() -> std::unique_ptr<nsb::StageFixture<T>>& {
    if constexpr (sizeof(T) == 4) return x.f;
    else return x.d;
  }();
  if (!mine || x.key != key) {
    x.f.reset(), x.d.reset();
    mine = c.kind->fixture<T>()(nsb::FixtureSpec{c.kind->name, c.grid, nsb::Backend::cuda, c.workload, 1000, false});
    x.key = key;
  }
  return *mine;
}

// nsbench verify's verdict for a variant x tuning x precision, computed once per variant.
std::string reference_failure(const MicroCase& c) {
  static std::map<std::string, std::vector<nsb::VerifyResult>> checked;
  const std::string id = c.variant->id();
  if (!checked.count(id)) {
    nsb::VerifyOptions o;
    o.stage = c.variant->stage, o.variant = c.variant->name;
    checked[id] = nsb::verify_variants(o);
  }
  for (const nsb::VerifyResult& r : checked[id])
    if (r.tuning == c.tuning.name && r.precision == (c.single ? "float" : "double") && !r.pass)
      return "does not match the CPU reference on " + r.grid + " (" + r.scheme + "): max rel diff " +
             std::to_string(r.max_rel_diff) + " > " + std::to_string(r.tolerance) + " " + r.message;
  return "";
}

template <class T>
void run_case(benchmark::State& state, const MicroCase& c) {
  const std::string failure = reference_failure(c);
  if (!failure.empty()) {
    state.SkipWithError(failure.c_str());
    return;
  }
  nsb::StageFixture<T>& fx = fixture<T>(c);
  void* const stream = fx.stream();
  static void* flush = nullptr;
  static std::size_t flush_bytes = 0;
  if (g_cold && !flush) {
    flush_bytes = 2 * nsb::device::properties(0).l2_bytes;
    flush = nsb::device::alloc(flush_bytes, "L2 flush buffer");
  }
  nsb::device::EventPool ev(1);
  try {
    for (int w = 0; w < 3; ++w) fx.run(*c.variant, c.tuning);
    nsb::device::stream_sync(stream);
    for (auto _ : state) {
      if (g_cold) nsb::device::fill_bytes(flush, state.iterations() & 0xff, flush_bytes, stream);
      nsb::NvtxRange range(c.variant->id().c_str());
      ev.record_start(0, stream);
      fx.run(*c.variant, c.tuning);
      ev.record_stop(0, stream);
      state.SetIterationTime(ev.elapsed_seconds(0));
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const nsb::WorkModel m = fx.model();
  using benchmark::Counter;
  state.counters["bytes_per_second"] = Counter(m.bytes, Counter::kIsIterationInvariantRate);
  state.counters["flops_per_second"] = Counter(m.flops, Counter::kIsIterationInvariantRate);
  // (bytes / copy bandwidth) per second of kernel time = the achieved fraction of the copy bandwidth
  state.counters["fraction_of_copy"] = Counter(m.bytes / g_copy_bandwidth, Counter::kIsIterationInvariantRate);
  state.counters["sm_clock_mhz"] = g_sm_clock_mhz;
  state.SetLabel(g_cold ? "L2 flushed" : "L2 warm");
}

}  // namespace

int main(int argc, char** argv) {
  // Our one flag, taken out before Google Benchmark sees the rest.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--nsb_cold") == 0) g_cold = true;
    else argv[kept++] = argv[i];
  }
  argc = kept;
  bool list_only = false;
  for (int i = 1; i < argc; ++i) list_only = list_only || std::strstr(argv[i], "--benchmark_list_tests") == argv[i];

  static std::vector<MicroCase> cases = nsb::micro_cases(nsb::micro_grids());
  for (const MicroCase& c : cases) {
    auto* b = benchmark::RegisterBenchmark(c.name.c_str(), [&c](benchmark::State& s) {
      if (c.single) run_case<float>(s, c);
      else run_case<double>(s, c);
    });
    b->UseManualTime()->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!list_only) {
    if (nsb::device::count() == 0) {
      std::printf("SKIPPED: no usable GPU (%s)\n", nsb::device::unavailable_reason().c_str());
      return 0;
    }
    g_copy_bandwidth = nsb::device::measure_copy_bandwidth().bytes_per_second;
    g_sm_clock_mhz = nsb::device::measure_sm_clock_mhz();
    benchmark::AddCustomContext("nsbench_machine", nsb::machine_metadata(1).dump());
    benchmark::AddCustomContext("nsbench_build", nsb::build_metadata().dump());
    benchmark::AddCustomContext("nsbench_copy_bandwidth_bytes_per_second", std::to_string(g_copy_bandwidth));
    benchmark::AddCustomContext("nsbench_l2", g_cold ? "flushed before each iteration (cold)" : "not flushed (hot)");
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_fixtures.f.reset(), g_fixtures.d.reset();  // before the CUDA runtime shuts down
  return 0;
}
