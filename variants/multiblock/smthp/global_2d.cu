// multiblock/smthp/global_2d: one thread a node in 2D blocks over each fluid (or solid) block, every
// value from global memory; the block shape is the tuning (common.cuh: 32 x 4 first, the paper's).
#include "multiblock/common.cuh"

namespace nsb {
namespace {

struct Smthp {
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj, int, int i, int j, int nn) {
    smthp_point(a, n, sj, i, j, nn);
  }
};

const Registrar reg{mb_pointwise_variant<Smthp>("multiblock/smthp", "smthp/smthu, one thread a node (Fig. 22)")};

}  // namespace
}  // namespace nsb
