// pressure/jacobi_shared_zloop: the thesis's shared-memory Jacobi sweep (App. C.5.3). A bx x by block
// stages a (bx+2) x (by+2) x (sz+2) tile of p in shared memory; each thread updates sz levels.
#include "common/tiles.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
__global__ void jacobi_tile_kernel(JacobiPoint<T> op, int k_begin, int k_end, int sz) {
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  const int tx = blockDim.x + 2, ty = blockDim.y + 2;
  T* sp = reinterpret_cast<T*>(smem);
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  load_box(sp, op.p, g, i0 - 1, j0 - 1, k0 - 1, tx, ty, sz + 2);
  __syncthreads();
  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  for (int kk = 0; kk < sz && k0 + kk < k_end; ++kk) {
    const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tx + (kk + 1) * tx * ty;
    const std::size_t n = g.idx(i, j, k0 + kk);
    op.p_new[n] = jacobi_point(PointAt<T>{sp + c, tx, tx * ty}, op.div[n], op.dti, op.coef);
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "pressure/jacobi_shared_zloop");
  if (walk.empty()) return;
  const int sz = walk.sz;
  const std::size_t shared = std::size_t(t.bx + 2) * (t.by + 2) * (sz + 2) * sizeof(T);
  allow_shared((const void*)&jacobi_tile_kernel<T>, shared, t, "pressure/jacobi_shared_zloop");
  jacobi_tile_kernel<T><<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(JacobiPoint<T>(c), c.zr.k_begin,
                                                                              c.zr.k_end, sz);
  NSB_LAUNCHED("jacobi_tile_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_shared_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}},
    .tunings = tunings_2d({{16, 16}, {8, 8}, {16, 8}, {32, 4}, {32, 8}, {64, 4}}, 2),
    .status = "thesis baseline (Fig. 4.5 'optimal', App. C.5.3); negative on an H200: 2.2x slower than global "
              "memory at 256x32x256 float (performance-notes: Fig. 4.4 on an H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"jacobi_tile_kernel<float>", (const void*)&jacobi_tile_kernel<float>, 4},
                {"jacobi_tile_kernel<double>", (const void*)&jacobi_tile_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
