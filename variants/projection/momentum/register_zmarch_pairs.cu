// momentum/register_zmarch_pairs: register_zmarch's walk up z with two neighbouring columns a thread,
// (i, j) and (i+1, j). Why: if float momentum is bound by issued instructions, the pair cuts them: 13
// loads a point instead of 17 (four columns of the same rows), one 64-bit address a loaded row, and the
// face between the two points (flux form, point_formulas.hpp) computed once.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

// Row dj (-1, 0, +1) of a field is loaded when it enters plane top_plane (relative to the level being
// computed) and held down to plane -1. From the offsets the formula reads: every field's own row at
// planes -1..+1, v's row j-1 at 0 and +1 (v(1,-1,0), v(0,-1,1)) and w's row j+1 at -1 and 0
// (w(0,1,-1)); the other rows only at plane 0. Held values a field never reads cost nothing: the
// compiler drops their loads and copies.
template <int Field>
__device__ constexpr int top_plane(int dj) {
  return (dj == 0 || (Field == 1 && dj == -1)) ? 1 : 0;
}

// The values of one field around the pair: planes k-1..k+1, rows j-1..j+1, columns i-1..i+2.
template <class T, int Field>
struct PairWindow {
  const T* c;  // the field at the left point (i, j, k)
  std::ptrdiff_t sy, sz;
  T r[3][3][4];

  // Plain loads, not __ldg: __ldg is an `asm volatile` the compiler must issue even when the value is
  // never read, and the window loads whole rows of which each field reads only some.
  __device__ __forceinline__ void load(int plane, int dj) {
#pragma unroll
    for (int x = 0; x < 4; ++x) r[plane + 1][dj + 1][x] = c[(x - 1) + dj * sy + plane * sz];
  }
  __device__ __forceinline__ void start() {
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj)
#pragma unroll
      for (int plane = -1; plane <= 1; ++plane)
        if (plane <= top_plane<Field>(dj)) load(plane, dj);
  }
  // One level up: every plane moves down, and each row's top plane is loaded.
  __device__ __forceinline__ void advance() {
    c += sz;
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) {
#pragma unroll
      for (int plane = 0; plane < 2; ++plane)
#pragma unroll
        for (int x = 0; x < 4; ++x) r[plane][dj + 1][x] = r[plane + 1][dj + 1][x];
      load(top_plane<Field>(dj), dj);
    }
  }
};

// The window seen from point P of the pair (0: column i, 1: column i+1). Offsets are constants after
// inlining, so this is a register name, not an index.
template <int P, class Window>
struct PairPoint {
  const Window& w;
  __device__ __forceinline__ auto operator()(int di, int dj, int dk) const { return w.r[dk + 1][dj + 1][di + P + 1]; }
};
template <int P, class Window>
__device__ __forceinline__ PairPoint<P, Window> seen_from(const Window& w) {
  return PairPoint<P, Window>{w};
}

template <class Op>
__global__ void momentum_pairs_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  const int i = 1 + 2 * int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (k0 >= k1) return;
  if (i == g.nx) {  // odd nx: the last column has no partner
    for (int k = k0; k < k1; ++k) op(i, j, k, g.idx(i, j, k));
    return;
  }
  const std::ptrdiff_t sy = g.sy(), s = g.sz();
  std::size_t n = g.idx(i, j, k0);
  PairWindow<T, 0> U{op.f.u + n, sy, s};
  PairWindow<T, 1> V{op.f.v + n, sy, s};
  PairWindow<T, 2> W{op.f.w + n, sy, s};
  U.start(), V.start(), W.start();
#pragma unroll 1
  for (int k = k0; k < k1; ++k) {
    if (k > k0) {
      n += std::size_t(s);
      U.advance(), V.advance(), W.advance();
    }
    // Both points' right-hand sides before any store, so nothing stands between their shared terms.
    const auto left = op.rhs(seen_from<0>(U), seen_from<0>(V), seen_from<0>(W));
    const auto right = op.rhs(seen_from<1>(U), seen_from<1>(V), seen_from<1>(W));
    op.store(n, left.u, left.v, left.w, U.r[1][1][1], V.r[1][1][1], W.r[1][1][1]);
    op.store(n + 1, right.u, right.v, right.w, U.r[1][1][2], V.r[1][1][2], W.r[1][1][2]);
  }
}

template <class T>
void run(const StageCall<T>& c) {
  ZWalk walk = z_walk(c, "momentum/register_zmarch_pairs");
  if (walk.empty()) return;
  walk.grid.x = ceil_div(c.grid.nx, 2LL * c.tuning.bx);  // a thread per pair of columns
  with_momentum_point(c, [&](const auto& op) {
    momentum_pairs_kernel<<<walk.grid, walk.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin, c.zr.k_end,
                                                                           walk.sz);
  });
  NSB_LAUNCHED("momentum_pairs_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch_pairs",
    .aliases = {"register_pairs"},
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"points_per_thread", "2"}},
    .tunings = {parse_tuning("bx32_by4_sz16"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx64_by4_sz16"),
                parse_tuning("bx32_by4_sz32"), parse_tuning("bx64_by2_sz32"), parse_tuning("bx128_by2_sz32"),
                parse_tuning("bx32_by4_sz64"), parse_tuning("bx16_by8_sz32")},
    .status = "negative: 93 / 168 registers and no faster than register_zmarch (experiment 20: float 55.5%, double "
              "61.7%)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"momentum_pairs_kernel<float>", (const void*)&momentum_pairs_kernel<MomentumPoint<float, false>>, 4},
                {"momentum_pairs_kernel<double>", (const void*)&momentum_pairs_kernel<MomentumPoint<double, false>>,
                 8}},
}};

}  // namespace
}  // namespace nsb
