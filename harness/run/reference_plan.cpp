#include "run/reference_plan.hpp"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "device.hpp"
#include "host_memory.hpp"

namespace nsb {

std::string cells_text(const GridCells& c) {
  return std::to_string(c.nx) + "x" + std::to_string(c.ny) + "x" + std::to_string(c.nz);
}

std::optional<GridCells> down_scaled_cells(GridCells whole, int decomposed_axis, int ranks,
                                           const std::function<bool(const GridCells&)>& fits) {
  if (decomposed_axis != 1 && decomposed_axis != 2)
    throw std::logic_error("down_scaled_cells: the decomposed axis is y (1) or z (2)");
  int* axes[3] = {&whole.nx, &whole.ny, &whole.nz};
  for (;;) {
    bool halved = false;
    for (int a = 0; a < 3; ++a) {
      const int floor = a == decomposed_axis ? ranks * kTwinMinPlanesPerRank : kTwinMinCells;
      if (*axes[a] / 2 >= floor) *axes[a] /= 2, halved = true;
    }
    if (!halved) return std::nullopt;
    if (fits(whole)) return whole;
  }
}

ReferenceMemory reference_memory(const char* override_mib, std::uint64_t measured, const std::string& measured_source) {
  if (!override_mib) return {measured, measured_source};
  char* end = nullptr;
  errno = 0;
  const unsigned long long mib = std::strtoull(override_mib, &end, 10);
  if (end == override_mib || *end != '\0' || errno == ERANGE || mib == 0 || mib > (1ull << 40) || *override_mib == '-')
    throw std::runtime_error(std::string("NSB_REFERENCE_MEMORY_MIB=") + override_mib +
                             ": expected a whole number of MiB above 0 (the memory the one-rank reference check of a "
                             "decomposed run may use)");
  return {std::uint64_t(mib) << 20, "NSB_REFERENCE_MEMORY_MIB"};
}

ReferenceMemory reference_memory(bool gpu) {
  const char* v = std::getenv("NSB_REFERENCE_MEMORY_MIB");
  if (v) return reference_memory(v, 0, "");
  return gpu ? ReferenceMemory{device::free_bytes(), "rank 0's GPU's free memory"}
             : ReferenceMemory{host_memory_available(), "the host memory available to rank 0's process"};
}

nlohmann::json ReferencePlan::json() const {
  nlohmann::json j = {{"rule", "every axis halved together (rounding down), the decomposed axis kept at " +
                                   std::to_string(kTwinMinPlanesPerRank) + " planes a rank or more and the others at " +
                                   std::to_string(kTwinMinCells) + " cells or more, until the one-rank run fits"},
                      {"one_rank_bytes", one_rank_bytes},
                      {"memory_bytes", memory.bytes},
                      {"memory_source", memory.source}};
  if (twin_cells.nx > 0) j["twin_one_rank_bytes"] = twin_one_rank_bytes;
  if (!why_no_twin.empty()) j["why_no_twin"] = why_no_twin;
  return j;
}

}  // namespace nsb
