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
constexpr int kMaxPerThread = 2;  // plane points a thread copies: (bx+2)(by+2) <= 2 bx by for every tuning

template <class Op>
__global__ void momentum_pipelined_kernel(Op op, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  const int tx = blockDim.x + 2, ty = blockDim.y + 2, plane = tx * ty;
  T* ring = reinterpret_cast<T*>(smem);  // [field][slot][plane]
  auto slot = [&](int field, int k) { return ring + (field * kSlots + k % kSlots) * plane; };
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (k0 >= k1) return;  // the whole block leaves: no barrier is left waiting
  const T* fields[kFields] = {op.f.u, op.f.v, op.f.w};

  // The plane points this thread copies, fixed for the whole walk: where they are in a plane of the
  // field (relative to the plane's start) and in a ring plane. Points beyond the padded array are
  // not copied; no interior point reads them.
  const int threads = blockDim.x * blockDim.y, tid = threadIdx.x + threadIdx.y * blockDim.x;
  std::ptrdiff_t src[kMaxPerThread];
  int dst[kMaxPerThread];
  bool copies[kMaxPerThread];
#pragma unroll
  for (int m = 0; m < kMaxPerThread; ++m) {
    const int q = tid + m * threads, a = q % tx, b = q / tx;
    const int i = i0 - 1 + a, j = j0 - 1 + b;
    copies[m] = q < plane && i < g.NX() && j < g.NY();
    src[m] = std::ptrdiff_t(i) + std::ptrdiff_t(j) * g.sy();
    dst[m] = q;
  }
  auto load_plane = [&](int k, T (&held)[kFields][kMaxPerThread]) {
#pragma unroll
    for (int f = 0; f < kFields; ++f)
#pragma unroll
      for (int m = 0; m < kMaxPerThread; ++m)
        if (copies[m]) held[f][m] = __ldg(fields[f] + std::ptrdiff_t(k) * g.sz() + src[m]);
  };
  auto store_plane = [&](int k, const T (&held)[kFields][kMaxPerThread]) {
#pragma unroll
    for (int f = 0; f < kFields; ++f)
#pragma unroll
      for (int m = 0; m < kMaxPerThread; ++m)
        if (copies[m]) slot(f, k)[dst[m]] = held[f][m];
  };

  T held[kFields][kMaxPerThread] = {};
  for (int k = k0 - 1; k <= k0 + 1; ++k) {
    load_plane(k, held);
    store_plane(k, held);
  }
  __syncthreads();

  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tx;
  for (int k = k0; k < k1; ++k) {
    const bool next = k + 1 < k1;  // the next level needs plane k+2
    if (next) load_plane(k + 2, held);
    if (inside) {
      const RingAt<T> u{slot(0, k - 1) + c, slot(0, k) + c, slot(0, k + 1) + c, tx};
      const RingAt<T> v{slot(1, k - 1) + c, slot(1, k) + c, slot(1, k + 1) + c, tx};
      const RingAt<T> w{slot(2, k - 1) + c, slot(2, k) + c, slot(2, k + 1) + c, tx};
      op.compute(g.idx(i, j, k), u, v, w);
    }
    if (next) store_plane(k + 2, held);
    __syncthreads();
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "momentum/shared_zmarch_pipelined");
  if (walk.empty()) return;
  if ((t.bx + 2) * (t.by + 2) > kMaxPerThread * t.bx * t.by)
    throw std::runtime_error("momentum/shared_zmarch_pipelined: tuning " + t.name + " has a halo larger than its " +
                             "interior; a thread copies at most " + std::to_string(kMaxPerThread) + " points a plane");
  const std::size_t shared = std::size_t(kFields) * kSlots * (t.bx + 2) * (t.by + 2) * sizeof(T);
  with_momentum_point(c, [&](const auto& op) {
    const void* kernel = (const void*)&momentum_pipelined_kernel<std::decay_t<decltype(op)>>;
    allow_shared(kernel, shared, t, "momentum/shared_zmarch_pipelined");
    momentum_pipelined_kernel<<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(op, c.zr.k_begin, c.zr.k_end,
                                                                                   walk.sz);
  });
  NSB_LAUNCHED("momentum_pipelined_kernel");
}

const Registrar reg{Variant{
    .stage = StageKind::momentum,
    .name = "shared_zmarch_pipelined",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "registers"}},
    .tunings = {parse_tuning("bx32_by8_sz32"), parse_tuning("bx32_by8_sz64"), parse_tuning("bx64_by4_sz32"),
                parse_tuning("bx32_by4_sz32"), parse_tuning("bx64_by8_sz32"), parse_tuning("bx32_by16_sz32"),
                parse_tuning("bx128_by4_sz32"), parse_tuning("bx32_by8_sz0")},
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_pipelined_kernel<float>", (const void*)&momentum_pipelined_kernel<MomentumPoint<float, false>>,
                 4},
                {"momentum_pipelined_kernel<double>",
                 (const void*)&momentum_pipelined_kernel<MomentumPoint<double, false>>, 8}},
}};

}  // namespace
}  // namespace nsb
