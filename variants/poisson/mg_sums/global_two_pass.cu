// poisson/mg_sums/global_two_pass: the sum and the sum of squares of a level's interior in double, in
// a fixed order (so bitwise repeatable): blocks walk the interior points grid-stride and reduce in
// shared memory to a pair of partials each; one block then adds the partials in block order.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

constexpr int kMaxThreads = 1024;

// Tree reduction of a block's pairs in shared memory (blockDim.x a power of two); thread 0 gets them.
__device__ void block_pair_sum(double* s, double* s2, double& a, double& b) {
  s[threadIdx.x] = a, s2[threadIdx.x] = b;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half], s2[threadIdx.x] += s2[threadIdx.x + half];
    __syncthreads();
  }
  a = s[0], b = s2[0];
}

template <class T>
__global__ void partial_sums_kernel(const T* a, Grid g, long long points, double* partials) {
  __shared__ double s[kMaxThreads], s2[kMaxThreads];
  double sum = 0, squares = 0;
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < points; t += (long long)gridDim.x * blockDim.x) {
    int i, j, k;
    mg_interior_point(g, t, i, j, k);
    const double v = double(a[g.idx(i, j, k)]);
    sum += v, squares += v * v;
  }
  block_pair_sum(s, s2, sum, squares);
  if (threadIdx.x == 0) partials[2 * blockIdx.x] = sum, partials[2 * blockIdx.x + 1] = squares;
}

__global__ void final_sums_kernel(const double* partials, int blocks, double* sums) {
  __shared__ double s[kMaxThreads], s2[kMaxThreads];
  double sum = 0, squares = 0;
  for (int b = int(threadIdx.x); b < blocks; b += int(blockDim.x)) sum += partials[2 * b], squares += partials[2 * b + 1];
  block_pair_sum(s, s2, sum, squares);
  if (threadIdx.x == 0) sums[0] = sum, sums[1] = squares;
}

template <class T>
void run(const MgSumsCall<T>& c) {
  const int threads = c.tuning.bx;
  if (threads < 32 || threads > kMaxThreads || (threads & (threads - 1)) != 0)
    throw std::runtime_error("poisson/mg_sums/global_two_pass: " + std::to_string(threads) +
                             " threads a block; it needs a power of two from 32 to 1024");
  const long long points = (long long)c.grid.interior_points();
  const int blocks = int(std::min<long long>(ceil_div(points, threads), kMgSumsMaxBlocks));
  partial_sums_kernel<<<blocks, threads, 0, stream_of(c.exec)>>>(c.a, c.grid, points, c.partials);
  NSB_LAUNCHED("partial_sums_kernel");
  final_sums_kernel<<<1, threads, 0, stream_of(c.exec)>>>(c.partials, blocks, c.sums);
  NSB_LAUNCHED("final_sums_kernel");
}

const Registrar reg{Variant{
    .stage = "poisson/mg_sums",
    .name = "global_two_pass",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"reduce", "buffer"}},
    .tunings = {parse_tuning("b256"), parse_tuning("b512")},
    .status = "deterministic two-pass reduction (block partials in a buffer, then one block)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"partial_sums_kernel<float>", (const void*)&partial_sums_kernel<float>, 4},
                {"partial_sums_kernel<double>", (const void*)&partial_sums_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
