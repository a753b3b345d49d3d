// The two reductions of the loop (dtmin: min of dt; resmax: max of |res_rho| / vol), each in the two
// ways of Kemal et al. 2015 Sec. IV.B (Fig. 4):
//   tree         Harris's "Optimizing Parallel Reduction in CUDA", as the paper followed it: the nodes of
//                the listed blocks as one 1D array, each thread combining two values as it loads them
//                (half as many threads as values), a shared-memory tree with the last warp by shuffles,
//                one partial per thread block, a second one-block pass over the partials, one value back
//   host_search  the paper's baseline: the whole arrays of the listed blocks copied to the host (pageable,
//                synchronous), searched there
// min and max are exact in any order, so both are deterministic and equal the CPU bit for bit.
#pragma once

#include <iterator>
#include <limits>
#include <vector>

#include "multiblock/common.cuh"

namespace nsb {

struct MbDtMin {
  static constexpr bool kMin = true;
  template <class T>
  __host__ __device__ static T value(const MbArrays<T>& a, std::size_t n) { return a.f[kDt][n]; }
  static constexpr int kFields[] = {kDt};
};
struct MbResMax {
  static constexpr bool kMin = false;
  template <class T>
  __host__ __device__ static T value(const MbArrays<T>& a, std::size_t n) { return resmax_point(a, n); }
  static constexpr int kFields[] = {kRes0, kVol};
};

template <class R, class T>
__host__ __device__ inline T mb_combine(T x, T y) {
  if (y != y) return y;  // NaN wins: a blown-up state shows in its residual
  if constexpr (R::kMin) return y < x ? y : x;
  else return x < y ? y : x;
}
template <class R, class T>
__host__ __device__ inline T mb_identity() {
  return R::kMin ? std::numeric_limits<T>::infinity() : T(0);
}

struct MbBlockList {
  int blocks[kMbBlocks];
  int nblocks;
};

// Block-wide combine of one value per thread (blockDim.x a power of two, >= 64); thread 0 gets the result.
template <class R, class T>
__device__ inline T mb_block_combine(T v, T* shared) {
  const unsigned t = threadIdx.x;
  shared[t] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s >= 32; s >>= 1) {
    if (t < s) shared[t] = v = mb_combine<R>(v, shared[t + s]);
    __syncthreads();
  }
  if (t < 32)
    for (int s = 16; s > 0; s >>= 1) v = mb_combine<R>(v, __shfl_down_sync(0xffffffffu, v, s));
  return v;
}

template <class R, class T>
__global__ void mb_reduce_pass1(MbArrays<T> a, Grid g, MbBlockList list, long long total, double* partials) {
  extern __shared__ __align__(16) unsigned char mb_reduce_shared[];
  T* shared = reinterpret_cast<T*>(mb_reduce_shared);
  const long long per_block = (long long)g.nx * g.nx;
  auto at = [&](long long m) {
    if (m >= total) return mb_identity<R, T>();
    const int q = int(m / per_block);
    const long long r = m % per_block;
    return R::value(a, mb_idx(g, list.blocks[q], 1 + int(r % g.nx), 1 + int(r / g.nx)));
  };
  const long long m = (long long)blockIdx.x * 2 * blockDim.x + threadIdx.x;
  const T v = mb_block_combine<R>(mb_combine<R>(at(m), at(m + blockDim.x)), shared);
  if (threadIdx.x == 0) partials[blockIdx.x] = double(v);
}

template <class R>
__global__ void mb_reduce_pass2(const double* partials, int count, double* result) {
  extern __shared__ __align__(16) unsigned char mb_reduce_shared[];
  double* shared = reinterpret_cast<double*>(mb_reduce_shared);
  double v = mb_identity<R, double>();
  for (int m = int(threadIdx.x); m < count; m += int(blockDim.x)) v = mb_combine<R>(v, partials[m]);
  v = mb_block_combine<R>(v, shared);
  if (threadIdx.x == 0) *result = v;
}

template <class R, class T>
void mb_reduce_tree(const MbCall<T>& c) {
  const int threads = c.tuning.bx;
  if (threads < 64 || threads > 1024 || (threads & (threads - 1)))
    throw std::runtime_error("multiblock tree reduction: bx must be a power of two in 64..1024");
  MbBlockList list{};
  for (int q = 0; q < c.nblocks; ++q) list.blocks[q] = c.blocks[q];
  list.nblocks = c.nblocks;
  const long long total = (long long)c.nblocks * c.grid.nx * c.grid.nx;
  const long long ctas = (total + 2LL * threads - 1) / (2LL * threads);
  auto* partials = static_cast<double*>(c.exec.scratch);
  if (!partials || std::size_t(ctas + 1) * sizeof(double) > c.exec.scratch_bytes)
    throw std::runtime_error("multiblock tree reduction: too little scratch for " + std::to_string(ctas) + " partials");
  double* result = partials + ctas;
  if (ctas > 0) {
    mb_reduce_pass1<R, T><<<unsigned(ctas), threads, threads * sizeof(T), stream_of(c.exec)>>>(c.a, c.grid, list, total, partials);
    NSB_LAUNCHED("mb_reduce_pass1");
  }
  mb_reduce_pass2<R><<<1, 1024, 1024 * sizeof(double), stream_of(c.exec)>>>(partials, int(ctas), result);
  NSB_LAUNCHED("mb_reduce_pass2");
  NSB_CUDA(cudaMemcpyAsync(c.scalar, result, sizeof(double), cudaMemcpyDeviceToHost, stream_of(c.exec)));
  NSB_CUDA(cudaStreamSynchronize(stream_of(c.exec)));
}

template <class R, class T>
void mb_reduce_host_search(const MbCall<T>& c) {
  const std::size_t plane = std::size_t(c.grid.NX()) * c.grid.NY(), padded = c.grid.padded_points();
  thread_local std::vector<T> host;  // a rank's own (threads driver): whole padded arrays, the listed blocks filled
  host.resize(padded * std::size(R::kFields));
  MbArrays<T> view{};
  for (std::size_t f = 0; f < std::size(R::kFields); ++f) view.f[R::kFields[f]] = host.data() + f * padded;
  for (int q = 0; q < c.nblocks; ++q) {
    const std::size_t first = mb_idx(c.grid, c.blocks[q], 0, 0);
    for (int field : R::kFields)
      NSB_CUDA(cudaMemcpyAsync(view.f[field] + first, c.a.f[field] + first, plane * sizeof(T), cudaMemcpyDeviceToHost,
                               stream_of(c.exec)));
  }
  NSB_CUDA(cudaStreamSynchronize(stream_of(c.exec)));
  T best = mb_identity<R, T>();
  for (int q = 0; q < c.nblocks; ++q)
    for (int j = 1; j <= c.grid.nx; ++j)
      for (int i = 1; i <= c.grid.nx; ++i) best = mb_combine<R>(best, R::value(view, mb_idx(c.grid, c.blocks[q], i, j)));
  *c.scalar = double(best);
}

template <class R, bool Tree>
Variant mb_reduce_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = Tree ? "tree" : "host_search";
  v.backend = Backend::cuda;
  v.tags = {{"memory", Tree ? "shared" : "global"}, {"reduce", v.name}};
  v.tunings = Tree ? tunings_2d({{256, 1}, {128, 1}, {512, 1}}, 0) : std::vector<Tuning>{};
  v.status = status;
  v.synchronizes = true;
  if constexpr (Tree) {
    v.run_float = StageFn(&mb_reduce_tree<R, float>);
    v.run_double = StageFn(&mb_reduce_tree<R, double>);
    v.kernels = {{"mb_reduce_pass1<float>", (const void*)&mb_reduce_pass1<R, float>, 4},
                 {"mb_reduce_pass1<double>", (const void*)&mb_reduce_pass1<R, double>, 8}};
  } else {
    v.run_float = StageFn(&mb_reduce_host_search<R, float>);
    v.run_double = StageFn(&mb_reduce_host_search<R, double>);
  }
  return v;
}

}  // namespace nsb
