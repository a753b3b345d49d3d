// `nsbench bandwidth`: the thesis's Table A.1 (host <-> device, pageable and pinned) measured again,
// plus device-to-device and peer-to-peer (uni- and bidirectional) over message sizes, and the
// small-message latency: the link numbers the multi-GPU scaling model is built from.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nsb {

struct BandwidthOptions {
  int samples = 20;
  int warmup = 3;
  std::size_t max_bytes = std::size_t(256) << 20;
  std::string json_path;
  bool overwrite = false;       // --force: json_path may replace an existing file
  std::string command_line;
};

nlohmann::json measure_bandwidth(const BandwidthOptions& o);

}  // namespace nsb
