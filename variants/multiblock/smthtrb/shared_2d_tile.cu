// multiblock/smthtrb/shared_2d_tile (NOT in the paper): rho k, rho omega of the block's nodes and two
// around them in shared memory, then smthtrb's formula on the tile (tile.cuh says why).
#include "multiblock/tile.cuh"

namespace nsb {
namespace {

struct SmthtrbTile {
  static constexpr int kReach = 2, kValues = kMbSmthtrbValues;
  template <class T>
  __device__ static T value(const MbArrays<T>& a, std::size_t m, int q) {
    return mb_smthtrb_value(a, m, q);
  }
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t node, const MbTileAt<T>& tile, int i, int j, int n) {
    smthtrb_with(a, node, tile, i, j, n);
  }
};

const Registrar reg{mb_tile_variant<SmthtrbTile>("multiblock/smthtrb", "not in the paper: the stencil's values of a block in shared memory (docs/solvers/multiblock.md, Streaming at G4)")};

}  // namespace
}  // namespace nsb
