// Where each rank runs (placement.hpp says why a GPU is named by host and PCI bus id, not by index).
#include "placement.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <set>

#include <sys/resource.h>

#include "device.hpp"
#include "mpi_driver.hpp"

namespace nsb {
namespace {

// A placement as fixed-size bytes: Communicator::allgather moves the same byte count from every rank.
struct PackedPlacement {
  char host[128];
  char gpu[192];
  int device;
  std::uint64_t peak_host_bytes;
};

std::uint64_t peak_resident_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return std::uint64_t(u.ru_maxrss) * 1024;  // Linux: kilobytes
}

void copy_truncated(char* dst, std::size_t capacity, const std::string& s) {
  std::snprintf(dst, capacity, "%s", s.c_str());
}

}  // namespace

std::string kernel_hostname() {
  char host[256] = {0};
  if (FILE* f = std::fopen("/proc/sys/kernel/hostname", "r")) {
    if (std::fgets(host, sizeof host, f)) host[std::strcspn(host, "\n")] = 0;
    std::fclose(f);
  }
  return host;
}

std::string this_host() {
  const int node = mpi::emulated_node();
  return node < 0 ? kernel_hostname() : kernel_hostname() + "~node" + std::to_string(node);
}

std::string physical_gpu(int device) {
  if (device < 0) return "";
  return this_host() + "/" + device::properties(device).pci_bus_id;
}

std::vector<RankPlacement> gather_placements(Communicator& comm, int device) {
  PackedPlacement mine{};
  copy_truncated(mine.host, sizeof mine.host, this_host());
  copy_truncated(mine.gpu, sizeof mine.gpu, physical_gpu(device));
  mine.device = device;
  mine.peak_host_bytes = peak_resident_bytes();
  std::vector<RankPlacement> all;
  for (const PackedPlacement& p : comm.allgather_value(mine)) all.push_back({p.host, p.device, p.gpu, p.peak_host_bytes});
  return all;
}

std::pair<int, int> ranks_sharing_a_gpu(const std::vector<RankPlacement>& placements) {
  for (std::size_t r = 1; r < placements.size(); ++r)
    for (std::size_t q = 0; q < r; ++q)
      if (!placements[r].gpu.empty() && placements[r].gpu == placements[q].gpu) return {int(q), int(r)};
  return {-1, -1};
}

int host_count(const std::vector<RankPlacement>& placements) {
  std::set<std::string> hosts;
  for (const RankPlacement& p : placements) hosts.insert(p.host);
  return int(hosts.size());
}

std::vector<std::string> gpu_labels(const std::vector<RankPlacement>& placements) {
  const bool several_hosts = host_count(placements) > 1;
  std::vector<std::string> labels;
  std::map<std::string, std::string> gpu_of_label;  // a label and the physical GPU it first named
  bool ambiguous = false;
  for (const RankPlacement& p : placements) {
    const std::string label =
        p.device < 0 ? "" : (several_hosts ? p.host + "/" : "") + "gpu" + std::to_string(p.device);
    const auto [first, fresh] = gpu_of_label.emplace(label, p.gpu);
    ambiguous = ambiguous || (!fresh && !label.empty() && first->second != p.gpu);
    labels.push_back(label);
  }
  if (ambiguous)
    for (std::size_t r = 0; r < placements.size(); ++r)
      if (placements[r].device >= 0 && !placements[r].gpu.empty()) labels[r] = placements[r].gpu;
  return labels;
}

}  // namespace nsb
