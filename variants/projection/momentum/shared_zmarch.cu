// momentum/shared_zmarch: 2.5D z-marching. A bx x by block walks its columns upward through a chunk
// of sz levels (0: the whole column), keeping the planes k-1, k, k+1 of u, v and w in a ring of
// shared-memory planes with a one-point halo. Each plane is read from global memory once per block,
// so the halo overhead is (bx+2)(by+2)/(bx by) (1.33x for 32x8) instead of the z-loop tile's.
#include "common/tiles.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class Op>
__global__ void momentum_zmarch_kernel(Op op, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  const int tx = blockDim.x + 2, ty = blockDim.y + 2, plane = tx * ty;
  T* ring = reinterpret_cast<T*>(smem);  // [field][slot][plane]
  auto slot = [&](int field, int k) { return ring + (field * 3 + (k + 3) % 3) * plane; };
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  const T* fields[3] = {op.f.u, op.f.v, op.f.w};
  for (int f = 0; f < 3; ++f) {
    load_box(slot(f, k0 - 1), fields[f], g, i0 - 1, j0 - 1, k0 - 1, tx, ty, 1);
    load_box(slot(f, k0), fields[f], g, i0 - 1, j0 - 1, k0, tx, ty, 1);
  }
  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tx;
  for (int k = k0; k < k1; ++k) {
    for (int f = 0; f < 3; ++f) load_box(slot(f, k + 1), fields[f], g, i0 - 1, j0 - 1, k + 1, tx, ty, 1);
    __syncthreads();
    if (inside) {
      const RingAt<T> u{slot(0, k - 1) + c, slot(0, k) + c, slot(0, k + 1) + c, tx};
      const RingAt<T> v{slot(1, k - 1) + c, slot(1, k) + c, slot(1, k + 1) + c, tx};
      const RingAt<T> w{slot(2, k - 1) + c, slot(2, k) + c, slot(2, k + 1) + c, tx};
      op.compute(g.idx(i, j, k), u, v, w);
    }
    __syncthreads();  // the slot of k-1 is refilled with k+2 next
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "momentum/shared_zmarch");
  if (walk.empty()) return;
  const int sz = walk.sz;
  const std::size_t shared = 9 * std::size_t(t.bx + 2) * (t.by + 2) * sizeof(T);
  with_momentum_point(c, [&](const auto& op) {
    const void* kernel = (const void*)&momentum_zmarch_kernel<std::decay_t<decltype(op)>>;
    allow_shared(kernel, shared, t, "momentum/shared_zmarch");
    momentum_zmarch_kernel<<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(op, c.zr.k_begin, c.zr.k_end, sz);
  });
  NSB_LAUNCHED("momentum_zmarch_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = {parse_tuning("bx32_by8_sz32"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx32_by4_sz32"),
                parse_tuning("bx64_by4_sz32"), parse_tuning("bx32_by8_sz0"), parse_tuning("bx16_by16_sz32")},
    .status = "study axis: the ring with no copy in flight, each plane loaded and waited for (experiment 24: 24% / "
              "33% of copy, float / double Euler, 512^3, H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_zmarch_kernel<float>", (const void*)&momentum_zmarch_kernel<MomentumPoint<float, false>>, 4},
                {"momentum_zmarch_kernel<double>", (const void*)&momentum_zmarch_kernel<MomentumPoint<double, false>>, 8}},
}};

}  // namespace
}  // namespace nsb
