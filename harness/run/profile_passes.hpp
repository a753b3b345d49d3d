// `nsbench run --profile`: the CUPTI trace and counter passes after the timed steps (profile.hpp), and
// the per-section report that puts their kernel times and DRAM bytes next to the timing pass.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "profile.hpp"
#include "solver.hpp"

namespace nsb {

using json = nlohmann::json;

// The trace pass over `steps` steps, then the counter pass over one step (every kernel replayed once
// per counter pass CUPTI needs: slow, so one step). A pass that cannot run says why.
template <class T>
json profile_passes(Solver<T>& solver, int steps, int device, const std::vector<std::string>& section_names) {
  json out;
  std::string why;
  // A pass that fails midway is reported, never allowed to cost the run's timings and checks.
  if (std::unique_ptr<profile::TracePass> trace = profile::make_trace_pass(&why)) {
    try {
      solver.set_timer(trace.get());
      for (int s = 0; s < steps; ++s) solver.step();
      solver.set_timer(nullptr);
      out["trace"] = {{"performed", true}, {"steps", steps}, {"sections", profile::summarize_trace(trace->finish(), section_names)}};
    } catch (const std::exception& e) {
      solver.set_timer(nullptr);
      out["trace"] = {{"performed", false}, {"reason", e.what()}};
    }
  } else {
    out["trace"] = {{"performed", false}, {"reason", why}};
  }
  if (std::unique_ptr<profile::CounterPass> counters = profile::make_counter_pass(device, &why)) {
    try {
      solver.set_timer(counters.get());
      solver.step();
      solver.set_timer(nullptr);
      out["counters"] = {{"performed", true}, {"steps", 1}, {"metrics", profile::counter_metrics()},
                         {"replay", "kernel replay, one range per kernel, summed per section call"},
                         {"sections", profile::summarize_counters(counters->finish(), section_names)}};
    } catch (const std::exception& e) {
      solver.set_timer(nullptr);
      out["counters"] = {{"performed", false}, {"reason", e.what()}};
    }
  } else {
    out["counters"] = {{"performed", false}, {"reason", why}};
  }
  if (!out["counters"]["performed"].get<bool>())
    std::fprintf(stderr, "nsbench: hardware counters not collected: %s\n", out["counters"]["reason"].get<std::string>().c_str());
  return out;
}

// A stage whose DRAM traffic is under this fraction of its byte model read its data from the L2: a grid that
// fits the cache (the H200's 60 MB L2 holds a 64x8x64 cavity whole), whose DRAM bytes say nothing of the model.
inline constexpr double kStayedInL2Fraction = 0.1;

// Per stage: event-timed call (timing pass) vs the sum of its kernels (trace pass), and DRAM bytes
// (counter pass) vs the variant's byte model.
inline json profile_report(json profiled, const json& stages) {
  json per_stage = json::object();
  for (auto& [name, st] : stages.items()) {
    if (!st.contains("per_call")) continue;
    json row = {{"variant", st["variant"]}, {"tuning", st["tuning"]},
                {"event_median_s", st["per_call"]["median"]}, {"model_bytes", st["model"]["bytes"]}};
    const json& tr = profiled["trace"];
    if (tr["performed"].get<bool>() && tr["sections"].contains(name)) {
      const double k = tr["sections"][name]["kernel_time_per_call"]["median_s"].get<double>();
      const double e = st["per_call"]["median"].get<double>();
      row["kernel_median_s"] = k;
      row["kernels_per_call"] = tr["sections"][name]["kernels_per_call"];
      row["gap_s"] = e - k;
      row["gap_fraction"] = e > 0 ? (e - k) / e : 0.0;
    }
    const json& ct = profiled["counters"];
    if (ct["performed"].get<bool>() && ct["sections"].contains(name) && ct["sections"][name].contains("dram_bytes_per_call")) {
      const json& c = ct["sections"][name];
      const double dram = c["dram_bytes_per_call"].get<double>(), model = st["model"]["bytes"].get<double>();
      row["dram_bytes"] = dram;
      row["dram_over_model"] = model > 0 ? dram / model : 0.0;
      row["stayed_in_l2"] = model > 0 && dram < kStayedInL2Fraction * model;
      const json& m = c["median_per_call"];
      for (const char* key : {"lts__t_sector_hit_rate.pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                              "dram__throughput.avg.pct_of_peak_sustained_elapsed"})
        if (m.contains(key)) row[key] = m[key];
    }
    per_stage[name] = row;
  }
  profiled["stages"] = per_stage;
  profiled["method"] = "separate passes after the timed steps and the state saved for the check: CUPTI activity "
                       "trace (kernels tagged with their solver section by external correlation ids), then the CUPTI "
                       "range profiler with kernel replay; event times are those of the timing pass";
  return profiled;
}

}  // namespace nsb
