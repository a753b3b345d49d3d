// What the wave/step kernels share: the call as a kernel argument, and one thread a point in 2D blocks
// over the wave's plane (x by the wave's y, which is the grid's z: formulas.hpp).
//
// variants/common/traversals.cuh lays its blocks over x-y and walks z; the wave's plane is x-z (its y
// is the grid's z), so 2D blocks over it need this mapping of their own.
#pragma once

#include <vector>

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "accessors.hpp"
#include "wave/formulas.hpp"
#include "wave/stage_call.hpp"

namespace nsb {

// WaveCall without its tuning (a kernel argument must be trivially copyable; a tuning has a name).
template <class T>
struct WaveArgs {
  Grid g;
  int k_begin, k_end;  // rows to update
  const T* u_prev;
  const T* u;
  T* u_next;
  T rho2;
};
template <class T>
WaveArgs<T> wave_args(const WaveCall<T>& c) {
  return {c.grid, c.zr.k_begin, c.zr.k_end, c.u_prev, c.u, c.u_next, c.rho2};
}

// Blocks of bx x by threads over i = 1..nx and the rows of zr (none when zr is empty).
struct PlaneBlocks {
  dim3 grid, block;
  bool empty() const { return grid.x == 0 || grid.y == 0; }
};
template <class T>
PlaneBlocks plane_blocks(const WaveCall<T>& c, const char* variant) {
  check_block(c.tuning.bx * c.tuning.by, variant);
  return {dim3(ceil_div(c.grid.nx, c.tuning.bx), ceil_div(c.zr.levels(), c.tuning.by)),
          dim3(c.tuning.bx, c.tuning.by)};
}

// The point (padded i, k) of this thread in such a block; false when it lies outside.
template <class T>
__device__ inline bool plane_point(const WaveArgs<T>& a, int& i, int& k) {
  i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  k = a.k_begin + int(blockIdx.y * blockDim.y + threadIdx.y);
  return i <= a.g.nx && k < a.k_end;
}

// Block shapes of the study: the thesis's 16 x 16 (Sec. 3.1.3) first, then as many threads in wider
// rows (fewer rows of u a block touches, longer bursts) and the small and large ends.
inline std::vector<Tuning> wave_block_shapes() {
  return tunings_2d({{16, 16}, {32, 8}, {64, 4}, {128, 2}, {256, 1}, {8, 8}, {32, 16}, {32, 32}}, 0);
}

}  // namespace nsb
