// multiblock/deltatp/global_2d: one thread a node in 2D blocks over each fluid (or solid) block, every
// value from global memory; the block shape is the tuning (common.cuh: 32 x 4 first, the paper's).
#include "multiblock/common.cuh"

namespace nsb {
namespace {

struct Deltatp {
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t, int, int, int, int) {
    deltatp_point(a, n);
  }
};

const Registrar reg{mb_pointwise_variant<Deltatp>("multiblock/deltatp", "local time step, one thread a node (Fig. 17; its min-reduction is multiblock/dtmin)")};

}  // namespace
}  // namespace nsb
