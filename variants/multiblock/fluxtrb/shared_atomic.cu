// multiblock/fluxtrb/shared_atomic: the four-corner scatter of fluxtrb summed in shared memory first (NOT
// in the paper; scatter_tile.cuh says how and why).
#include "multiblock/scatter_tile.cuh"

namespace nsb {
namespace {

const Registrar reg{mb_scatter_tile_variant<MbTurbulence>("multiblock/fluxtrb", "not in the paper: a block's corners summed in shared memory, global atomics on its edge nodes only (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
