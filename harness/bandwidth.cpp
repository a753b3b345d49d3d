#include "bandwidth.hpp"

#include <cstdio>
#include <stdexcept>

#include "device.hpp"
#include "run.hpp"
#include "stats.hpp"

namespace nsb {

using nlohmann::json;

json measure_bandwidth(const BandwidthOptions& o) {
  if (device::count() == 0) throw std::runtime_error("nsbench bandwidth: " + device::unavailable_reason());
  if (o.samples < 3) throw std::runtime_error("--samples must be at least 3 (median and spread)");
  if (o.max_bytes < (std::size_t(1) << 20)) throw std::runtime_error("--max-mib must be at least 1");
  std::vector<device::Transfer> kinds = {device::Transfer::h2d_pageable, device::Transfer::d2h_pageable,
                                         device::Transfer::h2d_pinned,   device::Transfer::d2h_pinned,
                                         device::Transfer::d2d};
  json skipped = json::array();
  if (device::count() >= 2) {
    kinds.push_back(device::Transfer::p2p_uni);
    kinds.push_back(device::Transfer::p2p_bidir);
  } else {
    skipped.push_back("p2p_uni and p2p_bidir: one GPU only");
  }
  std::vector<std::size_t> sizes;
  for (std::size_t b = 8; b <= o.max_bytes; b *= 4) sizes.push_back(b);
  if (sizes.back() != o.max_bytes) sizes.push_back(o.max_bytes);

  json result = {{"schema", "nsbench.bandwidth/1"}, {"timestamp", now_utc()}, {"command_line", o.command_line},
                 {"machine", machine_metadata(1)}, {"build", build_metadata()},
                 {"method", "CUDA events around each transfer on a non-blocking stream; bytes counted once per "
                            "direction (bidirectional: both directions); median of the samples"},
                 {"skipped", skipped}};
  if (device::count() >= 2) result["peer_access"] = device::peer_access_possible(0, 1);
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
  result["rows"] = rows;
  if (!o.json_path.empty()) write_json(o.json_path, result, o.overwrite);
  return result;
}

}  // namespace nsb
