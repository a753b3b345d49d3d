// reduce/atomic_warp: one atomicAdd per warp: partials combined by shuffles, lane 0 adds.
// The order in which the atomics land changes from run to run, so the last bits of the sum do too.
#include "projection/reduce/reduce_common.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void atomic_warp_kernel(const T* __restrict__ a, const T* __restrict__ b, Grid g, double* out) {
  double s = thread_partial(a, b, g);
  s = warp_sum(s);
  if (threadIdx.x % 32 == 0) atomicAdd(out, s);
}

template <class T>
void run(const StageCall<T>& c) {
  const int threads = c.tuning.bx;
  check_block(threads, "reduce/atomic_warp");
  NSB_CUDA(cudaMemsetAsync(c.reduce_out, 0, sizeof(double), stream_of(c.exec)));
  atomic_warp_kernel<T><<<reduce_blocks(c.grid, threads), threads, 0, stream_of(c.exec)>>>(c.reduce_a, c.reduce_b, c.grid,
                                                                                     c.reduce_out);
  NSB_LAUNCHED("atomic_warp_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/reduce",
    .name = "atomic_warp",
    .backend = Backend::cuda,
    .tags = {{"reduce", "atomic"}, {"atomic", "warp"}, {"memory", "global"}},
    .tunings = reduce_block_sizes(),
    .determinism = Determinism::order_dependent,
    .status = "study axis: one atomic a warp, order-dependent sums (no measurement in docs/performance-notes.md)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"atomic_warp_kernel<float>", (const void*)&atomic_warp_kernel<float>, 4},
                {"atomic_warp_kernel<double>", (const void*)&atomic_warp_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
