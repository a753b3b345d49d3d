// One rank of a run: how the ranks talk, every rank's slab, its GPU, the halo exchange that fills its
// ghost planes. An undecomposed run is one rank of one slab.
#pragma once

#include <vector>

#include "comm.hpp"
#include "decomposition.hpp"
#include "stage.hpp"

namespace nsb {

struct HaloVariant;

// The solver fills grid and stream (its own) before it builds the halo exchange from this context.
struct RankContext {
  Communicator* comm = nullptr;
  std::vector<Slab> slabs;
  int rank = 0;
  int device = -1;                    // this rank's GPU (cuda backends)
  const HaloVariant* halo = nullptr;  // null: one rank, no exchange
  Tuning tuning;                      // the halo variant's tuning
  Grid grid;                          // this rank's grid (the solver sets it)
  void* stream = nullptr;             // the solver's compute stream (the solver sets it)
  const Slab& slab() const { return slabs[std::size_t(rank)]; }
  bool decomposed() const { return slabs.size() > 1; }
};

}  // namespace nsb
