// A fifth way of the four-corner scatter of flux and fluxtrb (scatter.cuh has the paper's and the other
// modern one), NOT in the paper:
//
//   shared_atomic  one thread a cell, as atomic_fp64, but a block first sums its cells' corners in shared
//                  memory (a tile of (bx + 1) x (by + 1) nodes, shared-memory atomics); a node inside the
//                  tile has all four of its cells in the block, so the block adds it to res with a plain
//                  add (no other block writes it); the tile's edge nodes, shared with the neighbouring
//                  blocks, are added with global atomics.
//
// Why (docs/solvers/multiblock.md, "Streaming at G4"): atomic_fp64 makes 4 global read-modify-writes of every res
// word (one from each cell around a node) where the byte model counts one; here a 32 x 4 block makes 72
// global atomics a value for its 128 cells instead of 512. The sum's order varies with the shared-memory
// atomics' order: order-dependent, as atomic_fp64.
#pragma once

#include <stdexcept>
#include <string>

#include "multiblock/common.cuh"

namespace nsb {

template <class Phys, class T>
__global__ void mb_scatter_tile_kernel(MbArrays<T> a, Grid g, int b, int cells) {
  extern __shared__ __align__(8) unsigned char mb_scatter_smem[];
  T* sum = reinterpret_cast<T*>(mb_scatter_smem);  // Phys::kVars planes of (bx + 1) x (by + 1) nodes
  const int width = int(blockDim.x) + 1, height = int(blockDim.y) + 1, plane = width * height;
  const int threads = int(blockDim.x * blockDim.y), tid = int(threadIdx.y * blockDim.x + threadIdx.x);
  for (int t = tid; t < Phys::kVars * plane; t += threads) sum[t] = T(0);
  __syncthreads();
  int i, j;
  if (mb_thread_point(cells, i, j)) {
    T out[4][Phys::kVars];
    ni_cell<Phys>(a, mb_idx(g, b, i, j), g.sy(), out);
    for (int k = 0; k < 4; ++k) {
      const int node = (int(threadIdx.y) + (mb_corner_sj(k) > 0 ? 1 : 0)) * width + int(threadIdx.x) + (mb_corner_si(k) > 0 ? 1 : 0);
      for (int v = 0; v < Phys::kVars; ++v) atomicAdd(&sum[v * plane + node], out[k][v]);
    }
  }
  __syncthreads();
  // The tile's nodes that exist (padded 1..cells + 1); a node inside the tile is this block's alone.
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  for (int t = tid; t < plane; t += threads) {
    const int ti = t % width, tj = t / width, gi = i0 + ti, gj = j0 + tj;
    if (gi > cells + 1 || gj > cells + 1) continue;
    const bool alone = ti > 0 && ti < width - 1 && tj > 0 && tj < height - 1;
    const std::size_t node = mb_idx(g, b, gi, gj);
    for (int v = 0; v < Phys::kVars; ++v) {
      T* target = a.f[Phys::kFirst + v] + node;
      if (alone) *target = *target + sum[v * plane + t];
      else atomicAdd(target, sum[v * plane + t]);
    }
  }
}

// One launch per listed block, over its cells, as every multiblock variant.
template <class Phys, class T>
void mb_scatter_tile(const MbCall<T>& c) {
  const int bx = c.tuning.bx, by = c.tuning.by, cells = c.grid.nx - 1;
  check_block(bx * by, "multiblock shared_atomic");
  const std::size_t bytes = sizeof(T) * std::size_t(Phys::kVars) * std::size_t(bx + 1) * std::size_t(by + 1);
  if (bytes > 48 * 1024)
    throw std::runtime_error("multiblock shared_atomic: tuning " + c.tuning.name + " needs " + std::to_string(bytes) +
                             " bytes of shared memory a block (at most 48 KiB without an opt-in)");
  const dim3 block(bx, by), grid(ceil_div(cells, bx), ceil_div(cells, by));
  for (int q = 0; q < c.nblocks; ++q) {
    mb_scatter_tile_kernel<Phys, T><<<grid, block, bytes, stream_of(c.exec)>>>(c.a, c.grid, c.blocks[q], cells);
    NSB_LAUNCHED("multiblock shared_atomic");
  }
}

template <class Phys>
Variant mb_scatter_tile_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "shared_atomic";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "shared"}, {"cta", "2d"}, {"scatter", "shared_atomic"}};
  // ni_cell's registers (double: 136, ptxas -v) fit 3 blocks of 128 threads an SM but one of 256, so 32 x 4
  // first; no block of 512 (136 x 512 registers exceed an SM's 65536: the launch would fail).
  v.tunings = tunings_2d({{32, 4}, {64, 2}, {16, 8}, {32, 8}, {64, 4}}, 0);
  v.status = status;
  v.determinism = Determinism::order_dependent;
  v.run_float = StageFn(&mb_scatter_tile<Phys, float>);
  v.run_double = StageFn(&mb_scatter_tile<Phys, double>);
  v.kernels = {{"mb_scatter_tile_kernel<float>", (const void*)&mb_scatter_tile_kernel<Phys, float>, 4},
               {"mb_scatter_tile_kernel<double>", (const void*)&mb_scatter_tile_kernel<Phys, double>, 8}};
  return v;
}

}  // namespace nsb
