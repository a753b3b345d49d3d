// multiblock/stresstrb/shared_2d_tile (NOT in the paper): u, v, k and omega of the block's nodes and one
// around them in shared memory, each divided out once a node; then stresstrb's formula on their gradients
// (tile.cuh says why).
#include "multiblock/tile.cuh"

namespace nsb {
namespace {

struct StresstrbTile {
  static constexpr int kReach = 1, kValues = 4;
  template <class T>
  __device__ static T value(const MbArrays<T>& a, std::size_t m, int q) {
    return mb_ratio_at(a, m, mb_stresstrb_ratio(q));
  }
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t node, const MbTileAt<T>& tile, int, int, int) {
    stresstrb_with(a, node, mb_grad_of(a, node, tile, 0), mb_grad_of(a, node, tile, 1), mb_grad_of(a, node, tile, 2),
                   mb_grad_of(a, node, tile, 3));
  }
};

const Registrar reg{mb_tile_variant<StresstrbTile>("multiblock/stresstrb", "not in the paper: u, v, k, omega of a block in shared memory, once a node (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
