// The host memory a run may still allocate, so that a CPU run too large for the machine (or for the
// container's memory limit, where the kernel kills the process without a word) is refused by name
// before anything is allocated.
#pragma once

#include <cstdint>
#include <string>

namespace nsb {

// The bytes this process may still allocate: the smaller of the kernel's MemAvailable (/proc/meminfo)
// and what the cgroup's limit leaves (v2 memory.max - memory.current, v1 memory.limit_in_bytes -
// memory.usage_in_bytes). 0 where neither can be read.
std::uint64_t host_memory_available();

// The same from the given files' texts (empty: not readable), for tests.
std::uint64_t host_memory_available(const std::string& meminfo, const std::string& cgroup_limit,
                                    const std::string& cgroup_usage);

// Throws std::runtime_error "<what> needs N MiB of host memory (<detail>); M MiB are available (<source>)"
// when more than is available is asked for (nothing where the available memory is unknown).
void require_host_memory(std::uint64_t bytes, const std::string& what, const std::string& detail);

}  // namespace nsb
