// What the block-per-system variants of contiguous systems share (tridiag/contiguous/pcr_shared and
// pcr_thomas_shared): a group of threads loads its whole system into shared memory with coalesced
// reads, solves it there and writes the solution once, so global memory sees exactly the model's 5
// words an unknown. Small systems share a block (G systems of `group` threads each).
//
//   PCR (Hockney): log2(n) steps of pcr_combine (tridiag/formulas.hpp), each halving the coupling
//   distance's reach, until every row stands alone: x_j = d_j / b_j.
//   PCR-Thomas: PCR until the distance reaches the group's thread count S, which leaves S independent
//   systems (rows j = r mod S); thread r solves its own by Thomas in shared memory (c' over c, d' over d).
//
// Shared memory: two copies (ping-pong) of a, b, c, d: 8 G n values a block; systems longer than fit
// are refused by name.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tridiag/thread_per_system.cuh"

namespace nsb {

struct BlockShape {
  int group = 0;            // threads a system
  int systems = 0;          // systems a block (G)
  int pcr_limit = 0;        // PCR runs while the coupling distance is below this
  std::size_t shared = 0;   // bytes of dynamic shared memory
};

inline int pow2_ceil(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// threads: the tuning's block size; pcr_to_the_end: pure PCR (else the hybrid's S = group).
inline BlockShape block_shape(const TridiagLayout& l, int threads, bool pcr_to_the_end, int elem_bytes) {
  BlockShape s;
  s.group = std::min(threads, pow2_ceil(l.n));
  s.systems = threads / s.group;
  s.pcr_limit = pcr_to_the_end ? pow2_ceil(l.n) : s.group;
  s.shared = 8 * std::size_t(s.systems) * std::size_t(l.n) * std::size_t(elem_bytes);
  return s;
}

template <class T>
struct SharedRows {
  T *a, *b, *c, *d;
  __device__ TridiagRow<T> row(int i) const { return {a[i], b[i], c[i], d[i]}; }
  __device__ void set(int i, TridiagRow<T> r) const { a[i] = r.a, b[i] = r.b, c[i] = r.c, d[i] = r.d; }
};

// Rows j = r, r + S, ... of the system at `base` in shared memory, solved by Thomas (c' over c, d' over
// d, the solution over d). Each sweep reads the next row before it writes this one: the compiler may not
// move a read above a write it cannot tell apart, and so the read's latency would sit on the recurrence's
// path a row (the partition variants' reduced solve runs it on one thread a system while the block waits).
template <class T>
__device__ void thomas_in_shared(const SharedRows<T>& m, int base, int n, int r, int S) {
  if (r >= n) return;  // S > n: no rows of this residue
  ThomasRow<T> row{T(0), T(0)};
  int last = r;
  TridiagRow<T> ahead = m.row(base + r);
  for (int j = r; j < n; j += S) {
    const int i = base + j;
    const TridiagRow<T> here = ahead;
    if (j + S < n) ahead = m.row(i + S);
    row = thomas_forward(here.a, here.b, here.c, here.d, row);
    m.c[i] = row.cp, m.d[i] = row.dp, last = j;
  }
  T next = m.d[base + last];
  ThomasRow<T> above = last - S >= 0 ? ThomasRow<T>{m.c[base + last - S], m.d[base + last - S]} : ThomasRow<T>{};
  for (int j = last - S; j >= 0; j -= S) {
    const int i = base + j;
    const ThomasRow<T> here = above;
    if (j - S >= 0) above = ThomasRow<T>{m.c[i - S], m.d[i - S]};
    next = m.d[i] = thomas_back(here, next);
  }
}

template <class T, bool kPcrToTheEnd>
__global__ void pcr_block_kernel(TridiagArgs<T> q, BlockShape shape) {
  extern __shared__ unsigned char shared_bytes[];
  T* const sh = reinterpret_cast<T*>(shared_bytes);
  const int n = q.l.n;
  const int span = shape.systems * n;  // values of one array in shared memory
  SharedRows<T> cur{sh, sh + span, sh + 2 * span, sh + 3 * span};
  SharedRows<T> nxt{sh + 4 * span, sh + 5 * span, sh + 6 * span, sh + 7 * span};
  const int first_system = int(blockIdx.x) * shape.systems;
  const int systems = min(shape.systems, q.l.batch - first_system);
  const std::size_t base = std::size_t(first_system) * std::size_t(n);  // contiguous layout: systems back to back
  const int values = systems * n;
  // Unrolled so that several rows' loads are in flight per thread (the block waits for all of them).
#pragma unroll 4
  for (int i = int(threadIdx.x); i < values; i += int(blockDim.x))
    cur.set(i, TridiagRow<T>{q.a[base + i], q.b[base + i], q.c[base + i], q.x[base + i]});
  __syncthreads();

  const int g = int(threadIdx.x) / shape.group, r = int(threadIdx.x) % shape.group;
  const TridiagRow<T> identity{T(0), T(1), T(0), T(0)};  // the rows beyond the system's ends
  for (int stride = 1; stride < shape.pcr_limit; stride *= 2) {  // uniform over the block
    if (g < systems)
      for (int j = r; j < n; j += shape.group) {
        const int i = g * n + j;
        const TridiagRow<T> lo = j >= stride ? cur.row(i - stride) : identity;
        const TridiagRow<T> hi = j + stride < n ? cur.row(i + stride) : identity;
        nxt.set(i, pcr_combine(lo, cur.row(i), hi));
      }
    __syncthreads();
    const SharedRows<T> t = cur;
    cur = nxt, nxt = t;
  }
  if constexpr (kPcrToTheEnd) {
    for (int i = int(threadIdx.x); i < values; i += int(blockDim.x)) q.x[base + i] = cur.d[i] / cur.b[i];
  } else {
    if (g < systems && r < shape.pcr_limit) thomas_in_shared(cur, g * n, n, r, shape.pcr_limit);
    __syncthreads();
    for (int i = int(threadIdx.x); i < values; i += int(blockDim.x)) q.x[base + i] = cur.d[i];
  }
}

inline constexpr std::size_t kMaxSharedBytes = 227 * 1024;  // sm_90's per-block opt-in limit

template <class T, bool kPcrToTheEnd>
void run_block_per_system(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  if (c.layout.inner != 1) throw std::invalid_argument("tridiag: the block-per-system variants need contiguous systems");
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  const BlockShape shape = block_shape(c.layout, threads, kPcrToTheEnd, int(sizeof(T)));
  if (shape.shared > kMaxSharedBytes)
    throw std::invalid_argument("tridiag: systems of " + std::to_string(c.layout.n) + " unknowns need " +
                                std::to_string(shape.shared) + " bytes of shared memory a block, more than fits");
  const auto kernel = &pcr_block_kernel<T, kPcrToTheEnd>;
  if (shape.shared > 48 * 1024)
    NSB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shape.shared)));
  const unsigned blocks = ceil_div(c.layout.batch, shape.systems);
  kernel<<<blocks, threads, shape.shared, stream_of(c.exec)>>>(tridiag_args(c), shape);
  NSB_LAUNCHED(kPcrToTheEnd ? "pcr_block_kernel<pcr>" : "pcr_block_kernel<pcr_thomas>");
}

}  // namespace nsb
