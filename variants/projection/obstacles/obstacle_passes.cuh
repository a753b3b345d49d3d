// What the obstacle-logic variants share: a 2D traversal over the whole padded array (the zero mask
// and the first sweep also run on ghost points, urban_formulas.hpp) and the compacted-list passes.
#pragma once

#include "common/traversals.cuh"
#include "projection/urban_ops.hpp"

namespace nsb {

// A bx x by block over padded x-y, each thread walking sz padded z-levels (sz = 0: all of them).
template <class Op>
__global__ void padded_2d_kernel(Op op, Grid g, int sz) {
  const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i >= g.NX() || j >= g.NY()) return;
  const int k0 = int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, g.NZ());
  for (int k = k0; k < k1; ++k) op(i, j, k, g.idx(i, j, k));
}

template <class Op, class Call>
void launch_padded_2d(const Op& op, const Call& c) {
  const Tuning& t = c.tuning;
  check_block(t.bx * t.by, "padded 2D traversal");
  const int sz = t.sz > 0 ? t.sz : c.grid.NZ();
  const dim3 grid(ceil_div(c.grid.NX(), t.bx), ceil_div(c.grid.NY(), t.by), ceil_div(c.grid.NZ(), sz));
  padded_2d_kernel<<<grid, dim3(t.bx, t.by), 0, stream_of(c.exec)>>>(op, c.grid, sz);
  NSB_LAUNCHED("padded_2d_kernel");
}

// The fused obstacle logic at every padded point, into the workspace at the same index.
template <class T>
struct ObstacleFusedWhole {
  ObstacleFusedPoint<T> p;
  NSB_HD void operator()(int i, int j, int k, std::size_t n) const { p(i, j, k, n, n); }
};

// The compacted list, pass 1: the result of listed point m (padded index cells[m]) into slot m of the
// workspace; pass 2: the workspace back into u* v* w*. Two passes, because a point's result reads
// its neighbours' unmodified values.
template <class T>
__global__ void obstacle_list_compute_kernel(ObstacleFusedPoint<T> op, const std::uint32_t* cells, std::size_t count) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count;
       m += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t n = cells[m];
    const ObstacleSite s = obstacle_site(op.g, n);
    op(s.pos[0], s.pos[1], s.pos[2], n, m);
  }
}
template <class T>
__global__ void obstacle_list_store_kernel(FieldPtrs<T> f, const std::uint32_t* cells, std::size_t count) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count;
       m += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t n = cells[m];
    f.us[n] = f.ut[m], f.vs[n] = f.vt[m], f.ws[n] = f.wt[m];
  }
}

}  // namespace nsb
