// What the Poisson family's GPU variants share (stage_call.hpp): the walk of interior points (2D
// blocks of bx x by threads over x-y, each thread sz z-levels), the ghost layer from the faces, block
// sums, and the three ways partial sums meet: atomics per block, a buffer of per-block partials summed
// by a second pass in a fixed order, or the CUB library over a counting iterator.
#pragma once

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <stdexcept>
#include <string>

#include "common/traversals.cuh"
#include "poisson/stage_call.hpp"

namespace nsb {

// Up to two sums of one pass (cg_update's r.z and r.r; others use the first).
struct Pair {
  double a = 0, b = 0;
};

// The thread blocks of a walk over columns x rows (columns: nx, or half of it for one colour).
struct PoissonWalk {
  dim3 grid, block;
  int sz = 0;
  bool empty() const { return grid.x == 0 || grid.y == 0 || grid.z == 0; }
};
template <class T>
PoissonWalk poisson_walk(const PoissonCall<T>& c, int columns, const char* who) {
  const Tuning& t = c.tuning;
  if (t.bx <= 0 || t.by <= 0 || t.bx * t.by > 1024 || (t.bx * t.by) % 32 != 0)
    throw std::runtime_error(std::string(who) + ": tuning " + t.name + " needs bx x by a multiple of 32, at most 1024");
  const int sz = t.sz > 0 ? t.sz : c.grid.nz;
  return {dim3(ceil_div(columns, t.bx), ceil_div(c.grid.ny, t.by), ceil_div(c.grid.nz, sz)), dim3(t.bx, t.by), sz};
}

// The block tunings of the walk-based variants (the first is the default).
inline std::vector<Tuning> poisson_walk_tunings() {
  return {parse_tuning("bx32_by4_sz8"), parse_tuning("bx64_by4_sz8"), parse_tuning("bx32_by8_sz16"),
          parse_tuning("bx128_by2_sz8"), parse_tuning("bx32_by4_sz0")};
}

__device__ inline double poisson_warp_sum(double s) {
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  return s;
}
// The block's sum, in thread 0 (every thread of the block must call it).
__device__ inline double poisson_block_sum(double s) {
  __shared__ double warps[32];
  const int lane = int(threadIdx.x + threadIdx.y * blockDim.x) % 32, warp = int(threadIdx.x + threadIdx.y * blockDim.x) / 32;
  const int nwarps = int(blockDim.x * blockDim.y + 31) / 32;
  s = poisson_warp_sum(s);
  __syncthreads();  // warps[] may still be read by a previous call
  if (lane == 0) warps[warp] = s;
  __syncthreads();
  s = warp == 0 && lane < nwarps ? warps[lane] : 0.0;
  if (warp == 0) s = poisson_warp_sum(s);
  return s;
}

// op(i, j, k, n) at the interior points of this thread's column chunk; returns the sum of its results
// (ops without sums return Pair{}).
template <class Op>
__device__ inline Pair poisson_walk_points(const Op& op, const Grid& g, int sz) {
  Pair s;
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x), j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return s;
  const int k0 = 1 + int(blockIdx.z) * sz, k1 = min(k0 + sz, g.nz + 1);
  for (int k = k0; k < k1; ++k) {
    const Pair v = op(i, j, k, g.idx(i, j, k));
    s.a += v.a, s.b += v.b;
  }
  return s;
}

template <class Op>
__global__ void poisson_walk_kernel(Op op, Grid g, int sz) {
  poisson_walk_points(op, g, sz);
}

// Sums by per-block atomics into out[0] (and out[1] with two sums), which the caller zeroes.
template <int Sums, class Op>
__global__ void poisson_walk_atomic_kernel(Op op, Grid g, int sz, double* out) {
  const Pair s = poisson_walk_points(op, g, sz);
  const double a = poisson_block_sum(s.a);
  double b = 0;
  if constexpr (Sums == 2) b = poisson_block_sum(s.b);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    atomicAdd(out, a);
    if constexpr (Sums == 2) atomicAdd(out + 1, b);
  }
}

// Per-block partials into partials[Sums * block + s]; poisson_sum_partials_kernel adds them.
template <int Sums, class Op>
__global__ void poisson_walk_buffer_kernel(Op op, Grid g, int sz, double* partials) {
  const Pair s = poisson_walk_points(op, g, sz);
  const double a = poisson_block_sum(s.a);
  double b = 0;
  if constexpr (Sums == 2) b = poisson_block_sum(s.b);
  const std::size_t block = blockIdx.x + std::size_t(gridDim.x) * (blockIdx.y + std::size_t(gridDim.y) * blockIdx.z);
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    partials[Sums * block] = a;
    if constexpr (Sums == 2) partials[Sums * block + 1] = b;
  }
}
// One block of 1024 threads: each a strided run of partials in a fixed order, then the block's sum.
template <int Sums>
__global__ void poisson_sum_partials_kernel(const double* partials, std::size_t blocks, double* out) {
  for (int s = 0; s < Sums; ++s) {
    double v = 0;
    for (std::size_t b = threadIdx.x; b < blocks; b += blockDim.x) v += partials[Sums * b + s];
    v = poisson_block_sum(v);
    if (threadIdx.x == 0) out[s] = v;
  }
}

template <class T>
inline double* zeroed(double* out, int n, const PoissonCall<T>& c) {
  NSB_CUDA(cudaMemsetAsync(out, 0, sizeof(double) * n, stream_of(c.exec)));
  return out;
}

// The walk with no sums.
template <class T, class Op>
void poisson_launch(const PoissonCall<T>& c, const Op& op, const char* who) {
  const PoissonWalk w = poisson_walk(c, c.grid.nx, who);
  if (w.empty()) return;
  poisson_walk_kernel<<<w.grid, w.block, 0, stream_of(c.exec)>>>(op, c.grid, w.sz);
  NSB_LAUNCHED(who);
}
template <int Sums, class T, class Op>
void poisson_launch_atomic(const PoissonCall<T>& c, const Op& op, const char* who) {
  zeroed(c.out, Sums, c);
  const PoissonWalk w = poisson_walk(c, c.grid.nx, who);
  if (w.empty()) return;
  poisson_walk_atomic_kernel<Sums><<<w.grid, w.block, 0, stream_of(c.exec)>>>(op, c.grid, w.sz, c.out);
  NSB_LAUNCHED(who);
}
template <int Sums, class T, class Op>
void poisson_launch_buffer(const PoissonCall<T>& c, const Op& op, const char* who) {
  const PoissonWalk w = poisson_walk(c, c.grid.nx, who);
  const std::size_t blocks = std::size_t(w.grid.x) * w.grid.y * w.grid.z;
  if (blocks * Sums * sizeof(double) > c.exec.scratch_bytes)
    throw std::runtime_error(std::string(who) + ": " + std::to_string(blocks) + " block partials exceed the scratch");
  if (w.empty()) {
    zeroed(c.out, Sums, c);
    return;
  }
  double* partials = static_cast<double*>(c.exec.scratch);
  poisson_walk_buffer_kernel<Sums><<<w.grid, w.block, 0, stream_of(c.exec)>>>(op, c.grid, w.sz, partials);
  NSB_LAUNCHED(who);
  poisson_sum_partials_kernel<Sums><<<1, 1024, 0, stream_of(c.exec)>>>(partials, blocks, c.out);
  NSB_LAUNCHED(who);
}

// An interior point's number (x fastest) -> a term of a sum, for the CUB variants.
template <class Term>
struct InteriorTerm {
  Term term;
  Grid g;
  __device__ double operator()(unsigned long long m) const {
    const int i = 1 + int(m % unsigned(g.nx));
    const unsigned long long t = m / unsigned(g.nx);
    const int j = 1 + int(t % unsigned(g.ny)), k = 1 + int(t / unsigned(g.ny));
    return term(i, j, k, g.idx(i, j, k));
  }
};
// CUB's TransformReduce of term over the interior into *out (library: CUB picks its grid and combines
// partials in a fixed order).
template <class T, class Term>
void poisson_cub_sum(const PoissonCall<T>& c, const Term& term, double* out, const char* who) {
  const InteriorTerm<Term> op{term, c.grid};
  const thrust::counting_iterator<unsigned long long> first(0);
  const long long n = (long long)c.grid.interior_points();
  std::size_t bytes = 0;
  NSB_CUDA(cub::DeviceReduce::TransformReduce(nullptr, bytes, first, out, n, cuda::std::plus<>{}, op, 0.0,
                                              stream_of(c.exec)));
  if (bytes > c.exec.scratch_bytes)
    throw std::runtime_error(std::string(who) + ": CUB needs " + std::to_string(bytes) + " bytes of scratch, have " +
                             std::to_string(c.exec.scratch_bytes));
  NSB_CUDA(cub::DeviceReduce::TransformReduce(c.exec.scratch, bytes, first, out, n, cuda::std::plus<>{}, op, 0.0,
                                              stream_of(c.exec)));
}

// The ghost layer of a from the faces: x faces over the padded y-z plane, then y, then z (each a launch,
// since edges and corners take the later axis's rule).
template <class T>
__global__ void poisson_faces_kernel(T* a, Grid g, PoissonFaces f, int axis) {
  const int u = int(blockIdx.x * blockDim.x + threadIdx.x), v = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (axis == 0 && u < g.NY() && v < g.NZ()) poisson_ghost_pair(a, g.idx(0, u, v), 1, g.nx, f.face[0][0], f.face[0][1]);
  if (axis == 1 && u < g.NX() && v < g.NZ())
    poisson_ghost_pair(a, g.idx(u, 0, v), g.sy(), g.ny, f.face[1][0], f.face[1][1]);
  if (axis == 2 && u < g.NX() && v < g.NY())
    poisson_ghost_pair(a, g.idx(u, v, 0), g.sz(), g.nz, f.face[2][0], f.face[2][1]);
}
template <class T>
void poisson_launch_faces(const PoissonCall<T>& c, T* a) {
  const Grid& g = c.grid;
  const int extent[3][2] = {{g.NY(), g.NZ()}, {g.NX(), g.NZ()}, {g.NX(), g.NY()}};
  for (int axis = 0; axis < 3; ++axis) {
    const dim3 block(32, 8), grid(ceil_div(extent[axis][0], 32), ceil_div(extent[axis][1], 8));
    poisson_faces_kernel<<<grid, block, 0, stream_of(c.exec)>>>(a, g, c.faces, axis);
    NSB_LAUNCHED("poisson_faces_kernel");
  }
}

}  // namespace nsb
