// Building blocks of the reduce variants: a thread's partial sum over the interior, and warp / block
// combination. The variants differ in how partials meet: atomics (per thread, per warp, per block)
// or a buffer of per-block partials summed by a second pass in a fixed order.
#pragma once

#include "common/traversals.cuh"
#include "projection/stage_call.hpp"
#include "flat_interior.hpp"
#include "projection/point_formulas.hpp"

namespace nsb {

// 16 bytes of T, loaded with one instruction.
template <class T>
struct Vec16 {
  static constexpr int width = 16 / int(sizeof(T));
  alignas(16) T v[width];
};
template <class T>
__device__ inline Vec16<T> load16(const T* p, std::size_t vector_index) {
  Vec16<T> x;
  if constexpr (sizeof(T) == 4) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(p) + vector_index);
    x.v[0] = q.x, x.v[1] = q.y, x.v[2] = q.z, x.v[3] = q.w;
  } else {
    const double2 q = __ldg(reinterpret_cast<const double2*>(p) + vector_index);
    x.v[0] = q.x, x.v[1] = q.y;
  }
  return x;
}

// Squared differences of the interior values in vector v (flat_interior.hpp); b may be null.
template <class T>
__device__ inline double vector_partial(const T* __restrict__ a, const T* __restrict__ b,
                                        const FlatInterior<Vec16<T>::width>& fi, std::size_t v) {
  const Vec16<T> av = load16(a, v);
  Vec16<T> bv{};
  if (b) bv = load16(b, v);
  double s = 0;
  fi.for_interior(v, [&](int l) { s += squared_difference(av.v[l], bv.v[l]); });
  return s;
}

// The flat path: a grid-stride loop over 16-byte vectors, two in flight per thread.
template <class T>
__device__ inline double thread_partial_flat(const T* __restrict__ a, const T* __restrict__ b, const Grid& g) {
  const FlatInterior<Vec16<T>::width> fi(g);
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  double s = 0;
  std::size_t v = fi.first + std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; v + stride < fi.last; v += 2 * stride) s += vector_partial(a, b, fi, v) + vector_partial(a, b, fi, v + stride);
  if (v < fi.last) s += vector_partial(a, b, fi, v);
  return s;
}

// A thread's partial sum over the interior. Fields under 2^32 values are read as one flat run of
// 16-byte vectors with the ghosts masked out (flat_interior.hpp). Larger ones go row by row: each
// block takes whole interior rows (fixed j, k) in a grid-stride loop, its threads striding along x,
// four rows together so that each thread has eight loads in flight (with one row, floats left the
// memory system half idle: 58% of the copy bandwidth on 2^27 floats, against 96% for doubles).
template <class T>
__device__ inline double thread_partial(const T* __restrict__ a, const T* __restrict__ b, const Grid& g) {
  if (FlatInterior<Vec16<T>::width>::fits(g)) return thread_partial_flat(a, b, g);
  constexpr int R = 4;
  double s = 0;
  const long long rows = (long long)g.ny * g.nz;
  for (long long r0 = blockIdx.x; r0 < rows; r0 += (long long)R * gridDim.x) {
    std::size_t base[R];
    bool ok[R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const long long r = r0 + (long long)q * gridDim.x;
      ok[q] = r < rows;
      base[q] = ok[q] ? g.idx(0, 1 + int(r % g.ny), 1 + int(r / g.ny)) : 0;
    }
    for (int i = 1 + int(threadIdx.x); i <= g.nx; i += blockDim.x) {
      T av[R], bv[R];
#pragma unroll
      for (int q = 0; q < R; ++q) {
        av[q] = ok[q] ? a[base[q] + i] : T(0);
        bv[q] = ok[q] && b ? b[base[q] + i] : T(0);
      }
#pragma unroll
      for (int q = 0; q < R; ++q) s += squared_difference(av[q], bv[q]);
    }
  }
  return s;
}

__device__ inline double warp_sum(double s) {
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffu, s, offset);
  return s;
}

// Sum over the block, valid in thread 0. Fixed combination order: deterministic.
__device__ inline double block_sum(double s) {
  __shared__ double warp_partials[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  s = warp_sum(s);
  if (lane == 0) warp_partials[warp] = s;
  __syncthreads();
  s = threadIdx.x < (blockDim.x + 31) / 32 ? warp_partials[threadIdx.x] : 0.0;
  if (warp == 0) s = warp_sum(s);
  return s;
}

// Enough blocks to fill every SM (a persistent grid), but no more blocks than interior rows.
inline unsigned reduce_blocks(const Grid& g, int threads) {
  static int sms = 0;
  if (sms == 0) {
    int dev = 0;
    NSB_CUDA(cudaGetDevice(&dev));
    NSB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  }
  const long long rows = (long long)g.ny * g.nz;
  const long long full = (long long)sms * (2048 / threads);
  return unsigned(std::max(1LL, std::min(rows, full)));
}

inline std::vector<Tuning> reduce_block_sizes() { return {parse_tuning("b256"), parse_tuning("b512"), parse_tuning("b1024")}; }

}  // namespace nsb
