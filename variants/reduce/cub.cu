// reduce/cub: the CUB library's device-wide TransformReduce over the interior points (a counting
// iterator mapped to (a - b)^2). CUB picks its own grid and combines partials in a fixed order.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "reduce/reduce_common.cuh"

namespace nsb {
namespace {

// n / d for any 32-bit n by one multiply-high and a shift, d fixed (Granlund & Montgomery 1994): the
// index arithmetic of a float reduction is most of its instructions, and a 32-bit division is a
// long instruction sequence.
struct FastDivide {
  unsigned d = 1, magic = 0, shift = 0;
  explicit FastDivide(unsigned divisor) : d(divisor) {
    while ((1ull << shift) < d) ++shift;
    magic = unsigned(((1ull << 32) * ((1ull << shift) - d)) / d + 1);
  }
  __device__ unsigned operator()(unsigned n) const {
    return unsigned((static_cast<unsigned long long>(__umulhi(n, magic)) + n) >> shift);
  }
};

// Interior point number n (x fastest) -> its squared difference. Needs interior_points < 2^32.
template <class T>
struct InteriorSquaredDifference {
  const T* a;
  const T* b;
  Grid g;
  FastDivide by_nx, by_ny;
  __device__ double operator()(unsigned n) const {
    const unsigned row = by_nx(n), k = by_ny(row);
    const unsigned i = n - row * by_nx.d, j = row - k * by_ny.d;
    const std::size_t m = g.idx(1 + int(i), 1 + int(j), 1 + int(k));
    return squared_difference(__ldg(a + m), b ? __ldg(b + m) : T(0));
  }
};

template <class T>
void run(const StageCall<T>& c) {
  if (c.grid.interior_points() >= (1ull << 32))
    throw std::runtime_error("reduce/cub: at most 2^32 - 1 interior points (32-bit point numbers)");
  const InteriorSquaredDifference<T> op{c.reduce_a, c.reduce_b, c.grid, FastDivide(unsigned(c.grid.nx)),
                                        FastDivide(unsigned(c.grid.ny))};
  const thrust::counting_iterator<unsigned> first(0);
  const unsigned n = unsigned(c.grid.interior_points());
  std::size_t bytes = 0;
  NSB_CUDA(cub::DeviceReduce::TransformReduce(nullptr, bytes, first, c.reduce_out, n, cuda::std::plus<>{}, op, 0.0,
                                              stream_of(c.exec)));
  if (bytes > c.exec.scratch_bytes)
    throw std::runtime_error("reduce/cub: needs " + std::to_string(bytes) + " bytes of scratch, have " +
                             std::to_string(c.exec.scratch_bytes));
  NSB_CUDA(cub::DeviceReduce::TransformReduce(c.exec.scratch, bytes, first, c.reduce_out, n, cuda::std::plus<>{}, op,
                                              0.0, stream_of(c.exec)));
}

const Registrar reg{Variant{
    .stage = StageKind::reduce,
    .name = "cub",
    .backend = Backend::cuda,
    .tags = {{"reduce", "library"}, {"memory", "global"}},
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
