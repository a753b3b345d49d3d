// Grid traversals shared by the global-memory variants of every stage: how threads are mapped to
// points. A variant is "traversal x point operation" (harness/point_ops.hpp), so 1D vs 2D thread
// blocks is one choice made here, not a copy of each stage's arithmetic.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cuda/check.cuh"
#include "grid.hpp"
#include "registry.hpp"
#include "stage.hpp"

namespace nsb {

inline cudaStream_t stream_of(const Exec& e) { return static_cast<cudaStream_t>(e.stream); }

inline unsigned ceil_div(long long a, long long b) { return unsigned((a + b - 1) / b); }

// How many z-levels the 2D traversal unrolls: an op may say (Op::kZloopUnroll), else 1.
template <class Op>
constexpr int zloop_unroll() {
  if constexpr (requires { Op::kZloopUnroll; }) return Op::kZloopUnroll;
  else return 1;
}

// Thibault's mapping (Eq. 3.1-3.2): a 2D block of bx x by threads over x-y, each thread walking sz
// consecutive z-levels; the thesis folds the z-chunks into gridDim.y, here they use gridDim.z.
// sz == 0 walks the whole column.
template <class Op>
__global__ void zloop_2d_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  // Light stages unroll the walk so that several levels' loads are in flight per thread (their reads
  // go through the read-only path, so the compiler may hoist them above the previous level's store).
#pragma unroll(zloop_unroll<Op>())
  for (int k = k0; k < k1; ++k) op(i, j, k, g.idx(i, j, k));
}

// The same walk with two columns per thread, bx apart (so a warp's loads stay coalesced): every level
// has two independent points' loads in flight per thread, which a stage moving few bytes per point
// needs to keep the memory system busy. The block covers 2*bx columns.
template <class Op>
__global__ void zloop_2d_x2_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  const int i = 1 + int(blockIdx.x * 2 * blockDim.x + threadIdx.x);
  const int i2 = i + int(blockDim.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (i2 <= g.nx) {
    for (int k = k0; k < k1; ++k) {
      op(i, j, k, g.idx(i, j, k));
      op(i2, j, k, g.idx(i2, j, k));
    }
  } else {
    for (int k = k0; k < k1; ++k) op(i, j, k, g.idx(i, j, k));
  }
}

// One thread per point, a flat 1D block of bx threads over the interior points of the z range.
template <class Op>
__global__ void flat_1d_kernel(Op op, Grid g, int k_begin, long long points) {
  const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= points) return;
  const int i = 1 + int(n % g.nx);
  const long long row = n / g.nx;
  const int j = 1 + int(row % g.ny);
  const int k = k_begin + int(row / g.ny);
  op(i, j, k, g.idx(i, j, k));
}

inline void check_block(int threads, const char* what) {
  if (threads < 1 || threads > 1024)
    throw std::runtime_error(std::string(what) + ": a block of " + std::to_string(threads) +
                             " threads is impossible (1..1024)");
}

// Launch geometry of every z-walking 2D variant (global, shared tiles, z-marching): bx x by blocks over
// x-y, sz levels per block along z (sz = 0: the whole z range). empty() when there is nothing to do.
struct ZWalk {
  dim3 grid, block;
  int sz = 0;
  bool empty() const { return sz <= 0; }
};
template <class Call>
ZWalk z_walk(const Call& c, const char* variant) {
  const Tuning& t = c.tuning;
  check_block(t.bx * t.by, variant);
  const int levels = c.zr.levels();
  if (levels <= 0) return {};
  const int sz = t.sz > 0 ? t.sz : levels;
  return {dim3(ceil_div(c.grid.nx, t.bx), ceil_div(c.grid.ny, t.by), ceil_div(levels, sz)), dim3(t.bx, t.by), sz};
}

template <class Op, class Call>
void launch_zloop_2d(const Op& op, const Call& c) {
  const ZWalk w = z_walk(c, "2D traversal");
  if (w.empty()) return;
  zloop_2d_kernel<<<w.grid, w.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin, c.zr.k_end, w.sz);
  NSB_LAUNCHED("zloop_2d_kernel");
}

template <class Op, class Call>
void launch_zloop_2d_x2(const Op& op, const Call& c) {
  ZWalk w = z_walk(c, "2D traversal, two columns per thread");
  if (w.empty()) return;
  w.grid.x = ceil_div(c.grid.nx, 2LL * c.tuning.bx);
  zloop_2d_x2_kernel<<<w.grid, w.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin, c.zr.k_end, w.sz);
  NSB_LAUNCHED("zloop_2d_x2_kernel");
}

template <class Op, class Call>
void launch_flat_1d(const Op& op, const Call& c) {
  check_block(c.tuning.bx, "1D traversal");
  const long long points = (long long)c.grid.nx * c.grid.ny * c.zr.levels();
  if (points <= 0) return;
  flat_1d_kernel<<<ceil_div(points, c.tuning.bx), c.tuning.bx, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin,
                                                                                        points);
  NSB_LAUNCHED("flat_1d_kernel");
}

// Boundary sweeps: axis by axis (x, y, z: the order boundary.hpp prescribes), one launch per axis,
// one thread per face line. 2D: a bx x by block over the two tangential directions; 1D: flat.
template <class Line>
__global__ void face_2d_kernel(Line line, int axis, int n1, int n2) {
  const int t1 = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int t2 = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (t1 < n1 && t2 < n2) line(axis, t1, t2);
}

template <class Line>
__global__ void face_1d_kernel(Line line, int axis, int n1, int n2) {
  const int n = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (n < n1 * n2) line(axis, n % n1, n / n1);
}

template <class Line, class Call>
void launch_faces_2d(const Line& line, const Call& c) {
  check_block(c.tuning.bx * c.tuning.by, "face traversal");
  for (int axis = 0; axis < 3; ++axis) {
    int n1, n2;
    face_extent(c.grid, axis, n1, n2);
    const dim3 block(c.tuning.bx, c.tuning.by);
    face_2d_kernel<<<dim3(ceil_div(n1, block.x), ceil_div(n2, block.y)), block, 0, stream_of(c.exec)>>>(line, axis,
                                                                                                      n1, n2);
    NSB_LAUNCHED("face_2d_kernel");
  }
}

template <class Line, class Call>
void launch_faces_1d(const Line& line, const Call& c) {
  check_block(c.tuning.bx, "face traversal");
  for (int axis = 0; axis < 3; ++axis) {
    int n1, n2;
    face_extent(c.grid, axis, n1, n2);
    face_1d_kernel<<<ceil_div((long long)n1 * n2, c.tuning.bx), c.tuning.bx, 0, stream_of(c.exec)>>>(line, axis, n1,
                                                                                                   n2);
    NSB_LAUNCHED("face_1d_kernel");
  }
}

// Kernel references for the register / shared-memory report of a variant.
template <class Op32, class Op64>
std::vector<KernelRef> zloop_kernels() {
  return {{"zloop_2d_kernel<float>", (const void*)&zloop_2d_kernel<Op32>, 4},
          {"zloop_2d_kernel<double>", (const void*)&zloop_2d_kernel<Op64>, 8}};
}
template <class Op32, class Op64>
std::vector<KernelRef> zloop_x2_kernels() {
  return {{"zloop_2d_x2_kernel<float>", (const void*)&zloop_2d_x2_kernel<Op32>, 4},
          {"zloop_2d_x2_kernel<double>", (const void*)&zloop_2d_x2_kernel<Op64>, 8}};
}
template <class Op32, class Op64>
std::vector<KernelRef> flat_kernels() {
  return {{"flat_1d_kernel<float>", (const void*)&flat_1d_kernel<Op32>, 4},
          {"flat_1d_kernel<double>", (const void*)&flat_1d_kernel<Op64>, 8}};
}

// Block shapes of the study: the thesis's 8x8, 16x8, 16x16 and wider modern ones.
inline std::vector<Tuning> thesis_and_modern_shapes(int sz) {
  return tunings_2d({{16, 16}, {8, 8}, {16, 8}, {32, 4}, {32, 8}, {64, 4}}, sz);
}
// Tunings of the z-walking 2D traversal: the thesis shapes with SIZE_Z = 2, and deeper columns.
inline std::vector<Tuning> zloop_shapes() {
  std::vector<Tuning> t = thesis_and_modern_shapes(2);
  for (const char* name : {"bx32_by8_sz8", "bx32_by4_sz16", "bx64_by4_sz16", "bx64_by4_sz32", "bx128_by2_sz16",
                           "bx128_by2_sz32", "bx256_by1_sz32"})
    t.push_back(parse_tuning(name));
  return t;
}
// The same plus blocks as wide as a 512-cell row or more: a warp then reads a whole row segment and a
// block several, so each z-level a block touches is a few long DRAM bursts instead of many 128-byte
// pieces 1 MB apart. For light kernels only: momentum with the upwind terms in double needs 152
// registers a thread, too many for a 512-thread block (measured: launch out of resources).
inline std::vector<Tuning> zloop_wide_shapes() {
  std::vector<Tuning> t = zloop_shapes();
  for (const char* name : {"bx256_by2_sz16", "bx256_by4_sz8", "bx512_by1_sz16", "bx512_by1_sz32", "bx512_by2_sz8",
                           "bx1024_by1_sz16"})
    t.push_back(parse_tuning(name));
  return t;
}
inline std::vector<Tuning> flat_sizes() {
  return {parse_tuning("b256"), parse_tuning("b128"), parse_tuning("b512")};
}

}  // namespace nsb
