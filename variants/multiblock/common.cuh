// What the multiblock GPU variants share: one thread per node (or cell) in 2D blocks of bx x by threads,
// one launch per domain block (the paper's mapping, Sec. II.B: i = blockDim.x blockIdx.x + threadIdx.x,
// j likewise, empty threads masked), and the block shapes of the coalescing study (Fig. 3).
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "multiblock/formulas.hpp"
#include "multiblock/stage_call.hpp"

namespace nsb {

// Thread-block shapes: the paper's 32 x 4 first, its non-coalesced 1 x 128 (each warp spans 32 rows at
// one i), then other shapes of 128 and 256 threads.
inline std::vector<Tuning> mb_block_shapes() {
  return tunings_2d({{32, 4}, {1, 128}, {16, 8}, {64, 2}, {128, 1}, {32, 8}, {64, 4}}, 0);
}

// Node (i, j) of block b for this thread (padded 1..extent); false for an empty thread.
__device__ inline bool mb_thread_point(int extent, int& i, int& j) {
  i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  return i <= extent && j <= extent;
}

// Op(b, i, j, n) at every node (extent n) or cell (extent n - 1: cell (i, j) has corners (i..i+1, j..j+1))
// of block b.
template <class Op>
__global__ void mb_points_kernel(Op op, Grid g, int b, int extent) {
  int i, j;
  if (!mb_thread_point(extent, i, j)) return;
  op(b, i, j, mb_idx(g, b, i, j));
}

// One launch per listed block on the call's stream; `cells`: over cells instead of nodes.
template <class Op, class T>
void mb_launch_points(const MbCall<T>& c, const Op& op, bool cells, const char* variant) {
  check_block(c.tuning.bx * c.tuning.by, variant);
  const int extent = cells ? c.grid.nx - 1 : c.grid.nx;
  const dim3 block(c.tuning.bx, c.tuning.by), grid(ceil_div(extent, c.tuning.bx), ceil_div(extent, c.tuning.by));
  for (int q = 0; q < c.nblocks; ++q) {
    mb_points_kernel<<<grid, block, 0, stream_of(c.exec)>>>(op, c.grid, c.blocks[q], extent);
    NSB_LAUNCHED(variant);
  }
}

// A pointwise routine as a variant: `Point` is a functor type with a static
// `template <class T> __device__ static void at(const MbArrays<T>&, std::size_t n, std::ptrdiff_t sj, int b, int i, int j, int nn)`.
template <class Point, class T>
struct MbPointOp {
  MbArrays<T> a;
  std::ptrdiff_t sj;
  int n;
  __device__ void operator()(int b, int i, int j, std::size_t node) const { Point::at(a, node, sj, b, i, j, n); }
};
template <class Point, class T>
void mb_run_points(const MbCall<T>& c, const char* variant) {
  mb_launch_points(c, MbPointOp<Point, T>{c.a, c.grid.sy(), c.grid.nx}, false, variant);
}

// The registration of a pointwise variant over the block shapes.
template <class Point>
Variant mb_pointwise_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "global_2d";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"cta", "2d"}};
  v.tunings = mb_block_shapes();
  v.status = status;
  v.run_float = StageFn(+[](const MbCall<float>& c) { mb_run_points<Point>(c, "multiblock global_2d"); });
  v.run_double = StageFn(+[](const MbCall<double>& c) { mb_run_points<Point>(c, "multiblock global_2d"); });
  v.kernels = {{"mb_points_kernel<float>", (const void*)&mb_points_kernel<MbPointOp<Point, float>>, 4},
               {"mb_points_kernel<double>", (const void*)&mb_points_kernel<MbPointOp<Point, double>>, 8}};
  return v;
}

}  // namespace nsb
