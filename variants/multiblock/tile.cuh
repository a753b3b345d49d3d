// The shared-memory tile variants of the stencil routines stressp, stresstrb, smthp, smthtrb (NOT in the
// paper, whose kernels read every neighbour from global memory: Sec. II.B).
//
// A thread block of bx x by threads first fills a tile in shared memory: for each node of its bx x by nodes
// and the kReach nodes around them, the quantities the routine's stencil reads, each computed once a node
// (Stencil::value: stressp's u, v, h, four divisions a node where the global variant makes sixteen;
// smthp's rho..E and the pressure, once a node where the global variant computes it six times). After one
// barrier each thread runs the routine's formula on the tile (the `_with` forms of formulas.hpp take an
// accessor, so the numbers are the global variant's). Why (docs/solvers/multiblock.md, "Streaming at G4"): the
// global variants move no more DRAM bytes than their byte model, but stall on dependent L1 loads of the
// neighbours at low occupancy (stressp: 74 registers, 37.5%); here all of a block's loads are independent
// and issued together, and the stencil then reads shared memory.
#pragma once

#include <stdexcept>
#include <string>

#include "multiblock/common.cuh"

namespace nsb {

// One thread's view of its block's tile: at(q, di, dj) is quantity q at node (i + di, j + dj).
template <class T>
struct MbTileAt {
  const T* tile;  // quantity-major: q * plane + row * width + column
  int plane, width, centre;
  __device__ T operator()(int q, int di, int dj) const { return tile[q * plane + centre + di + dj * width]; }
};

// Stencil: kReach (nodes around the block the tile holds), kValues (quantities a node), and
//   template <class T> __device__ static T value(const MbArrays<T>&, std::size_t node, int q)
//   template <class T> __device__ static void at(const MbArrays<T>&, std::size_t node, const MbTileAt<T>&, int i, int j, int n)
// Block b's nodes are padded 1..n; the tile holds the padded plane's nodes 0..n+1 (the ghosts) and zeros
// past them, which no formula reads (reach 2 is used inside 2..n-1 only).
template <class Stencil, class T>
__global__ void mb_tile_kernel(MbArrays<T> a, Grid g, int b, int n) {
  extern __shared__ __align__(8) unsigned char mb_tile_smem[];
  T* tile = reinterpret_cast<T*>(mb_tile_smem);
  constexpr int R = Stencil::kReach;
  const int width = int(blockDim.x) + 2 * R, plane = width * (int(blockDim.y) + 2 * R);
  const int i0 = 1 + int(blockIdx.x * blockDim.x) - R, j0 = 1 + int(blockIdx.y * blockDim.y) - R;
  for (int t = int(threadIdx.y * blockDim.x + threadIdx.x); t < plane; t += int(blockDim.x * blockDim.y)) {
    const int ti = i0 + t % width, tj = j0 + t / width;
    const bool inside = ti >= 0 && tj >= 0 && ti <= n + 1 && tj <= n + 1;
    const std::size_t m = inside ? mb_idx(g, b, ti, tj) : 0;
    for (int q = 0; q < Stencil::kValues; ++q) tile[q * plane + t] = inside ? Stencil::value(a, m, q) : T(0);
  }
  __syncthreads();
  int i, j;
  if (!mb_thread_point(n, i, j)) return;
  const MbTileAt<T> at{tile, plane, width, (int(threadIdx.y) + R) * width + int(threadIdx.x) + R};
  Stencil::at(a, mb_idx(g, b, i, j), at, i, j, n);
}

template <class Stencil, class T>
std::size_t mb_tile_bytes(int bx, int by) {
  return sizeof(T) * std::size_t(Stencil::kValues) * std::size_t(bx + 2 * Stencil::kReach) * std::size_t(by + 2 * Stencil::kReach);
}

// One launch per listed block, as every multiblock variant.
template <class Stencil, class T>
void mb_run_tile(const MbCall<T>& c) {
  const int bx = c.tuning.bx, by = c.tuning.by, n = c.grid.nx;
  check_block(bx * by, "multiblock shared_2d_tile");
  const std::size_t bytes = mb_tile_bytes<Stencil, T>(bx, by);
  if (bytes > 48 * 1024)
    throw std::runtime_error("multiblock shared_2d_tile: tuning " + c.tuning.name + " needs " + std::to_string(bytes) +
                             " bytes of shared memory a block (at most 48 KiB without an opt-in)");
  const dim3 block(bx, by), grid(ceil_div(n, bx), ceil_div(n, by));
  for (int q = 0; q < c.nblocks; ++q) {
    mb_tile_kernel<Stencil, T><<<grid, block, bytes, stream_of(c.exec)>>>(c.a, c.grid, c.blocks[q], n);
    NSB_LAUNCHED("multiblock shared_2d_tile");
  }
}

// Block shapes: 32 x 8 first (the tile's halo rows are 2 R of by + 2 R; taller blocks waste fewer), then
// the paper's 32 x 4 and wider or taller ones; each fits the 48 KiB of shared memory for every routine.
inline std::vector<Tuning> mb_tile_shapes() {
  return tunings_2d({{32, 8}, {32, 4}, {64, 4}, {32, 16}, {64, 8}, {128, 4}}, 0);
}

template <class Stencil>
Variant mb_tile_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "shared_2d_tile";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "shared"}, {"cta", "2d"}};
  v.tunings = mb_tile_shapes();
  v.status = status;
  v.run_float = StageFn(&mb_run_tile<Stencil, float>);
  v.run_double = StageFn(&mb_run_tile<Stencil, double>);
  v.kernels = {{"mb_tile_kernel<float>", (const void*)&mb_tile_kernel<Stencil, float>, 4},
               {"mb_tile_kernel<double>", (const void*)&mb_tile_kernel<Stencil, double>, 8}};
  return v;
}

}  // namespace nsb
