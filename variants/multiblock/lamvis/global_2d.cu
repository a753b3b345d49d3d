// multiblock/lamvis/global_2d: one thread a node in 2D blocks over each fluid (or solid) block, every
// value from global memory; the block shape is the tuning (common.cuh: 32 x 4 first, the paper's).
#include "multiblock/common.cuh"

namespace nsb {
namespace {

struct Lamvis {
  template <class T>
  __device__ static void at(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t, int, int, int, int) {
    lamvis_point(a, n);
  }
};

const Registrar reg{mb_pointwise_variant<Lamvis>("multiblock/lamvis", "the paper's kernel: one thread a node in 32 x 4 blocks (Sec. II.B); 1 x 128 is its non-coalesced launch (Fig. 3)")};

}  // namespace
}  // namespace nsb
