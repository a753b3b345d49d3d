// multiblock/flux/shared_atomic: the four-corner scatter of flux summed in shared memory first (NOT in the
// paper; scatter_tile.cuh says how and why).
#include "multiblock/scatter_tile.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_tile_variant<MbMeanFlow>("multiblock/flux", "not in the paper: a block's corners summed in shared memory, global atomics on its edge nodes only (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
