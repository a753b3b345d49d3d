// What the imle/mls kernels share: one thread per target cell (the paper's (nc, nc, nc) threads, Sec.
// 3.3) in 2D blocks of bx x by over (i, j), blockIdx.z a z-level of the range handed to the kernel.
#pragma once

#include "grid.hpp"  // before traversals.cuh, which uses Grid without including it
#include "common/traversals.cuh"
#include "imle/mls_call.hpp"

namespace nsb {

// The target cell of this thread among levels [k0, k1); false when it lies outside.
template <class T>
__device__ inline bool mls_target(const MlsArgs<T>& a, int k0, int k1, int& i, int& j, int& k) {
  i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  k = k0 + int(blockIdx.z);
  return i <= a.g.nx && j <= a.g.ny && k < k1;
}

inline dim3 mls_blocks(const Grid& g, int levels, const Tuning& t) {
  return dim3(ceil_div(g.nx, t.bx), ceil_div(g.ny, t.by), unsigned(levels));
}

inline std::vector<Tuning> mls_block_shapes() { return tunings_2d({{32, 4}, {64, 2}, {16, 8}, {32, 2}}, 0); }

}  // namespace nsb
