// momentum/register_zmarch: the thesis's 2D blocks walking z, but each thread keeps in registers every
// value of its walk that the next level needs again, and loads only the rest.
//
// One point reads 27 values (each component's 7-point star plus two cross-derivative corners per field,
// point_formulas.hpp). Walking up z, 10 of them were already read at the level below: each field's own
// column (k-1, k from the previous level's k, k+1), u(-1,0,k) (read as u(-1,0,k+1) one level down),
// v(0,-1,k) likewise, and w(1,0,k-1), w(0,1,k-1) (read as w(1,0,k), w(0,1,k) one level down). So a point
// costs 17 loads instead of 27. Momentum is bound by issued instructions, not bytes
// (docs/performance-notes.md), and loads with their address arithmetic are a large share of them.
#include "common/traversals.cuh"
#include "point_ops.hpp"

namespace nsb {
namespace {

// One field seen from the point being computed. The walk's held values answer the offsets they
// stand for; every other offset is a read-only load. The offsets are constants after inlining, so the
// choice costs nothing at run time. Field: 0 = u, 1 = v, 2 = w (which cross-derivative corners it holds).
template <class T, int Field>
struct WalkWindow {
  const T* c;  // the field at the point
  std::ptrdiff_t sy, sz;
  T below, centre, above;  // (0,0,-1), (0,0,0), (0,0,+1)
  T h0, h1, h2, h3;        // u: (-1,0,0), (-1,0,1); v: (0,-1,0), (0,-1,1); w: (1,0,0), (1,0,-1), (0,1,0), (0,1,-1)
  __device__ T operator()(int di, int dj, int dk) const {
    if (di == 0 && dj == 0) return dk < 0 ? below : (dk > 0 ? above : centre);
    if constexpr (Field == 0) {
      if (di == -1 && dj == 0 && dk == 0) return h0;
      if (di == -1 && dj == 0 && dk == 1) return h1;
    } else if constexpr (Field == 1) {
      if (di == 0 && dj == -1 && dk == 0) return h0;
      if (di == 0 && dj == -1 && dk == 1) return h1;
    } else {
      if (di == 1 && dj == 0 && dk == 0) return h0;
      if (di == 1 && dj == 0 && dk == -1) return h1;
      if (di == 0 && dj == 1 && dk == 0) return h2;
      if (di == 0 && dj == 1 && dk == -1) return h3;
    }
    return __ldg(c + (di + dj * sy + dk * sz));
  }
};

// Every tuning here has at most 256 threads a block. MinBlocks > 1 asks the compiler to fit that many
// blocks on an SM, capping registers at 65536 / (256 * MinBlocks) (3: 85, 4: 64): occupancy bought
// with possible spills. Double needs 122 registers, which leaves room for only two blocks (16 warps)
// to hide the latency of its loads; tunings ending in _mb3 / _mb4 measure what more warps buy.
constexpr int kZmarchMaxThreads = 256;
template <int MinBlocks, class Op>
__global__ void __launch_bounds__(kZmarchMaxThreads, MinBlocks)
    momentum_zmarch_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (k0 >= k1) return;
  const std::ptrdiff_t sy = g.sy(), s = g.sz();
  std::size_t n = g.idx(i, j, k0);
  const T *u = op.f.u + n, *v = op.f.v + n, *w = op.f.w + n;
  WalkWindow<T, 0> U{u, sy, s, __ldg(u - s), __ldg(u), __ldg(u + s), __ldg(u - 1), __ldg(u - 1 + s), T(0), T(0)};
  WalkWindow<T, 1> V{v, sy, s, __ldg(v - s), __ldg(v), __ldg(v + s), __ldg(v - sy), __ldg(v - sy + s), T(0), T(0)};
  WalkWindow<T, 2> W{w, sy, s, __ldg(w - s), __ldg(w), __ldg(w + s), __ldg(w + 1), __ldg(w + 1 - s), __ldg(w + sy),
                     __ldg(w + sy - s)};
  for (int k = k0;;) {
    op.compute(n, U, V, W);
    if (++k >= k1) break;
    n += std::size_t(s);
    U.c += s, V.c += s, W.c += s;
    // Planes k-1, k, k+1 of the new level: the old centre and above move down, above is loaded.
    U.below = U.centre, U.centre = U.above, U.above = __ldg(U.c + s);
    V.below = V.centre, V.centre = V.above, V.above = __ldg(V.c + s);
    W.below = W.centre, W.centre = W.above, W.above = __ldg(W.c + s);
    U.h0 = U.h1, U.h1 = __ldg(U.c - 1 + s);
    V.h0 = V.h1, V.h1 = __ldg(V.c - sy + s);
    W.h1 = W.h0, W.h0 = __ldg(W.c + 1);
    W.h3 = W.h2, W.h2 = __ldg(W.c + sy);
  }
}

template <int MinBlocks, class T>
void launch(const StageCall<T>& c, const ZWalk& walk) {
  with_momentum_point(c, [&](const auto& op) {
    momentum_zmarch_kernel<MinBlocks><<<walk.grid, walk.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin,
                                                                                       c.zr.k_end, walk.sz);
  });
  NSB_LAUNCHED("momentum_zmarch_kernel");
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  if (t.bx * t.by > kZmarchMaxThreads)
    throw std::runtime_error("momentum/register_zmarch: tuning " + t.name + " has " + std::to_string(t.bx * t.by) +
                             " threads a block; the kernel is compiled for at most " +
                             std::to_string(kZmarchMaxThreads));
  const ZWalk walk = z_walk(c, "momentum/register_zmarch");
  if (walk.empty()) return;
  switch (t.mb) {
    case 0: return launch<1>(c, walk);
    case 3: return launch<3>(c, walk);
    case 4: return launch<4>(c, walk);
    default:
      throw std::runtime_error("momentum/register_zmarch: tuning " + t.name + " asks for mb" + std::to_string(t.mb) +
                               "; compiled instances: none, mb3, mb4");
  }
}

template <int MinBlocks>
std::vector<KernelRef> zmarch_kernels() {
  const std::string suffix = MinBlocks > 1 ? ", mb" + std::to_string(MinBlocks) + ">" : ">";
  const int tuning_mb = MinBlocks > 1 ? MinBlocks : 0;
  return {{"momentum_zmarch_kernel<float" + suffix,
           (const void*)&momentum_zmarch_kernel<MinBlocks, MomentumPoint<float, false>>, 4, tuning_mb},
          {"momentum_zmarch_kernel<double" + suffix,
           (const void*)&momentum_zmarch_kernel<MinBlocks, MomentumPoint<double, false>>, 8, tuning_mb}};
}
std::vector<KernelRef> all_zmarch_kernels() {
  std::vector<KernelRef> k = zmarch_kernels<1>();
  for (auto more : {zmarch_kernels<3>(), zmarch_kernels<4>()}) k.insert(k.end(), more.begin(), more.end());
  return k;
}

const Registrar reg{Variant{
    .stage = StageKind::momentum,
    .name = "register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = {parse_tuning("bx32_by4_sz16"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx64_by4_sz16"),
                parse_tuning("bx64_by4_sz32"), parse_tuning("bx128_by2_sz32"), parse_tuning("bx256_by1_sz32"),
                parse_tuning("bx32_by4_sz64"), parse_tuning("bx64_by2_sz64"), parse_tuning("bx32_by4_sz16_mb3"),
                parse_tuning("bx64_by4_sz32_mb3"), parse_tuning("bx128_by2_sz32_mb3"), parse_tuning("bx32_by4_sz16_mb4"),
                parse_tuning("bx64_by4_sz32_mb4")},
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = all_zmarch_kernels(),
}};

}  // namespace
}  // namespace nsb
