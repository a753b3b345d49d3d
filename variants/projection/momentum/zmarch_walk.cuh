// The z-walk of the register-resident momentum variants (register_zmarch*): the thesis's 2D blocks
// walking z, each thread keeping in registers the values of its walk that the next level needs again
// and loading only the rest. What a variant does at each point is its Visit policy.
//
// One point reads 27 values (each component's 7-point star plus two cross-derivative corners per field,
// point_formulas.hpp). Walking up z, 10 of them were already read at the level below: each field's own
// column (k-1, k from the previous level's k, k+1), u(-1,0,k) (read as u(-1,0,k+1) one level down),
// v(0,-1,k) likewise, and w(1,0,k-1), w(0,1,k-1) (read as w(1,0,k), w(0,1,k) one level down). So a point
// costs 17 loads instead of 27. Values a policy never reads are never loaded (the compiler drops them).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {

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

// The visit of register_zmarch: every point computes all six faces of each component.
template <class Op>
struct RecomputeEveryFace {
  template <class U, class V, class W>
  __device__ void operator()(const Op& op, std::size_t n, const U& u, const V& v, const W& w, bool) const {
    op.compute(n, u, v, w);
  }
};

// Whether a visit policy asks the block's threads to walk in lockstep (Visit::kLockstep): a barrier
// after every level, so that no warp runs ahead of its neighbours (register_zmarch_lockstep.cu).
template <class V>
constexpr bool walks_in_lockstep() {
  if constexpr (requires { V::kLockstep; }) return V::kLockstep;
  else return false;
}

// How many levels ahead a visit policy asks the walk to prefetch its column into L1 (Visit::kPrefetch,
// register_zmarch_prefetch.cu); 0: none.
template <class V>
constexpr int prefetch_levels() {
  if constexpr (requires { V::kPrefetch; }) return V::kPrefetch;
  else return 0;
}
// Whether a visit policy asks the walk to load each level's new values a level early, into registers
// (Visit::kLoadAhead, register_zmarch_ahead.cu).
template <class V>
constexpr bool loads_ahead() {
  if constexpr (requires { V::kLoadAhead; }) return V::kLoadAhead;
  else return false;
}
template <class T>
__device__ __forceinline__ void prefetch_l1(const T* p) {
  asm volatile("prefetch.global.L1 [%0];" ::"l"(p));
}

// The walk of one thread: its column from level k0 of its chunk up, the windows moved one level at a
// time. Visit<Op> says what happens at a point: visit(op, n, U, V, W, first_level).
template <template <class> class Visit, class Op>
__device__ __forceinline__ void zmarch_walk(const Op& op, const Grid& g, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  constexpr bool lockstep = walks_in_lockstep<Visit<Op>>();
  constexpr int ahead = prefetch_levels<Visit<Op>>();
  constexpr bool load_ahead = loads_ahead<Visit<Op>>();
  int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  if (!inside) {
    if constexpr (!lockstep) return;
    i = min(i, g.nx), j = min(j, g.ny);  // walks a grid point to take part in the barriers; stores nothing
  }
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
  // The values a level loads, given the field pointers at that level: planes k+1 of each column and of
  // u(-1,0), v(0,-1); w(1,0,k) and w(0,1,k). With load_ahead they are loaded during the level before.
  struct Fresh {
    T u_above, u_h1, v_above, v_h1, w_above, w_h0, w_h2;
  };
  auto load_level = [&](const T* uc, const T* vc, const T* wc) {
    return Fresh{__ldg(uc + s), __ldg(uc - 1 + s), __ldg(vc + s), __ldg(vc - sy + s),
                 __ldg(wc + s), __ldg(wc + 1),     __ldg(wc + sy)};
  };
  Fresh next{};
  if (load_ahead && k0 + 1 < k1) next = load_level(U.c + s, V.c + s, W.c + s);
  Visit<Op> visit;
  for (int k = k0;;) {
    if (inside) visit(op, n, U, V, W, k == k0);
    if (++k >= k1) break;
    if constexpr (lockstep) __syncthreads();
    n += std::size_t(s);
    U.c += s, V.c += s, W.c += s;
    const Fresh fresh = load_ahead ? next : load_level(U.c, V.c, W.c);
    if (load_ahead && k + 1 < k1) next = load_level(U.c + s, V.c + s, W.c + s);  // in flight during level k
    // Planes k-1, k, k+1 of the new level: the old centre and above move down, above is new.
    U.below = U.centre, U.centre = U.above, U.above = fresh.u_above;
    V.below = V.centre, V.centre = V.above, V.above = fresh.v_above;
    W.below = W.centre, W.centre = W.above, W.above = fresh.w_above;
    U.h0 = U.h1, U.h1 = fresh.u_h1;
    V.h0 = V.h1, V.h1 = fresh.v_h1;
    W.h1 = W.h0, W.h0 = fresh.w_h0;
    W.h3 = W.h2, W.h2 = fresh.w_h2;
    if constexpr (ahead > 0) {
      if (k + 1 + ahead < g.NZ()) {
        prefetch_l1(U.c + (1 + ahead) * s), prefetch_l1(V.c + (1 + ahead) * s), prefetch_l1(W.c + (1 + ahead) * s);
      }
    }
  }
}

// The walk as compiled without a request (the compiler picks the registers; docs/performance-notes.md,
// experiment 18).
template <template <class> class Visit, class Op>
__global__ void momentum_zmarch_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  zmarch_walk<Visit>(op, g, k_begin, k_end, sz);
}

// The same walk compiled to fit MinBlocks blocks of up to 256 threads on an SM, which caps registers
// at 65536 / (256 * MinBlocks): occupancy bought with possible spills (_mb3; experiments 16 and 18). A
// launch-bounds instance with MinBlocks = 1 is not the unbounded kernel: told "256 threads" the
// compiler took more registers and ran slower (experiment 16).
constexpr int kBoundedMaxThreads = 256;
template <int MinBlocks, template <class> class Visit, class Op>
__global__ void __launch_bounds__(kBoundedMaxThreads, MinBlocks)
    momentum_zmarch_bounded_kernel(Op op, Grid g, int k_begin, int k_end, int sz) {
  zmarch_walk<Visit>(op, g, k_begin, k_end, sz);
}

// One compiled walk: unbounded (MinBlocks 0) or bounded to MinBlocks blocks an SM.
template <class Op>
using ZmarchKernel = void (*)(Op, Grid, int, int, int);
template <int MinBlocks, template <class> class Visit, class Op>
constexpr ZmarchKernel<Op> zmarch_kernel() {
  if constexpr (MinBlocks == 0) return &momentum_zmarch_kernel<Visit, Op>;
  else return &momentum_zmarch_bounded_kernel<MinBlocks, Visit, Op>;
}

// The entry point of one compiled walk.
template <template <class> class Visit, int MinBlocks, class T>
void launch_zmarch(const StageCall<T>& c) {
  const ZWalk walk = z_walk(c, "momentum z-walk");
  if (walk.empty()) return;
  with_momentum_point(c, [&](const auto& op) {
    const auto kernel = zmarch_kernel<MinBlocks, Visit, std::decay_t<decltype(op)>>();
    kernel<<<walk.grid, walk.block, 0, stream_of(c.exec)>>>(op, c.grid, c.zr.k_begin, c.zr.k_end, walk.sz);
  });
  NSB_LAUNCHED("momentum_zmarch_kernel");
}

// A tuning of a z-walk variant with the walk it runs: zmarch_tuning<Visit, 3>("bx64_by4_sz32_mb3") (the
// name's mb; its block shape and sz are read at run time). The instance is built once per template
// arguments; a name that does not spell them, or a bounded tuning of more than kBoundedMaxThreads
// threads, stops the program as the variant registers (std::logic_error at start-up: a bug, never an
// input).
template <template <class> class Visit, int MinBlocks = 0>
Tuning zmarch_tuning(const char* name) {
  using Central32 = MomentumPoint<float, false>;  // the register report shows the central-advection instance
  using Central64 = MomentumPoint<double, false>;
  const std::string kernel =
      MinBlocks ? "momentum_zmarch_bounded_kernel<" + std::to_string(MinBlocks) + ", " : "momentum_zmarch_kernel<";
  static const TuningInstance instance{
      &launch_zmarch<Visit, MinBlocks, float>,
      &launch_zmarch<Visit, MinBlocks, double>,
      {{kernel + "float>", (const void*)zmarch_kernel<MinBlocks, Visit, Central32>(), 4},
       {kernel + "double>", (const void*)zmarch_kernel<MinBlocks, Visit, Central64>(), 8}}};
  Tuning t = parse_tuning(name);
  if (t.mb != MinBlocks)
    throw std::logic_error("momentum z-walk: tuning " + t.name + " does not spell its instance, mb" +
                           std::to_string(MinBlocks));
  if (MinBlocks > 0 && t.bx * t.by > kBoundedMaxThreads)
    throw std::logic_error("momentum z-walk: tuning " + t.name + " has more threads a block than the bounded "
                           "instances are compiled for (" + std::to_string(kBoundedMaxThreads) + ")");
  t.instance = &instance;
  return t;
}

// Tunings: the thesis-like shapes, deeper chunks, and the mb3 instances. The first is the default.
template <template <class> class Visit>
std::vector<Tuning> zmarch_tunings() {
  return {
      zmarch_tuning<Visit>("bx32_by4_sz16"),
      zmarch_tuning<Visit>("bx32_by4_sz8"),
      zmarch_tuning<Visit>("bx32_by2_sz16"),
      zmarch_tuning<Visit>("bx16_by8_sz16"),
      zmarch_tuning<Visit>("bx32_by8_sz16"),
      zmarch_tuning<Visit>("bx64_by4_sz16"),
      zmarch_tuning<Visit>("bx64_by4_sz32"),
      zmarch_tuning<Visit>("bx128_by2_sz32"),
      zmarch_tuning<Visit>("bx256_by1_sz32"),
      zmarch_tuning<Visit>("bx32_by4_sz64"),
      zmarch_tuning<Visit>("bx64_by2_sz64"),
      zmarch_tuning<Visit, 3>("bx32_by4_sz16_mb3"),
      zmarch_tuning<Visit, 3>("bx64_by4_sz32_mb3"),
      zmarch_tuning<Visit, 3>("bx128_by2_sz32_mb3"),
  };
}

}  // namespace nsb
