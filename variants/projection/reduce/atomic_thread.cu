// reduce/atomic_thread: one atomicAdd per thread: every thread of the persistent grid adds its partial sum to the result.
// The order in which the atomics land changes from run to run, so the last bits of the sum do too.
#include "projection/reduce/reduce_common.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void atomic_thread_kernel(const T* __restrict__ a, const T* __restrict__ b, Grid g, double* out) {
  double s = thread_partial(a, b, g);
  atomicAdd(out, s);
}

template <class T>
void run(const StageCall<T>& c) {
  const int threads = c.tuning.bx;
  check_block(threads, "reduce/atomic_thread");
  NSB_CUDA(cudaMemsetAsync(c.reduce_out, 0, sizeof(double), stream_of(c.exec)));
  atomic_thread_kernel<T><<<reduce_blocks(c.grid, threads), threads, 0, stream_of(c.exec)>>>(c.reduce_a, c.reduce_b, c.grid,
                                                                                     c.reduce_out);
  NSB_LAUNCHED("atomic_thread_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/reduce",
    .name = "atomic_thread",
    .backend = Backend::cuda,
    .tags = {{"reduce", "atomic"}, {"atomic", "thread"}, {"memory", "global"}},
    .tunings = reduce_block_sizes(),
    .determinism = Determinism::order_dependent,
    .status = "negative: one atomic a thread, 38.5% float / 55.5% double of copy at 512^3 on an H200 "
              "(performance-notes: where each stage stands)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"atomic_thread_kernel<float>", (const void*)&atomic_thread_kernel<float>, 4},
                {"atomic_thread_kernel<double>", (const void*)&atomic_thread_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
