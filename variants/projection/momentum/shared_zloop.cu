// momentum/shared_zloop: the thesis's shared-memory momentum kernel (Sec. 3.2.4, App. C.3.2). Each
// bx x by block stages a (bx+2) x (by+2) x (sz+2) tile of u, v and w in shared memory, then every
// thread computes sz levels of its column from the tile: neighbour reads hit shared memory (the thesis's
// GPU had no cache), for (bx+2)(by+2)(sz+2) / (bx by sz) the global reads (2.5x for 16x16x2).
#include "common/tiles.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class Op>
__global__ void momentum_tile_kernel(Op op, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  const int tx = blockDim.x + 2, ty = blockDim.y + 2, tz = sz + 2;
  const int box = tx * ty * tz;
  T* su = reinterpret_cast<T*>(smem);
  T* sv = su + box;
  T* sw = sv + box;
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  load_box(su, op.f.u, g, i0 - 1, j0 - 1, k0 - 1, tx, ty, tz);
  load_box(sv, op.f.v, g, i0 - 1, j0 - 1, k0 - 1, tx, ty, tz);
  load_box(sw, op.f.w, g, i0 - 1, j0 - 1, k0 - 1, tx, ty, tz);
  __syncthreads();
  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  for (int kk = 0; kk < sz && k0 + kk < k_end; ++kk) {
    const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tx + (kk + 1) * tx * ty;
    const PointAt<T> u{su + c, tx, tx * ty}, v{sv + c, tx, tx * ty}, w{sw + c, tx, tx * ty};
    op.compute(g.idx(i, j, k0 + kk), u, v, w);
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "momentum/shared_zloop");
  if (walk.empty()) return;
  const int sz = walk.sz;
  const std::size_t shared = 3 * std::size_t(t.bx + 2) * (t.by + 2) * (sz + 2) * sizeof(T);
  with_momentum_point(c, [&](const auto& op) {
    const void* kernel = (const void*)&momentum_tile_kernel<std::decay_t<decltype(op)>>;
    allow_shared(kernel, shared, t, "momentum/shared_zloop");
    momentum_tile_kernel<<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(op, c.zr.k_begin, c.zr.k_end, sz);
  });
  NSB_LAUNCHED("momentum_tile_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}},
    .tunings = tunings_2d({{16, 16}, {8, 8}, {16, 8}, {32, 4}, {32, 8}}, 2),
    .status = "thesis baseline (Fig. 4.5 'optimal'); negative on an H200: 3.1x slower than global memory at "
              "256x32x256 float (performance-notes: Fig. 4.4 on an H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_tile_kernel<float>", (const void*)&momentum_tile_kernel<MomentumPoint<float, false>>, 4},
                {"momentum_tile_kernel<double>", (const void*)&momentum_tile_kernel<MomentumPoint<double, false>>, 8}},
}};

}  // namespace
}  // namespace nsb
