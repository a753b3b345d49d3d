#include "host_memory.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nsb {

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

// A cgroup file's one number ("max", no limit, and unreadable files: 0).
std::uint64_t cgroup_number(const std::string& text) {
  std::istringstream in(text);
  std::uint64_t v = 0;
  return in >> v ? v : 0;
}

std::uint64_t meminfo_available(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace

std::uint64_t host_memory_available(const std::string& meminfo, const std::string& cgroup_limit,
                                    const std::string& cgroup_usage) {
  const std::uint64_t kernel = meminfo_available(meminfo);
  const std::uint64_t limit = cgroup_number(cgroup_limit), usage = cgroup_number(cgroup_usage);
  // cgroup v1 writes "no limit" as a number near 2^63.
  const bool limited = limit > 0 && limit < (std::uint64_t(1) << 60);
  const std::uint64_t cgroup_left = !limited ? 0 : limit > usage ? limit - usage : 1;
  if (kernel == 0) return cgroup_left;
  return cgroup_left == 0 ? kernel : std::min(kernel, cgroup_left);
}

std::uint64_t host_memory_available() {
  const std::string meminfo = file_text("/proc/meminfo");
  std::string limit = file_text("/sys/fs/cgroup/memory.max"), usage = file_text("/sys/fs/cgroup/memory.current");
  if (limit.empty()) {
    limit = file_text("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    usage = file_text("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  return host_memory_available(meminfo, limit, usage);
}

void require_host_memory(std::uint64_t bytes, const std::string& what, const std::string& detail) {
  const std::uint64_t available = host_memory_available();
  if (available == 0 || bytes <= available) return;
  throw std::runtime_error(what + " needs at least " + std::to_string(bytes >> 20) + " MiB of host memory (" + detail +
                           "); " + std::to_string(available >> 20) +
                           " MiB are available (MemAvailable, or the cgroup's limit less its usage)");
}

}  // namespace nsb
