// multiblock/update/global_2d: one thread a node in 2D blocks over each fluid (or solid) block, every
// value from global memory; the block shape is the tuning (common.cuh: 32 x 4 first, the paper's).
#include "multiblock/common.cuh"

namespace nsb {
namespace {

struct Update {
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t, int b, int, int, int) {
    update_point(a, n, mb_is_fluid(b));
  }
};

const Registrar reg{mb_pointwise_variant<Update>("multiblock/update", "the nodes' update (the solver's, not one of the paper's nine routines)")};

}  // namespace
}  // namespace nsb
