// `nsbench stages`: every GPU stage variant x tuning timed on its own, on random fields of a given
// grid: CUDA events around each call, warm-up, median and IQR over many samples, the modelled bytes
// and flops turned into GB/s and GFLOPS, the fraction of this GPU's measured copy bandwidth, and the
// kernels' registers. This is the per-variant table behind the recipes.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "grid.hpp"
#include "projection/solver.hpp"

namespace nsb {

struct StageBenchOptions {
  Grid grid{256, 256, 256, 1, 1, 1};
  std::string precision = "float";
  std::string stage, variant, tuning;  // filters ("" = all)
  int samples = 30, warmup = 3;
  std::string json_path;
  std::string command_line;
};

nlohmann::json bench_stages(const StageBenchOptions& o);

// What timing one stage on its own needs, on the current GPU: twelve fields of random values (never
// zero), a cavity's boundary rules, step parameters, reduction scratch, a stream, and a StageCall
// wired to all of it (`nsbench stages` and `nsbench-micro` both use it).
template <class T>
struct StageFixture {
  explicit StageFixture(const Grid& g);
  ~StageFixture();
  StageFixture(const StageFixture&) = delete;
  StageFixture& operator=(const StageFixture&) = delete;
  std::vector<Buffer<T>> fields;
  void* stream = nullptr;
  void* scratch = nullptr;
  double* out = nullptr;
  StageCall<T> call;
};

}  // namespace nsb
