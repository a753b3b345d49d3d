// A case whose z planes go to ranks its own way, not as decompose_z's even slabs (the multiblock solver:
// a block a plane, the paper's blocks per rank). Its Problem also derives from this; the run's drivers ask.
// Its solver exchanges between its ranks itself: such a run has no halo variant (--halo is refused).
#pragma once

#include <vector>

#include "decomposition.hpp"

namespace nsb {

struct SlabAssigner {
  virtual ~SlabAssigner() = default;
  // Every rank's slab (contiguous, in rank order, covering every interior plane once).
  virtual std::vector<Slab> assign_slabs(int ranks) const = 0;
};

}  // namespace nsb
