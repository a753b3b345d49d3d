#include "bandwidth.hpp"

#include <omp.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "device.hpp"
#include "run.hpp"
#include "stats.hpp"

namespace nsb {

using nlohmann::json;

namespace {

// The CPU's STREAM copy and triad on one core and on every core (the machine block measured them).
json cpu_rows(const json& machine) {
  json rows = json::array();
  std::printf("%-14s %8s %12s %12s %12s %12s\n", "cpu kernel", "threads", "array MiB", "median GB/s", "min GB/s",
              "max GB/s");
  for (const json& t : machine["cpu"]["bandwidth"]["by_threads"]) {
    for (const char* kernel : {"copy", "triad"}) {
      const json& k = t[kernel];
      const double bytes = k["bytes_per_pass"].get<double>();
      rows.push_back({{"kernel", kernel}, {"threads", t["threads"]}, {"array_bytes", t["array_bytes"]},
                      {"bytes_per_pass", bytes}, {"median_s", k["median_s"]}, {"q1_s", k["q1_s"]},
                      {"q3_s", k["q3_s"]}, {"min_s", k["min_s"]}, {"max_s", k["max_s"]},
                      {"bytes_per_second", k["bytes_per_second"]}});
      std::printf("%-14s %8d %12.0f %12.2f %12.2f %12.2f\n", kernel, t["threads"].get<int>(),
                  t["array_bytes"].get<double>() / (1 << 20), k["bytes_per_second"].get<double>() * 1e-9,
                  bytes / k["max_s"].get<double>() * 1e-9, bytes / k["min_s"].get<double>() * 1e-9);
    }
  }
  return rows;
}

// The CPU's FP64 rate beside its bandwidth, on one core and on every core (the machine block measured it).
void print_cpu_fp64(const json& machine) {
  std::printf("%-14s %8s %12s %12s %12s  %s\n", "cpu fp64", "threads", "median GF/s", "min GF/s", "max GF/s",
              "instruction");
  for (const json& t : machine["cpu"]["bandwidth"]["by_threads"]) {
    const json& f = t["fp64"];
    const double flops = f["flops_per_pass"].get<double>();
    std::printf("%-14s %8d %12.1f %12.1f %12.1f  %s\n", "fp64", t["threads"].get<int>(),
                f["flops_per_second"].get<double>() * 1e-9, flops / f["max_s"].get<double>() * 1e-9,
                flops / f["min_s"].get<double>() * 1e-9, f["instruction"].get<std::string>().c_str());
  }
}

// Every transfer kind at every size, timed and printed; what this machine cannot measure goes to `skipped`
// (no GPU: every transfer; one GPU: the peer-to-peer ones).
json gpu_transfer_rows(const BandwidthOptions& o, json& skipped) {
  if (device::count() == 0) {
    skipped.push_back("every GPU transfer: " + device::unavailable_reason());
    std::printf("GPU transfers: none measured (%s)\n", device::unavailable_reason().c_str());
    return json::array();
  }
  std::vector<device::Transfer> kinds = {device::Transfer::h2d_pageable, device::Transfer::d2h_pageable,
                                         device::Transfer::h2d_pinned,   device::Transfer::d2h_pinned,
                                         device::Transfer::d2d};
  if (device::count() >= 2) {
    kinds.push_back(device::Transfer::p2p_uni);
    kinds.push_back(device::Transfer::p2p_bidir);
  } else {
    skipped.push_back("p2p_uni and p2p_bidir: one GPU only");
  }
  std::vector<std::size_t> sizes;
  for (std::size_t b = 8; b <= o.max_bytes; b *= 4) sizes.push_back(b);
  if (sizes.back() != o.max_bytes) sizes.push_back(o.max_bytes);
  json rows = json::array();
  std::printf("%-14s %12s %12s %12s %12s\n", "transfer", "bytes", "median us", "GB/s", "IQR us");
  for (device::Transfer t : kinds) {
    for (std::size_t b : sizes) {
      const std::vector<double> s = device::time_transfer(t, b, o.samples, o.warmup);
      const Summary m = summarize(s);
      const double moved = double(b) * (t == device::Transfer::p2p_bidir ? 2 : 1);
      rows.push_back({{"transfer", device::transfer_name(t)}, {"bytes", b}, {"bytes_moved", moved},
                      {"median_s", m.median}, {"q1_s", m.q1}, {"q3_s", m.q3}, {"min_s", m.min}, {"max_s", m.max},
                      {"bytes_per_second", moved / m.median}, {"raw_seconds", s}});
      std::printf("%-14s %12zu %12.3f %12.2f %12.3f\n", device::transfer_name(t), b, m.median * 1e6,
                  moved / m.median * 1e-9, m.iqr * 1e6);
    }
  }
  return rows;
}

}  // namespace

json measure_bandwidth(const BandwidthOptions& o) {
  if (o.samples < 3) throw std::runtime_error("--samples must be at least 3 (median and spread)");
  if (o.max_bytes < (std::size_t(1) << 20)) throw std::runtime_error("--max-mib must be at least 1");
  // The bandwidth command is the measurement itself: the CPU's is taken afresh (and kept for the runs to come,
  // cpu_bandwidth.cpp), unless the user chose otherwise.
  if (!std::getenv("NSB_CPU_BANDWIDTH_CACHE")) ::setenv("NSB_CPU_BANDWIDTH_CACHE", "refresh", 1);
  json result = {{"schema", "nsbench.bandwidth/1"}, {"timestamp", now_utc()}, {"command_line", o.command_line},
                 {"machine", machine_metadata(omp_get_num_procs())}, {"build", build_metadata()},
                 {"method", "CUDA events around each transfer on a non-blocking stream; bytes counted once per "
                            "direction (bidirectional: both directions); median of the samples. CPU: see "
                            "machine.cpu.bandwidth.method"}};
  result["cpu_rows"] = cpu_rows(result["machine"]);
  print_cpu_fp64(result["machine"]);
  json skipped = json::array();
  if (device::count() >= 2) result["peer_access"] = device::peer_access_possible(0, 1);
  result["rows"] = gpu_transfer_rows(o, skipped);
  result["skipped"] = skipped;
  if (!o.json_path.empty()) write_json(o.json_path, result, o.overwrite);  // one write, --force or not
  return result;
}

}  // namespace nsb
