// What a decomposed run's reference check runs against (issue 42: "a run too large for one GPU checks against a
// down-scaled run instead, and says so"). The reference of a decomposed run is the same recipe on one rank, in
// rank 0's process: on its GPU, or on the host for CPU ranks. Where that one-rank run of the whole grid does not
// fit the memory one process may use, the check runs the same recipe on the same ranks on a down-scaled grid (the
// twin) and compares the twin's decomposed run with the twin's one-rank run: the decomposition (slabs, halo
// exchanges, the solver's own messages) is checked, at a resolution one process can hold.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decomposition.hpp"
#include "solver.hpp"

namespace nsb {

// Interior cells along x, y and z.
struct GridCells {
  int nx = 0, ny = 0, nz = 0;
  bool operator==(const GridCells&) const = default;
};
std::string cells_text(const GridCells& c);  // "256x128x256", as --grid writes it

// The down-scaling rule's floors: the decomposed axis keeps at least kTwinMinPlanesPerRank planes a rank (so
// that every rank's slab has planes of its own besides the ones its exchanges fill), another axis at least
// kTwinMinCells cells. An axis already below its floor is left as it is.
inline constexpr int kTwinMinPlanesPerRank = 2;
inline constexpr int kTwinMinCells = 8;

// The down-scaling rule: each round halves (rounding down) every axis whose half stays at or above its floor,
// until `fits` accepts the grid. Every axis halves together, so the twin keeps the grid's shape (the same flow at
// a coarser resolution; a case whose cells must keep an aspect ratio still accepts it). decomposed_axis: 1 (y-slabs)
// or 2 (z-slabs). nullopt when no axis can be halved any more and the grid still does not fit.
std::optional<GridCells> down_scaled_cells(GridCells whole, int decomposed_axis, int ranks,
                                           const std::function<bool(const GridCells&)>& fits);

// The memory one process may use for the one-rank reference, and where that figure came from.
struct ReferenceMemory {
  std::uint64_t bytes = 0;  // 0: unknown
  std::string source;
};

// NSB_REFERENCE_MEMORY_MIB, where set (a whole number of MiB: tests force the down-scaled check with a small one;
// a user may leave room for other processes on the node), else rank 0's GPU's free memory (gpu), else the host
// memory this process may still allocate (host_memory.hpp). Throws naming the variable when its value is no number.
ReferenceMemory reference_memory(bool gpu);
ReferenceMemory reference_memory(const char* override_mib, std::uint64_t measured, const std::string& measured_source);

// THE decision, in one place: a decomposed run's reference is its one-rank run of the whole grid when that run's
// arrays (one_rank_bytes) fit the memory one process may use for it; else a down-scaled twin. Where the memory is
// unknown (0) the whole-grid reference is tried, as before the twin existed: its failure is reported, not hidden.
inline bool reference_needs_twin(std::uint64_t one_rank_bytes, const ReferenceMemory& memory) {
  return memory.bytes > 0 && one_rank_bytes > memory.bytes;
}

// A decomposed run's reference, planned before the run (run/ranks.cpp plan_reference): rank 0 decides, every
// rank learns the twin's grid (all of them run it).
struct ReferencePlan {
  bool down_scaled = false;                // the check runs on a twin, not on the whole grid
  GridCells twin_cells;                    // the twin's grid (nx = 0: no grid the rule allows fits)
  std::uint64_t one_rank_bytes = 0;        // the whole grid's one-rank reference (rank 0's figure)
  std::uint64_t twin_one_rank_bytes = 0;   // the twin's
  ReferenceMemory memory;                  // what it was measured against (rank 0's)
  std::shared_ptr<const Problem> twin;     // the twin case; null where none could be made (why_no_twin)
  std::vector<Slab> twin_slabs;            // its slabs over the run's ranks
  std::string why_no_twin;
  // checks.reference.down_scaled: the rule, the bytes and the memory that made the decision.
  nlohmann::json json() const;
};

}  // namespace nsb
