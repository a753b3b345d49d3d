// multiblock/stressp/shared_2d_tile (NOT in the paper): u, v and h of the block's nodes and one around them
// in shared memory, each divided out once a node; then stressp's formula on their gradients (tile.cuh says
// why).
#include "multiblock/tile.cuh"

namespace nsb {
namespace {

struct StresspTile {
  static constexpr int kReach = 1, kValues = 3;
  template <class T>
  __device__ static T value(const MbArrays<T>& a, std::size_t m, int q) {
    return mb_ratio_at(a, m, mb_stressp_ratio(q));
  }
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t node, const MbTileAt<T>& tile, int, int, int) {
    stressp_with(a, node, mb_grad_of(a, node, tile, 0), mb_grad_of(a, node, tile, 1), mb_grad_of(a, node, tile, 2));
  }
};

const Registrar reg{mb_tile_variant<StresspTile>("multiblock/stressp", "not in the paper: u, v, h of a block in shared memory, once a node (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
