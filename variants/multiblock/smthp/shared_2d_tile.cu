// multiblock/smthp/shared_2d_tile (NOT in the paper): rho, rho u, rho v, E and the pressure of the block's
// nodes and two around them in shared memory, the pressure computed once a node; then smthp's formula on
// the tile (tile.cuh says why).
#include "multiblock/tile.cuh"

namespace nsb {
namespace {

struct SmthpTile {
  static constexpr int kReach = 2, kValues = kMbSmthpValues;
  template <class T>
  __device__ static T value(const MbArrays<T>& a, std::size_t m, int q) {
    return mb_smthp_value(a, m, q);
  }
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t node, const MbTileAt<T>& tile, int i, int j, int n) {
    smthp_with(a, node, tile, i, j, n);
  }
};

const Registrar reg{mb_tile_variant<SmthpTile>("multiblock/smthp", "not in the paper: the stencil's values and pressures of a block in shared memory, once a node (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
