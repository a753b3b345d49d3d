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

template <class Op>
__device__ __forceinline__ void zmarch_walk(const Op& op, const Grid& g, int k_begin, int k_end, int sz) {
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

// The walk as compiled without a request (the compiler picks the registers: 56 float, 122 double).
template <class Op>
__global__ void momentum_zmarch_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  zmarch_walk(op, g, k_begin, k_end, sz);
}

// The same walk compiled to fit MinBlocks blocks of up to 256 threads on an SM, which caps registers
// at 65536 / (256 * MinBlocks): occupancy bought with possible spills. Double needs 122 registers,
// room for two such blocks (16 warps) to hide its load latency; tunings ending in _mb3 measure what a
// third block buys (85 registers at most). Measured at 512^3 (docs/performance-notes.md): double
// gains, float loses, a cap of 64 (mb4) spills. A launch-bounds instance with MinBlocks = 1 is not the
// unbounded kernel: told "256 threads" the compiler took 91 / 153 registers and ran slower.
constexpr int kBoundedMaxThreads = 256;
template <int MinBlocks, class Op>
__global__ void __launch_bounds__(kBoundedMaxThreads, MinBlocks)
    momentum_zmarch_bounded_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  zmarch_walk(op, g, k_begin, k_end, sz);
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "momentum/register_zmarch");
  if (walk.empty()) return;
  if (t.mb == 0) {
    with_momentum_point(c, [&](const auto& op) {
      momentum_zmarch_kernel<<<walk.grid, walk.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin, c.zr.k_end,
                                                                              walk.sz);
    });
    NSB_LAUNCHED("momentum_zmarch_kernel");
    return;
  }
  if (t.mb != 3)
    throw std::runtime_error("momentum/register_zmarch: tuning " + t.name + " asks for mb" + std::to_string(t.mb) +
                             "; the compiled instances are: none and mb3");
  if (t.bx * t.by > kBoundedMaxThreads)
    throw std::runtime_error("momentum/register_zmarch: tuning " + t.name + " has " + std::to_string(t.bx * t.by) +
                             " threads a block; the mb3 instance is compiled for at most " +
                             std::to_string(kBoundedMaxThreads));
  with_momentum_point(c, [&](const auto& op) {
    momentum_zmarch_bounded_kernel<3><<<walk.grid, walk.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin,
                                                                                       c.zr.k_end, walk.sz);
  });
  NSB_LAUNCHED("momentum_zmarch_bounded_kernel");
}

const Registrar reg{Variant{
    .stage = StageKind::momentum,
    .name = "register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = {parse_tuning("bx32_by4_sz16"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx64_by4_sz16"),
                parse_tuning("bx64_by4_sz32"), parse_tuning("bx128_by2_sz32"), parse_tuning("bx256_by1_sz32"),
                parse_tuning("bx32_by4_sz64"), parse_tuning("bx64_by2_sz64"), parse_tuning("bx32_by4_sz16_mb3"),
                parse_tuning("bx64_by4_sz32_mb3"), parse_tuning("bx128_by2_sz32_mb3")},
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_zmarch_kernel<float>", (const void*)&momentum_zmarch_kernel<MomentumPoint<float, false>>, 4},
                {"momentum_zmarch_kernel<double>", (const void*)&momentum_zmarch_kernel<MomentumPoint<double, false>>, 8},
                {"momentum_zmarch_bounded_kernel<3, float>",
                 (const void*)&momentum_zmarch_bounded_kernel<3, MomentumPoint<float, false>>, 4, 3},
                {"momentum_zmarch_bounded_kernel<3, double>",
                 (const void*)&momentum_zmarch_bounded_kernel<3, MomentumPoint<double, false>>, 8, 3}},
}};

}  // namespace
}  // namespace nsb
