// The pipelined 2.5D shared-memory walk of momentum (shared_zmarch_pipelined.cu, shared_zmarch_async.cu,
// shared_zmarch_split.cu, shared_zmarch_flux.cu): a ring of (bx+2) x (by+2) planes of u, v and w in
// shared memory, each plane read from global memory once per block, the copies of the next Depth planes
// in flight while a level is computed (level k computes from planes k-1, k, k+1 and copies plane
// k+1+Depth). The variants differ only in their ring policy (below): how a copy travels (through
// registers: loads before the level's compute, shared-memory stores after it, Depth 1; or cp.async
// copies that hold no register), how the walk waits (a block barrier a level, or an mbarrier pair a
// slot) and whether each component's z faces are carried from one level to the next.
#pragma once

#include <cuda_pipeline.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/tiles.cuh"
#include "projection/point_ops.hpp"

namespace nsb {

// The ring policies, one a variant: how the walk moves its planes and waits for them.
struct RingThroughRegisters {  // shared_zmarch_pipelined: loads into registers, stored after the level
  static constexpr bool async_copies = false, split_barriers = false, carry_z = false;
  static constexpr const char* name = "momentum ring walk through registers";
};
struct RingAsync {  // shared_zmarch_async: cp.async copies, a block barrier every level
  static constexpr bool async_copies = true, split_barriers = false, carry_z = false;
  static constexpr const char* name = "momentum ring walk with cp.async";
};
struct RingAsyncSplit {  // shared_zmarch_split: cp.async copies, an mbarrier pair a slot instead of the barrier
  static constexpr bool async_copies = true, split_barriers = true, carry_z = false;
  static constexpr const char* name = "momentum ring walk with cp.async and mbarriers";
};
struct RingAsyncCarryZ {  // shared_zmarch_flux: RingAsync with the z faces carried up the walk
  static constexpr bool async_copies = true, split_barriers = false, carry_z = true;
  static constexpr const char* name = "momentum ring walk with cp.async and carried z faces";
};

constexpr int kRingFields = 3;

// Slots of the ring: the three planes a level reads and the Depth planes in flight. With a block
// barrier after every level that is enough: the slot a level refills was last read by the level
// before, which every thread has finished.
//
// Split: no block barrier in the walk. Each slot has two mbarriers: `ready` (every thread arrives when
// its cp.async copies into the slot have landed) and `consumed` (every thread arrives when it has
// computed the last level that reads the slot's plane). A thread waits for the planes it reads and
// for the slot it refills, no more, so warps may drift apart; one more slot gives them a level of
// slack.
constexpr int ring_slots(int depth, bool split) { return 3 + depth + (split ? 1 : 0); }
// Shared memory of a ring: its planes, then (split walk) the two mbarriers a slot, 8-byte aligned.
template <class T>
constexpr std::size_t ring_barriers_offset(int slots, int bx, int by) {
  return (std::size_t(kRingFields) * slots * (bx + 2) * (by + 2) * sizeof(T) + 7) / 8 * 8;
}
template <class T>
constexpr std::size_t ring_bytes(int slots, int bx, int by, bool split) {
  return ring_barriers_offset<T>(slots, bx, by) + (split ? 2 * slots * sizeof(std::uint64_t) : 0);
}
// The walk names shared memory by 32-bit shared-window addresses (the generic-pointer forms of these
// instructions convert their address on every call). A copy of one value, global to shared, that
// holds no register:
template <class T>
__device__ __forceinline__ void copy_async(unsigned to, const T* from) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(to), "l"(from), "n"(sizeof(T)) : "memory");
}
__device__ __forceinline__ void arrive_when_copied(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void wait_phase(unsigned bar, int parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

// f(std::integral_constant<int, R>{}) for R = 0 .. N-1, unrolled: R is a constant inside f.
template <int N, class F>
__device__ __forceinline__ void for_each_constant(F&& f) {
  [&]<int... R>(std::integer_sequence<int, R...>) {
    (f(std::integral_constant<int, R>{}), ...);
  }(std::make_integer_sequence<int, N>{});
}
constexpr int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The block shape is a template parameter: every shared-memory offset of the stencil is then a
// constant, so the 27 reads of a point take immediate offsets from one address, and the plane copy
// needs no division (tuning shapes without an instance are refused).
//
// Slots are constants too. Planes are numbered from the walk's start, rel = p - (k0 - 1), plane rel
// lives in slot rel % slots, and the level loop is unrolled `slots` times: in the copy of the body that
// computes level k = k0 + slots it + r, planes k-1, k, k+1 are in slots r, r+1, r+2 (mod slots) and the
// plane it copies in slot r+2+Depth, whatever `it` is. So no read, copy or barrier of the walk computes
// an address; with the slot taken modulo 5 at run time (the split walk before experiment 28) that
// address arithmetic was a large share of the instructions issued (docs/performance-notes.md, 28).
template <class Policy, int BX, int BY, int Depth, class Op>
__device__ __forceinline__ void ring_walk(const Op& op, int k_begin, int k_end, int sz) {
  using T = typename Op::value_type;
  constexpr bool Async = Policy::async_copies, Split = Policy::split_barriers, CarryZ = Policy::carry_z;
  static_assert(Depth >= 1 && (Async || Depth == 1), "copies through registers hold one plane");
  static_assert(!Split || Async, "the split walk copies with cp.async");
  constexpr int tx = BX + 2, ty = BY + 2, plane = tx * ty, threads = BX * BY;
  constexpr int slots = ring_slots(Depth, Split);
  constexpr int per_thread = (plane + threads - 1) / threads;  // plane points a thread copies
  static_assert(per_thread <= 2, "halo larger than the interior");
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  T* ring = reinterpret_cast<T*>(smem);  // [field][slot][plane]
  constexpr auto slot_offset = [](int field, int slot) { return (field * slots + slot) * plane; };
  const int i0 = 1 + int(blockIdx.x) * BX, j0 = 1 + int(blockIdx.y) * BY;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  if (k0 >= k1) return;  // the whole block leaves: no barrier is left waiting

  // The plane points this thread copies, fixed for the whole walk: their place in a ring plane, and in
  // each field's plane k0-1; `next` is the offset of the next plane to copy from there. (One offset
  // for all copies: a pointer a copy, each advanced after its copy, cost a register move a copy.)
  // Points beyond the padded array are not copied; no interior point reads them.
  const int tid = int(threadIdx.x) + int(threadIdx.y) * BX;
  const std::ptrdiff_t s = g.sz();
  const T* src[kRingFields][per_thread];
  int dst[per_thread];
  bool copies[per_thread];
  const T* fields[kRingFields] = {op.f.u, op.f.v, op.f.w};
#pragma unroll
  for (int m = 0; m < per_thread; ++m) {
    const int q = tid + m * threads, a = q % tx, b = q / tx;  // constants divide by multiplication
    const int i = i0 - 1 + a, j = j0 - 1 + b;
    copies[m] = q < plane && i < g.NX() && j < g.NY();
    dst[m] = q;
#pragma unroll
    for (int f = 0; f < kRingFields; ++f)
      src[f][m] = fields[f] + (std::ptrdiff_t(i) + std::ptrdiff_t(j) * g.sy() + std::ptrdiff_t(k0 - 1) * s);
  }
  std::ptrdiff_t next = 0;
  const unsigned ring_at = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  // Copying the next plane into slot `slot`: started by start_plane, in the slot after finish_plane
  // (and, for the other threads' points, after the barrier that follows). Async: cp.async, one commit
  // group a plane, no register holds the values in flight; otherwise loads into `held`, stored by
  // finish_plane.
  T held[kRingFields][per_thread] = {};
  auto start_plane = [&](auto slot) {
#pragma unroll
    for (int f = 0; f < kRingFields; ++f)
#pragma unroll
      for (int m = 0; m < per_thread; ++m) {
        if (!copies[m]) continue;
        if constexpr (Async)
          copy_async(ring_at + unsigned(sizeof(T)) * (slot_offset(f, slot) + dst[m]), src[f][m] + next);
        else
          held[f][m] = __ldg(src[f][m] + next);
      }
    next += s;
  };
  auto finish_plane = [&](auto slot) {
#pragma unroll
    for (int f = 0; f < kRingFields; ++f)
#pragma unroll
      for (int m = 0; m < per_thread; ++m)
        if (copies[m]) ring[slot_offset(f, slot) + dst[m]] = held[f][m];
  };

  // Level k reads planes k-1, k, k+1; plane p is first needed by level p-1, so it is copied if
  // p - 1 < k1. The planes before the walk: rel 0 .. Depth+1, the first three landed before it starts.
  for_each_constant<Depth + 2>([&](auto rel) {
    if (k0 - 2 + rel < k1) {
      start_plane(rel);
      if constexpr (!Async) finish_plane(rel);
    }
    if constexpr (Async) __pipeline_commit();  // (empty groups too: the waits below count groups)
  });
  // (Split: all of them, since its `ready` barriers count only the planes copied in the walk.)
  if constexpr (Async) __pipeline_wait_prior(Split ? 0 : Depth - 1);
  // Split: the two mbarriers of each slot, as shared-window addresses.
  const unsigned ready = ring_at + unsigned(ring_barriers_offset<T>(slots, BX, BY)), consumed = ready + 8 * slots;
  if constexpr (Split) {
    if (tid == 0)
      for (int b = 0; b < 2 * slots; ++b)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(ready + 8 * b), "r"(threads) : "memory");
  }
  __syncthreads();

  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  const T* at = ring + (int(threadIdx.x) + 1) + (int(threadIdx.y) + 1) * tx;
  std::size_t n = g.idx(i, j, k0);
  // CarryZ: each component's upper z faces, carried to the next level as its lower ones
  // (MomentumPoint::compute_carrying_z); the first level computes its lower faces.
  MomentumFace<T> zface[3];
  // Level k = k0 + slots it + r (r: its place in the unrolled cycle).
  auto compute = [&](auto r, int it) {
    constexpr int below = r % slots, mid = (r + 1) % slots, above = (r + 2) % slots;
    const RingAt<T> u{at + slot_offset(0, below), at + slot_offset(0, mid), at + slot_offset(0, above), tx};
    const RingAt<T> v{at + slot_offset(1, below), at + slot_offset(1, mid), at + slot_offset(1, above), tx};
    const RingAt<T> w{at + slot_offset(2, below), at + slot_offset(2, mid), at + slot_offset(2, above), tx};
    if constexpr (CarryZ) {
      if (r == 0 && it == 0) op.lower_z_faces(u, v, w, zface);
      op.compute_carrying_z(n, u, v, w, zface);
    } else {
      const auto old = op.history(n);  // Adams-Bashforth: in flight during the arithmetic
      op.store(n, op.rhs(u, v, w), u(0, 0, 0), v(0, 0, 0), w(0, 0, 0), old);
    }
  };
  for (int it = 0, kb = k0; kb < k1; ++it, kb += slots) {
    for_each_constant<slots>([&](auto r) {
      const int k = kb + r;
      if (k >= k1) return;  // the same for the whole block
      // Plane k+1+Depth (rel slots it + r + 2 + Depth) goes into the slot of the plane `slots` before it.
      constexpr int copy_slot = (r + 2 + Depth) % slots;
      const bool copy = k + Depth < k1;
      if constexpr (Split) {
        // A slot's `ready` completes once per plane copied through it in the walk (rel Depth+2 on),
        // its `consumed` once per plane it held from rel 0 on.
        if (copy) {
          if (it > 0 || r + 2 + Depth >= slots)
            wait_phase(consumed + 8 * copy_slot, (it + floor_div(r + 2 + Depth - slots, slots)) & 1);
          start_plane(std::integral_constant<int, copy_slot>{});
          arrive_when_copied(ready + 8 * copy_slot);
        }
        if (it > 0 || r >= Depth) wait_phase(ready + 8 * ((r + 2) % slots), (it + floor_div(r - Depth, slots)) & 1);
        if (inside) compute(r, it);
        arrive(consumed + 8 * (r % slots));  // plane k-1: read for the last time
      } else {
        if (copy) start_plane(std::integral_constant<int, copy_slot>{});
        if constexpr (Async) __pipeline_commit();
        if (inside) compute(r, it);
        // Plane k+2, for the next level: landed (Async: the Depth-1 later groups may still fly), or
        // stored from registers.
        if constexpr (Async) __pipeline_wait_prior(Depth - 1);
        else if (copy) finish_plane(std::integral_constant<int, copy_slot>{});
        __syncthreads();
      }
      n += std::size_t(s);
    });
  }
}

template <class Policy, int BX, int BY, int Depth, class Op>
__global__ void momentum_ring_kernel(Op op, int k_begin, int k_end, int sz) {
  ring_walk<Policy, BX, BY, Depth>(op, k_begin, k_end, sz);
}

// The same walk compiled to 64 registers a thread (as many blocks of BX x BY as fit 65536 registers at
// 64 each): tunings ending in _mbN with N = 65536 / (64 bx by), for the shapes that have one.
constexpr int kRingCappedRegisters = 64;
template <int Threads>
constexpr int ring_capped_blocks() {
  return 65536 / (kRingCappedRegisters * Threads);
}
template <class Policy, int BX, int BY, int Depth, class Op>
__global__ void __launch_bounds__(BX* BY, ring_capped_blocks<BX * BY>())
    momentum_ring_capped_kernel(Op op, int k_begin, int k_end, int sz) {
  ring_walk<Policy, BX, BY, Depth>(op, k_begin, k_end, sz);
}

// One compiled walk: block shape, planes copied ahead (Depth) and register cap (MinBlocks: 0 for none,
// else ring_capped_blocks<BX * BY>()).
template <class Op>
using RingKernel = void (*)(Op, int, int, int);
template <class Policy, int BX, int BY, int Depth, int MinBlocks, class Op>
constexpr RingKernel<Op> ring_kernel() {
  static_assert(MinBlocks == 0 || MinBlocks == ring_capped_blocks<BX * BY>(), "the capped walk fits 64 registers");
  if constexpr (MinBlocks == 0) return &momentum_ring_kernel<Policy, BX, BY, Depth, Op>;
  else return &momentum_ring_capped_kernel<Policy, BX, BY, Depth, Op>;
}

// The entry point of one compiled walk: launches it for the call's chunk depth (sz).
template <class Policy, int BX, int BY, int Depth, int MinBlocks, class T>
void launch_ring(const StageCall<T>& c) {
  const ZWalk walk = z_walk(c, Policy::name);
  if (walk.empty()) return;
  constexpr bool split = Policy::split_barriers;
  constexpr std::size_t shared = ring_bytes<T>(ring_slots(Depth, split), BX, BY, split);
  with_momentum_point(c, [&](const auto& op) {
    const auto kernel = ring_kernel<Policy, BX, BY, Depth, MinBlocks, std::decay_t<decltype(op)>>();
    allow_shared((const void*)kernel, shared, c.tuning, Policy::name);
    kernel<<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(op, c.zr.k_begin, c.zr.k_end, walk.sz);
  });
  NSB_LAUNCHED("momentum_ring_kernel");
}

// A tuning of a ring variant with the walk it runs: ring_tuning<RingAsync, 64, 4, 2>("bx64_by4_sz32_pf2")
// (block shape, planes copied ahead, register cap: the name's bx, by, pf (none: 1) and mb; sz is read
// at run time). The instance is built once per template arguments; a name that does not spell them
// stops the program as the variant registers (std::logic_error at start-up: a bug, never an input).
template <class Policy, int BX, int BY, int Depth = 1, int MinBlocks = 0>
Tuning ring_tuning(const char* name) {
  static_assert(Depth >= 1 && (Policy::async_copies || Depth == 1), "copies through registers hold one plane");
  using Central32 = MomentumPoint<float, false>;  // the register report shows the central-advection instance
  using Central64 = MomentumPoint<double, false>;
  std::string shape = MinBlocks ? "momentum_ring_capped_kernel<" : "momentum_ring_kernel<";
  shape += "bx" + std::to_string(BX) + ", by" + std::to_string(BY) + ", pf" + std::to_string(Depth);
  if (MinBlocks) shape += ", mb" + std::to_string(MinBlocks);
  static const TuningInstance instance{
      &launch_ring<Policy, BX, BY, Depth, MinBlocks, float>,
      &launch_ring<Policy, BX, BY, Depth, MinBlocks, double>,
      {{shape + ", float>", (const void*)ring_kernel<Policy, BX, BY, Depth, MinBlocks, Central32>(), 4},
       {shape + ", double>", (const void*)ring_kernel<Policy, BX, BY, Depth, MinBlocks, Central64>(), 8}}};
  Tuning t = parse_tuning(name);
  if (t.bx != BX || t.by != BY || (t.pf > 0 ? t.pf : 1) != Depth || t.mb != MinBlocks)
    throw std::logic_error(std::string(Policy::name) + ": tuning " + name + " does not spell its instance " + shape);
  t.instance = &instance;
  return t;
}

// The one-plane tunings of the barrier rings (shared_zmarch_pipelined, shared_zmarch_async): shapes,
// chunk depths and the 64-register caps. The first is the default.
template <class Policy>
std::vector<Tuning> ring_one_plane_tunings() {
  return {
      ring_tuning<Policy, 32, 8>("bx32_by8_sz32"),
      ring_tuning<Policy, 32, 8>("bx32_by8_sz16"),
      ring_tuning<Policy, 64, 4>("bx64_by4_sz32"),
      ring_tuning<Policy, 64, 4>("bx64_by4_sz16"),
      ring_tuning<Policy, 32, 4>("bx32_by4_sz32"),
      ring_tuning<Policy, 32, 4>("bx32_by4_sz16"),
      ring_tuning<Policy, 128, 4>("bx128_by4_sz32"),
      ring_tuning<Policy, 32, 8>("bx32_by8_sz0"),
      ring_tuning<Policy, 64, 4, 1, 4>("bx64_by4_sz32_mb4"),
      ring_tuning<Policy, 32, 4, 1, 8>("bx32_by4_sz16_mb8"),
      ring_tuning<Policy, 64, 4>("bx64_by4_sz64"),
      ring_tuning<Policy, 64, 4, 1, 4>("bx64_by4_sz64_mb4"),
      ring_tuning<Policy, 32, 8, 1, 4>("bx32_by8_sz32_mb4"),
      ring_tuning<Policy, 32, 8, 1, 4>("bx32_by8_sz16_mb4"),
      ring_tuning<Policy, 64, 4, 1, 4>("bx64_by4_sz24_mb4"),
      ring_tuning<Policy, 64, 4, 1, 4>("bx64_by4_sz48_mb4"),
  };
}

}  // namespace nsb
