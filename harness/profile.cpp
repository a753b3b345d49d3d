// The CUPTI-independent half of the profiling passes: metric names, the per-section summaries (tested
// in CI on synthetic records), and the answers of a build without CUPTI.
#include "profile.hpp"

#include <algorithm>
#include <set>

#include "stage.hpp"
#include "stats.hpp"

namespace nsb::profile {

const std::vector<std::string>& counter_metrics() {
  static const std::vector<std::string> m = {
      "gpu__time_duration.sum",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "lts__t_sector_hit_rate.pct",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      // Gohari et al.'s profiler figures (seed 004 notes Sec. 6.4): shared bank conflicts, DRAM % of peak
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
      "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
      "dram__throughput.avg.pct_of_peak_sustained_elapsed",
  };
  return m;
}

namespace {

std::string section_label(int s, const std::vector<std::string>& names) {
  if (s >= 0 && s < int(names.size())) return names[std::size_t(s)];
  if (s == kStepSection) return "step";
  return "outside_sections";
}

}  // namespace

nlohmann::json summarize_trace(const std::vector<KernelRecord>& records, const std::vector<std::string>& section_names) {
  // Per section: the kernel time of each call (sum over the call's kernels), and per kernel name its
  // launch shape and durations.
  struct Kernel {
    const KernelRecord* first = nullptr;
    std::vector<double> seconds;
  };
  struct Section {
    std::map<long long, double> per_call;
    std::map<long long, int> kernels_per_call;
    std::map<std::string, Kernel> kernels;
  };
  std::map<int, Section> sections;
  for (const KernelRecord& r : records) {
    Section& s = sections[r.section];
    s.per_call[r.call] += r.seconds;
    ++s.kernels_per_call[r.call];
    Kernel& k = s.kernels[r.name];
    if (!k.first) k.first = &r;
    k.seconds.push_back(r.seconds);
  }
  nlohmann::json out = nlohmann::json::object();
  for (auto& [id, s] : sections) {
    std::vector<double> sums, counts;
    for (auto& [call, sec] : s.per_call) sums.push_back(sec), counts.push_back(s.kernels_per_call[call]);
    const Summary sum = summarize(sums);
    nlohmann::json kernels = nlohmann::json::array();
    for (auto& [name, k] : s.kernels) {
      const Summary d = summarize(k.seconds);
      const KernelRecord& f = *k.first;
      kernels.push_back({{"name", name},
                         {"launches", k.seconds.size()},
                         {"median_s", d.median},
                         {"min_s", d.min},
                         {"grid", {f.grid[0], f.grid[1], f.grid[2]}},
                         {"block", {f.block[0], f.block[1], f.block[2]}},
                         {"registers", f.registers},
                         {"static_shared_bytes", f.static_shared},
                         {"dynamic_shared_bytes", f.dynamic_shared}});
    }
    out[section_label(id, section_names)] = {{"calls", sums.size()},
                              {"kernels_per_call", summarize(counts).median},
                              {"kernel_time_per_call", {{"median_s", sum.median}, {"iqr_s", sum.iqr}, {"min_s", sum.min}}},
                              {"kernels", kernels}};
  }
  return out;
}

nlohmann::json summarize_counters(const std::vector<CounterRecord>& records,
                                  const std::vector<std::string>& section_names) {
  std::map<int, std::vector<const CounterRecord*>> by_section;
  for (const CounterRecord& r : records) by_section[r.section].push_back(&r);
  nlohmann::json out = nlohmann::json::object();
  for (auto& [id, calls] : by_section) {
    std::set<std::string> names;
    for (const CounterRecord* c : calls)
      for (auto& [n, v] : c->metrics) names.insert(n);
    nlohmann::json metrics = nlohmann::json::object();
    for (const std::string& n : names) {
      std::vector<double> v;
      for (const CounterRecord* c : calls)
        if (c->metrics.count(n)) v.push_back(c->metrics.at(n));
      metrics[n] = summarize(v).median;
    }
    std::vector<double> kernels;
    for (const CounterRecord* c : calls) kernels.push_back(c->kernels);
    nlohmann::json s = {{"calls", calls.size()}, {"kernels_per_call", summarize(kernels).median}, {"median_per_call", metrics}};
    if (metrics.contains("dram__bytes_read.sum") && metrics.contains("dram__bytes_write.sum"))
      s["dram_bytes_per_call"] = metrics["dram__bytes_read.sum"].get<double>() + metrics["dram__bytes_write.sum"].get<double>();
    out[section_label(id, section_names)] = s;
  }
  return out;
}

#if !defined(NSB_WITH_CUPTI)
std::unique_ptr<TracePass> make_trace_pass(std::string* why) {
  *why = "this nsbench was built without CUPTI (the CUDA toolkit's libcupti was not found at configure time)";
  return nullptr;
}
std::unique_ptr<CounterPass> make_counter_pass(int, std::string* why) {
  *why = "this nsbench was built without CUPTI (the CUDA toolkit's libcupti was not found at configure time)";
  return nullptr;
}
#endif

}  // namespace nsb::profile
