// momentum/shared_zmarch_pipelined: shared_zmarch's 2.5D walk (a ring of (bx+2) x (by+2) planes of u, v
// and w in shared memory, each plane read from global memory once per block) with the global loads
// of plane k+2 issued into registers before the compute of level k and stored into the ring after it.
//
// Why: ncu at 512^3 (docs/performance-notes.md, experiment 18) shows the register walks bound by L2
// throughput (80-90%, DRAM 50-60%): the rows j-1 and j+1 and the x-neighbours are fetched from L2 again
// by every warp that reads them. A ring in shared memory reads each value from L2 once per block
// ((bx+2)(by+2)/(bx by) of the interior), but shared_zmarch loads a plane and waits for it before every
// level. Here the wait overlaps the compute of the level before: the ring has four slots, so the slot
// being filled (k+2) is never one being read (k-1, k, k+1), and one barrier a level suffices.
#include "common/tiles.cuh"
#include "point_ops.hpp"

namespace nsb {
namespace {

constexpr int kSlots = 4;
constexpr int kFields = 3;

// The block shape is a template parameter: every shared-memory offset of the stencil is then a
// constant, so the 27 reads of a point take immediate offsets from one address per plane, and the
// plane copy needs no division (tuning shapes without an instance are refused).
template <int BX, int BY, class Op>
__global__ void momentum_pipelined_kernel(Op op, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  constexpr int tx = BX + 2, ty = BY + 2, plane = tx * ty, threads = BX * BY;
  constexpr int per_thread = (plane + threads - 1) / threads;  // plane points a thread copies
  static_assert(per_thread <= 2, "halo larger than the interior");
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  T* ring = reinterpret_cast<T*>(smem);  // [field][slot][plane]
  auto slot = [&](int field, int k) { return ring + (field * kSlots + (k & (kSlots - 1))) * plane; };
  const int i0 = 1 + int(blockIdx.x) * BX, j0 = 1 + int(blockIdx.y) * BY;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (k0 >= k1) return;  // the whole block leaves: no barrier is left waiting

  // The plane points this thread copies, fixed for the whole walk: their place in the field's plane
  // (from the block's corner) and in a ring plane. Points beyond the padded array are not copied; no
  // interior point reads them.
  const int tid = int(threadIdx.x) + int(threadIdx.y) * BX;
  const T* src[kFields][per_thread];
  int dst[per_thread];
  bool copies[per_thread];
  const T* fields[kFields] = {op.f.u, op.f.v, op.f.w};
#pragma unroll
  for (int m = 0; m < per_thread; ++m) {
    const int q = tid + m * threads, a = q % tx, b = q / tx;  // constants divide by multiplication
    const int i = i0 - 1 + a, j = j0 - 1 + b;
    copies[m] = q < plane && i < g.NX() && j < g.NY();
    dst[m] = q;
#pragma unroll
    for (int f = 0; f < kFields; ++f) src[f][m] = fields[f] + (std::ptrdiff_t(i) + std::ptrdiff_t(j) * g.sy());
  }
  const std::ptrdiff_t s = g.sz();
  auto load_plane = [&](int k, T (&held)[kFields][per_thread]) {
#pragma unroll
    for (int f = 0; f < kFields; ++f)
#pragma unroll
      for (int m = 0; m < per_thread; ++m)
        if (copies[m]) held[f][m] = __ldg(src[f][m] + std::ptrdiff_t(k) * s);
  };
  auto store_plane = [&](int k, const T (&held)[kFields][per_thread]) {
#pragma unroll
    for (int f = 0; f < kFields; ++f)
#pragma unroll
      for (int m = 0; m < per_thread; ++m)
        if (copies[m]) slot(f, k)[dst[m]] = held[f][m];
  };

  T held[kFields][per_thread] = {};
  for (int k = k0 - 1; k <= k0 + 1; ++k) {
    load_plane(k, held);
    store_plane(k, held);
  }
  __syncthreads();

  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  const int c = (int(threadIdx.x) + 1) + (int(threadIdx.y) + 1) * tx;
  std::size_t n = g.idx(i, j, k0);
  for (int k = k0; k < k1; ++k, n += std::size_t(s)) {
    const bool next = k + 1 < k1;  // the next level needs plane k+2
    if (next) load_plane(k + 2, held);
    if (inside) {
      const RingAt<T> u{slot(0, k - 1) + c, slot(0, k) + c, slot(0, k + 1) + c, tx};
      const RingAt<T> v{slot(1, k - 1) + c, slot(1, k) + c, slot(1, k + 1) + c, tx};
      const RingAt<T> w{slot(2, k - 1) + c, slot(2, k) + c, slot(2, k + 1) + c, tx};
      op.compute(n, u, v, w);
    }
    if (next) store_plane(k + 2, held);
    __syncthreads();
  }
}

// The compiled block shapes.
template <class Op>
using PipelinedKernel = void (*)(Op, int, int, int);
template <class Op>
PipelinedKernel<Op> pipelined_kernel_for(int bx, int by) {
  if (bx == 32 && by == 4) return &momentum_pipelined_kernel<32, 4, Op>;
  if (bx == 32 && by == 8) return &momentum_pipelined_kernel<32, 8, Op>;
  if (bx == 64 && by == 4) return &momentum_pipelined_kernel<64, 4, Op>;
  if (bx == 128 && by == 4) return &momentum_pipelined_kernel<128, 4, Op>;
  return nullptr;
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "momentum/shared_zmarch_pipelined");
  if (walk.empty()) return;
  const std::size_t shared = std::size_t(kFields) * kSlots * (t.bx + 2) * (t.by + 2) * sizeof(T);
  with_momentum_point(c, [&](const auto& op) {
    const auto kernel = pipelined_kernel_for<std::decay_t<decltype(op)>>(t.bx, t.by);
    if (!kernel)
      throw std::runtime_error("momentum/shared_zmarch_pipelined: tuning " + t.name +
                               " asks for a block shape without a compiled instance (32x4, 32x8, 64x4, 128x4)");
    allow_shared((const void*)kernel, shared, t, "momentum/shared_zmarch_pipelined");
    kernel<<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(op, c.zr.k_begin, c.zr.k_end, walk.sz);
  });
  NSB_LAUNCHED("momentum_pipelined_kernel");
}

const Registrar reg{Variant{
    .stage = StageKind::momentum,
    .name = "shared_zmarch_pipelined",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "registers"}},
    .tunings = {parse_tuning("bx32_by8_sz32"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx64_by4_sz32"),
                parse_tuning("bx64_by4_sz16"), parse_tuning("bx32_by4_sz32"), parse_tuning("bx32_by4_sz16"),
                parse_tuning("bx128_by4_sz32"), parse_tuning("bx32_by8_sz0")},
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_pipelined_kernel<32, 8, float>",
                 (const void*)&momentum_pipelined_kernel<32, 8, MomentumPoint<float, false>>, 4},
                {"momentum_pipelined_kernel<32, 8, double>",
                 (const void*)&momentum_pipelined_kernel<32, 8, MomentumPoint<double, false>>, 8}},
}};

}  // namespace
}  // namespace nsb
