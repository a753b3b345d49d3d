// reduce/cub: the CUB library's device-wide TransformReduce over the interior (a counting iterator
// over 16-byte vectors of the interior z-levels, each mapped to the sum of (a - b)^2 over its interior
// values, as the flat path of the other reduce variants reads them). CUB picks its own grid and
// combines partials in a fixed order.
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "projection/reduce/reduce_common.cuh"

namespace nsb {
namespace {

// Vector number v (flat_interior.hpp) -> the squared differences of its interior values.
template <class T>
struct VectorSquaredDifference {
  const T* a;
  const T* b;
  FlatInterior<Vec16<T>::width> fi;
  __device__ double operator()(unsigned v) const { return vector_partial(a, b, fi, fi.first + v); }
};

template <class T>
void run(const StageCall<T>& c) {
  if (!FlatInterior<Vec16<T>::width>::fits(c.grid))
    throw std::runtime_error("reduce/cub: at most 2^32 - 1 values per field (32-bit element numbers)");
  const VectorSquaredDifference<T> op{c.reduce_a, c.reduce_b, FlatInterior<Vec16<T>::width>(c.grid)};
  const thrust::counting_iterator<unsigned> first(0);
  const unsigned n = unsigned(op.fi.last - op.fi.first);
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
    .stage = "projection/reduce",
    .name = "cub",
    .backend = Backend::cuda,
    .tags = {{"reduce", "library"}, {"memory", "global"}},
    .status = "fastest on an H200: 103.0% float, 106.5% double of the copy's read+write figure at 512^3 (a "
              "reduction only reads; experiments 8, 9)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
