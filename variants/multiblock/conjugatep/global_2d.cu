// multiblock/conjugatep/global_2d: one thread a node in 2D blocks over each fluid (or solid) block, every
// value from global memory; the block shape is the tuning (common.cuh: 32 x 4 first, the paper's).
#include "multiblock/common.cuh"

namespace nsb {
namespace {

struct Conjugatep {
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj, int, int, int, int) {
    conjugatep_point(a, n, sj);
  }
};

const Registrar reg{mb_pointwise_variant<Conjugatep>("multiblock/conjugatep", "solid heat conduction, one thread a node (the paper's conjugatep, Fig. 24)")};

}  // namespace
}  // namespace nsb
