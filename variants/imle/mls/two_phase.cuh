// The paper's two-phase MLS (Sec. 3.3): phase 1 builds every system of a batch of z-levels in global
// memory (one thread per cell accumulating its 27 points into its own entries), phase 2 runs Gaussian
// elimination on each in global memory and writes the interpolated values. The layout of the systems
// and the index type are the variants' axes:
//   planes (the paper's Fortran (nc, nc, 10, 10, nc)): entry e of cell (i, j) of level k at
//          (i-1) + nx (j-1) + nx ny (e + kMlsWords (k - k0)): a warp's threads touch neighbouring words;
//   aos:   a cell's kMlsWords entries contiguous: a warp's threads touch words kMlsWords apart.
//   int32 indices, so a batch must stay under the call's cap (the paper: 2^31 bytes, floor(levels x
//          plane bytes / cap) + 1 batches), or int64 indices and every level in one batch.
// Entries 0..54 are the packed upper triangle of M, 55..84 the three right-hand sides (the paper
// stores the full 10 x 10, 45 words a cell more; docs/solvers/imle.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "imle/mls/mls_cells.cuh"

namespace nsb {

enum class MlsLayout { planes, aos };

// A system in global memory: entry e at base[e * stride].
template <class T, class Index>
struct MlsGlobalStore {
  T* base;
  Index stride;
  __device__ T& m(int a, int b) { return base[Index(mls_packed(a, b)) * stride]; }
  __device__ T& r(int a, int c) { return base[Index(kMlsPacked + a * kMlsRhs + c) * stride]; }
};

template <class T, MlsLayout L, class Index>
__device__ inline MlsGlobalStore<T, Index> mls_global_store(const MlsArgs<T>& a, T* ws, int i, int j, int level) {
  const Index plane = Index(a.g.nx) * Index(a.g.ny);
  const Index cell = Index(i - 1) + Index(a.g.nx) * Index(j - 1);
  if constexpr (L == MlsLayout::planes) return {ws + (cell + plane * Index(kMlsWords) * Index(level)), plane};
  else return {ws + Index(kMlsWords) * (cell + plane * Index(level)), Index(1)};
}

// Phase 1: zero, then accumulate the 27 points, in global memory.
template <class T, MlsLayout L, class Index>
__global__ void mls_build_kernel(MlsArgs<T> a, T* ws, int k0, int k1) {
  int i, j, k;
  if (!mls_target(a, k0, k1, i, j, k)) return;
  MlsGlobalStore<T, Index> s = mls_global_store<T, L, Index>(a, ws, i, j, k - k0);
  for (int e = 0; e < kMlsWords; ++e) s.base[Index(e) * s.stride] = T(0);
  mls_build(a, i, j, k, s);
}

// Phase 2: eliminate in global memory, write the constant coefficients.
template <class T, MlsLayout L, class Index>
__global__ void mls_solve_kernel(MlsArgs<T> a, T* ws, int k0, int k1) {
  int i, j, k;
  if (!mls_target(a, k0, k1, i, j, k)) return;
  MlsGlobalStore<T, Index> s = mls_global_store<T, L, Index>(a, ws, i, j, k - k0);
  mls_solve<T>(s);
  const std::size_t n = a.g.idx(i, j, k);
  for (int c = 0; c < kMlsRhs; ++c) a.out[c][n] = s.r(0, c);
}

// Batches of z-levels: the paper's count under the cap with int32 indices, one batch with int64.
template <class T, MlsLayout L, class Index>
void run_two_phase(const MlsCall<T>& c, const char* variant) {
  check_block(c.tuning.bx * c.tuning.by, variant);
  const int levels = c.zr.levels();
  if (levels <= 0) return;
  const int elem = int(sizeof(T));
  const int batches = sizeof(Index) == 4 ? mls_batches(c.grid, c.zr, elem, c.batch_cap_bytes) : 1;
  const int per_batch = (levels + batches - 1) / batches;
  const std::size_t need = mls_plane_bytes(c.grid, elem) * std::size_t(per_batch);
  if (!c.workspace || c.workspace_bytes < need)
    throw std::runtime_error(std::string(variant) + ": needs a workspace of " + std::to_string(need) + " bytes, has " +
                             std::to_string(c.workspace_bytes));
  if (sizeof(Index) == 4 && need / sizeof(T) > std::size_t(INT32_MAX))
    throw std::runtime_error(std::string(variant) + ": a batch of " + std::to_string(need) +
                             " bytes overflows 32-bit indices (lower the batch cap)");
  const MlsArgs<T> a = mls_args(c);
  T* ws = static_cast<T*>(c.workspace);
  const dim3 block(c.tuning.bx, c.tuning.by);
  for (int k0 = c.zr.k_begin; k0 < c.zr.k_end; k0 += per_batch) {
    const int k1 = std::min(k0 + per_batch, c.zr.k_end);
    mls_build_kernel<T, L, Index><<<mls_blocks(c.grid, k1 - k0, c.tuning), block, 0, stream_of(c.exec)>>>(a, ws, k0, k1);
    NSB_LAUNCHED("mls_build_kernel");
    mls_solve_kernel<T, L, Index><<<mls_blocks(c.grid, k1 - k0, c.tuning), block, 0, stream_of(c.exec)>>>(a, ws, k0, k1);
    NSB_LAUNCHED("mls_solve_kernel");
  }
}

}  // namespace nsb
