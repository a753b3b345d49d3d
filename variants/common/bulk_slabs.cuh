// Row slabs streamed into shared memory by the copy engine (Hopper's TMA, 1D bulk copies), for the
// z-marching variants that want their bytes in flight without spending threads or registers on them.
//
// Why: a warp of plain 4-byte loads asks for 128 bytes and each thread holds its loads in registers
// until they land, so a float stencil keeps too few bytes in flight per SM to cover DRAM latency (the
// float Jacobi walk stops at ~78% of the copy bandwidth while the same walk in double reaches 93%,
// docs/performance-notes.md). A bulk copy moves a whole contiguous slab with one instruction of one
// thread; the block only waits on a barrier when it needs the data.
//
// Layout: a block owns `by` consecutive rows j0 .. j0+by-1 of every z-level of its chunk, all of x.
// Those rows plus one halo row on each side are one contiguous piece of a padded field
// (idx = i + NX*(j + NY*k)), so each field's slab of one level is one copy. Bulk copies need 16-byte
// aligned addresses and sizes: the piece is widened to the enclosing 16-byte boundaries (at most 15
// extra bytes each end, never past the end of the field: the very last bytes of a field are ghost
// values of its last ghost row, which no stencil here reads from the plane above) and `origin` hides
// the shift.
//
// Pipeline: a ring of S = W + pf slots, W = planes a level reads (k-1, k, k+1 -> 3), pf = levels loaded
// ahead. One mbarrier per slot; thread 0 issues every field's copy of plane q into slot
// (q - first plane) % S with one arrive.expect_tx; everyone waits on the slot's parity before reading.
// A slot is refilled only after the __syncthreads that ends the level which last read it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cuda/ptx>
#include <stdexcept>
#include <string>
#include <utility>

#include "accessors.hpp"
#include "common/tiles.cuh"
#include "common/traversals.cuh"

namespace nsb {

// Which part of a field one level of a block reads: rows j0+row_lo .. j0+by-1+row_hi, planes
// k+plane_lo .. k+plane_hi of level k.
struct SlabShape {
  int row_lo = 0, row_hi = 0;
  int plane_lo = 0, plane_hi = 0;
};

template <class T, int F>
struct SlabFields {
  const T* src[F];
  SlabShape shape[F];
};

// 16 bytes of elements: the alignment unit of a bulk copy.
template <class T>
constexpr int kBulkUnit = int(16 / sizeof(T));

// Elements one slab of field f holds for a block of `by` rows (alignment slack at both ends included),
// rounded to 16 bytes so that the next slab starts aligned.
NSB_HD inline long long slab_capacity(const SlabShape& s, int by, int NX, int unit) {
  const long long n = (long long)(by + s.row_hi - s.row_lo) * NX + 2 * unit;
  return (n + unit - 1) / unit * unit;
}

// The planes every level reads, over all fields: [lo, hi] relative to the level.
template <class T, int F>
NSB_HD inline void plane_window(const SlabFields<T, F>& set, int& lo, int& hi) {
  lo = set.shape[0].plane_lo, hi = set.shape[0].plane_hi;
  for (int f = 1; f < F; ++f) lo = min(lo, set.shape[f].plane_lo), hi = max(hi, set.shape[f].plane_hi);
}

// Shared memory of one block: S barriers (padded to 128 bytes), then S slots of every field's slab.
template <class T, int F>
std::size_t slab_ring_bytes(const SlabFields<T, F>& set, int by, int NX, int slots) {
  long long per_slot = 0;
  for (int f = 0; f < F; ++f) per_slot += slab_capacity(set.shape[f], by, NX, kBulkUnit<T>);
  return 128 + std::size_t(slots) * std::size_t(per_slot) * sizeof(T);
}

template <class T, int F>
struct SlabRing {
  const SlabFields<T, F>& set;
  const Grid& g;
  std::uint64_t* bars;
  T* slots;
  long long slot_elems = 0;  // one slot: every field's slab
  long long offset[F];       // field f's slab inside a slot
  int j0, rows, S, q_first, q_last;

  // Planes q_first .. q_last pass through the S slots; the block's rows are j0 .. j0+by-1, fewer at
  // the top of the grid.
  __device__ SlabRing(const SlabFields<T, F>& set, const Grid& g, unsigned char* smem, int j0, int by, int q_first,
                      int q_last, int S)
      : set(set),
        g(g),
        bars(reinterpret_cast<std::uint64_t*>(smem)),
        slots(reinterpret_cast<T*>(smem + 128)),
        j0(j0),
        rows(min(by, g.ny - j0 + 1)),
        S(S),
        q_first(q_first),
        q_last(q_last) {
    for (int f = 0; f < F; ++f) {
      offset[f] = slot_elems;
      slot_elems += slab_capacity(set.shape[f], by, g.NX(), kBulkUnit<T>);
    }
  }

  __device__ int slot_of(int q) const { return (q - q_first) % S; }
  __device__ unsigned parity_of(int q) const { return unsigned((q - q_first) / S) & 1u; }

  // Element (i, j) of plane q of field f is origin(f, q)[i + NX*(j - j0)].
  __device__ const T* origin(int f, int q) const {
    const long long e0 = (long long)g.NX() * ((j0 + set.shape[f].row_lo) + (long long)g.NY() * q);
    const long long shift = e0 % kBulkUnit<T>;
    return slots + slot_of(q) * slot_elems + offset[f] + shift - (long long)set.shape[f].row_lo * g.NX();
  }

  // Thread 0: copies of plane q of every field that reads it, completing on the slot's barrier (which
  // completes its phase even when no field needs the plane, so the parities stay in step).
  __device__ void issue(int q, int k_first, int k_last) const {
    const long long total_floor = (long long)g.padded_points() / kBulkUnit<T> * kBulkUnit<T>;
    std::uint32_t bytes[F];
    long long from[F];
    std::uint32_t sum = 0;
    for (int f = 0; f < F; ++f) {
      const SlabShape& s = set.shape[f];
      bytes[f] = 0;
      if (q < k_first + s.plane_lo || q > k_last + s.plane_hi) continue;
      const long long e0 = (long long)g.NX() * ((j0 + s.row_lo) + (long long)g.NY() * q);
      const long long e1 = e0 + (long long)(rows + s.row_hi - s.row_lo) * g.NX();
      from[f] = e0 / kBulkUnit<T> * kBulkUnit<T>;
      const long long to = min((e1 + kBulkUnit<T> - 1) / kBulkUnit<T> * kBulkUnit<T>, total_floor);
      bytes[f] = std::uint32_t((to - from[f]) * (long long)sizeof(T));
      sum += bytes[f];
    }
    std::uint64_t* bar = bars + slot_of(q);
    cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, bar,
                                         sum);
    T* slot = slots + slot_of(q) * slot_elems;
    for (int f = 0; f < F; ++f)
      if (bytes[f] > 0)
        cuda::ptx::cp_async_bulk(cuda::ptx::space_cluster, cuda::ptx::space_global, slot + offset[f],
                                 set.src[f] + from[f], bytes[f], bar);
  }

  __device__ void wait(int q) const {
    while (!cuda::ptx::mbarrier_try_wait_parity(bars + slot_of(q), parity_of(q))) {
    }
  }
};

// The kernel: blockIdx.x picks the rows (`by` of them), blockIdx.y the chunk of sz levels; a flat
// block of bx threads covers each level row by row, striding along x. Rows per block and threads per
// block are separate so that a block can own many rows (less halo copied again, more bytes per
// barrier) without needing as many threads. Op is called once per interior point with one RingAt per
// field, in the order of set.src: op(n, a0, a1, ...).
template <class Op, int F>
__global__ void bulk_slab_kernel(Op op, SlabFields<typename Op::value_type, F> set, Grid g, int k_begin, int k_end,
                                 int by, int sz, int prefetch) {
  using T = typename Op::value_type;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // bulk copies need sm_90; the host side refuses older GPUs before launching
#else
  extern __shared__ __align__(128) unsigned char smem[];
  const int j0 = 1 + int(blockIdx.x) * by;
  const int k_first = k_begin + int(blockIdx.y) * sz;
  const int k_last = min(k_first + sz, k_end) - 1;
  int lo, hi;
  plane_window(set, lo, hi);
  const int S = hi - lo + 1 + prefetch;

  const SlabRing<T, F> ring(set, g, smem, j0, by, k_first + lo, k_last + hi, S);
  const bool leader = threadIdx.x == 0;
  if (leader) {
    for (int s = 0; s < S; ++s) cuda::ptx::mbarrier_init(ring.bars + s, 1);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the barriers, as the copy engine sees them
    for (int q = ring.q_first; q < k_first + hi + prefetch && q <= ring.q_last; ++q) ring.issue(q, k_first, k_last);
  }
  __syncthreads();
  for (int q = ring.q_first; q < k_first + hi; ++q) ring.wait(q);

  for (int k = k_first; k <= k_last; ++k) {
    if (leader && k + hi + prefetch <= ring.q_last) ring.issue(k + hi + prefetch, k_first, k_last);
    ring.wait(k + hi);
    const T *below[F], *mid[F], *above[F];
    for (int f = 0; f < F; ++f)
      below[f] = ring.origin(f, k - 1), mid[f] = ring.origin(f, k), above[f] = ring.origin(f, k + 1);
    for (int j = j0; j < j0 + ring.rows; ++j) {
      const long long row = (long long)g.NX() * (j - j0);
      std::size_t n = g.idx(1 + int(threadIdx.x), j, k);
      for (int i = 1 + int(threadIdx.x); i <= g.nx; i += int(blockDim.x), n += blockDim.x) {
        const long long o = row + i;
        // One RingAt per field: op(n, ring of field 0, ring of field 1, ...).
        const auto call = [&]<int... f>(std::integer_sequence<int, f...>) {
          op(n, RingAt<T>{below[f] + o, mid[f] + o, above[f] + o, g.NX()}...);
        };
        call(std::make_integer_sequence<int, F>{});
      }
    }
    __syncthreads();  // every thread is done with the slot the next level refills
  }
#endif
}

// Launch: checks what the GPU and the fields must offer, sizes the ring, asks for the shared memory.
template <class Op, int F, class T, class Call>
void launch_bulk_slabs(const Op& op, const SlabFields<T, F>& set, const Call& c, const char* variant) {
  const Tuning& t = c.tuning;
  check_block(t.bx, variant);
  if (t.by < 1)
    throw std::runtime_error(std::string(variant) + ": tuning " + t.name + " needs by >= 1 (rows per block)");
  if (t.pf < 1)
    throw std::runtime_error(std::string(variant) + ": tuning " + t.name + " needs pf >= 1 (levels loaded ahead)");
  const int levels = c.zr.levels();
  if (levels <= 0) return;
  int dev = 0, major = 0;
  NSB_CUDA(cudaGetDevice(&dev));
  NSB_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 9)
    throw std::runtime_error(std::string(variant) +
                             ": bulk copies (TMA) need compute capability 9.0 or newer; this GPU is " +
                             std::to_string(major) + ".x");
  for (int f = 0; f < F; ++f)
    if (reinterpret_cast<std::uintptr_t>(set.src[f]) % 16 != 0)
      throw std::runtime_error(std::string(variant) + ": bulk copies need 16-byte aligned fields");
  int lo, hi;
  plane_window(set, lo, hi);
  const std::size_t bytes = slab_ring_bytes(set, t.by, c.grid.NX(), hi - lo + 1 + t.pf);
  const auto kernel = &bulk_slab_kernel<Op, F>;
  allow_shared((const void*)kernel, bytes, t, variant);
  const int sz = t.sz > 0 ? t.sz : levels;
  const dim3 grid(ceil_div(c.grid.ny, t.by), ceil_div(levels, sz));
  kernel<<<grid, t.bx, bytes, stream_of(c.exec)>>>(op, set, c.grid, c.zr.k_begin, c.zr.k_end, t.by, sz, t.pf);
  NSB_LAUNCHED("bulk_slab_kernel");
}

}  // namespace nsb
