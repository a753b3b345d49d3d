// reduce/cub: the CUB library's device-wide TransformReduce over the interior points (a counting
// iterator mapped to (a - b)^2). CUB picks its own grid and combines partials in a fixed order.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "reduce/reduce_common.cuh"

namespace nsb {
namespace {

template <class T>
struct InteriorSquaredDifference {
  const T* a;
  const T* b;
  Grid g;
  double inv_nx, inv_ny;  // 1/nx, 1/ny: index division by multiplication (64-bit division is slow)
  __device__ static long long div_exact(long long n, int d, double inv) {
    long long q = (long long)(double(n) * inv);  // off by at most one; corrected below
    const long long r = n - q * d;
    return r < 0 ? q - 1 : (r >= d ? q + 1 : q);
  }
  __device__ double operator()(long long n) const {
    const long long row = div_exact(n, g.nx, inv_nx);
    const long long k = div_exact(row, g.ny, inv_ny);
    const int i = 1 + int(n - row * g.nx), j = 1 + int(row - k * g.ny);
    const std::size_t m = g.idx(i, j, 1 + int(k));
    return squared_difference(a[m], b ? b[m] : T(0));
  }
};

template <class T>
void run(const StageCall<T>& c) {
  const InteriorSquaredDifference<T> op{c.reduce_a, c.reduce_b, c.grid, 1.0 / c.grid.nx, 1.0 / c.grid.ny};
  const thrust::counting_iterator<long long> first(0);
  const long long n = (long long)c.grid.interior_points();
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
