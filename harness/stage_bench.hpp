// `nsbench stages`: every GPU stage variant x tuning timed on its own (or, with --backend, every CPU one), on its stage kind's fixture
// (random fields of a given grid): CUDA events around each call, warm-up, median and IQR over many
// samples, the modelled bytes and flops turned into GB/s and GFLOPS, the fraction of this GPU's
// measured copy bandwidth, and the kernels' registers. This is the per-variant table behind the recipes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device.hpp"
#include "grid.hpp"
#include "stage_kind.hpp"

namespace nsb {

struct StageBenchOptions {
  Grid grid{256, 256, 256, 1, 1, 1};
  std::string precision = "float";
  std::string solver, tuning;  // filters ("" = all)
  // Rows of any of these stages ("pressure" or "projection/pressure") and variants ({} = all).
  std::vector<std::string> stages, variants;
  int samples = 30, warmup = 3;
  // Which variants: "cuda" (the GPU ones, event-timed) or a CPU backend, "cpu_serial" or "cpu_omp"
  // (steady_clock; cpu_omp on `threads` threads, 0 = OpenMP's default), for CPU-thread studies.
  std::string backend = "cuda";
  int threads = 0;
  std::string json_path;
  bool overwrite = false;       // --force: json_path may replace an existing file
  std::string command_line;
};

nlohmann::json bench_stages(const StageBenchOptions& o);

// One variant x tuning on fixture fx, as each row of `nsbench stages` times it: `warmup` untimed calls
// (one where the first is long), then `samples` calls, CUDA events on a GPU variant (ev: its pool, of at
// least `samples` pairs), steady_clock on a CPU one. The row: median_s, iqr_s, min_s, samples,
// raw_seconds, the work model and its rates (a fraction of copy_bandwidth, NaN where not measured), the
// kernels run. Throws what the call throws (a tuning that cannot launch names why).
template <class T>
nlohmann::json time_stage_call(StageFixture<T>& fx, const Variant& v, const Tuning& t, int samples, int warmup,
                               device::EventPool* ev, double copy_bandwidth);

}  // namespace nsb
