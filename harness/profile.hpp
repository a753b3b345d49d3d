// Profiling passes (`nsbench run --profile`): run after the timed steps, never inside them, because a
// tool attached to the process changes what it measures.
//
//   trace pass     CUPTI Activity API: every kernel's name, launch shape, registers, shared memory and
//                  duration, tagged with the solver section (stage or halo exchange) that launched it
//                  through CUPTI's external correlation ids. Per section: the sum of its kernels' time
//                  against the event-timed section time of the timing pass (the gap is launch overhead
//                  and idle time between kernels).
//   counter pass   CUPTI Range Profiler, one range per kernel (auto range, kernel replay: CUPTI saves
//                  and restores memory and replays each kernel once per counter pass it needs): DRAM
//                  bytes, L2 hit rate, achieved occupancy, global load/store requests and sectors, summed
//                  per section call. DRAM bytes against the variant's byte model validates the model.
//
// Both passes are SectionTimers, so the solver brackets its stages for them exactly as it does for
// the CUDA-event timer. When CUPTI is missing from the build, or the driver refuses counters (no
// permission, a virtualised GPU), make_* returns null with the reason; the trace survives a refusal of
// counters.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timer.hpp"

namespace nsb::profile {

// One kernel execution seen by the trace pass.
struct KernelRecord {
  std::string name;
  int section = -1;  // the solver section that launched it (-1: outside any section)
  int step = 0;
  long long call = 0;  // serial number of the section call, to sum kernels per call
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int registers = 0, static_shared = 0, dynamic_shared = 0;
  double seconds = 0;
};

// Counter values of one section call (summed over its kernels; ratios averaged weighted by duration).
struct CounterRecord {
  int section = -1;
  int step = 0;
  int kernels = 0;
  std::map<std::string, double> metrics;
};

class TracePass : public SectionTimer {
 public:
  // Waits for the GPU, flushes CUPTI's buffers and returns every kernel seen since creation.
  virtual std::vector<KernelRecord> finish() = 0;
};

class CounterPass : public SectionTimer {
 public:
  virtual std::vector<CounterRecord> finish() = 0;
};

// The metrics the counter pass collects (Nsight Compute names; seed 004 notes, Sec. 6.4).
const std::vector<std::string>& counter_metrics();

// Null with *why filled when the pass cannot run here.
std::unique_ptr<TracePass> make_trace_pass(std::string* why);
std::unique_ptr<CounterPass> make_counter_pass(int device, std::string* why);

// Per-section summary of a trace: calls, kernels per call, median of the per-call kernel-time sums.
// Pure C++ (tested in CI): groups records by (section, call).
nlohmann::json summarize_trace(const std::vector<KernelRecord>& records, const std::vector<std::string>& section_names);
// Per-section summary of counter records: per call medians of every metric.
nlohmann::json summarize_counters(const std::vector<CounterRecord>& records,
                                  const std::vector<std::string>& section_names);

}  // namespace nsb::profile
