// What tridiag/pdd/pdd_thread and tridiag/ppt/ppt_thread share: PDD's and PPT's phases as kernels, a
// thread per (line, block) for the local solves, a thread per line or interface for the reduced system,
// a thread per unknown for the correction. The neighbour send/receive (PDD) or all-gather (PPT) between
// the first two phases is replaced by reading the other blocks' boundary rows in place, which is what
// the ranks' slabs of an emulated run hold.
//   1. pdd_local_kernel: Eqs. (5)-(6), x~ over x, v and w in the work array, c' too;
//   2. pdd_interface_kernel (PDD: the 2x2 block of each interface, Step 5) or ppt_reduced_kernel (PPT:
//      the whole reduced system of a line, partial pivoting); y values in the work array;
//   3. pdd_correct_kernel: x = x~ - v y_above - w y_below (Eq. 8 / 11).
// On lines along y (inner = nx) or interleaved systems every phase's warps read unknown j of 32
// consecutive lines, which sit side by side in memory.
#pragma once

#include <stdexcept>
#include <string>

#include "tridiag/thread_per_system.cuh"

namespace nsb {

template <class T>
struct PddArgs {
  TridiagArgs<T> q;  // z: v, cp: c'
  T* __restrict__ w;
  T* __restrict__ y;  // 2 (p-1) values a system: y[(2 r + {0,1}) * batch + s]
  int ranks;
};

template <class T>
__global__ void pdd_local_kernel(PddArgs<T> g) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int batch = g.q.l.batch;
  if (t >= (long long)batch * g.ranks) return;
  const int s = int(t % batch), r = int(t / batch);  // consecutive threads: consecutive systems
  const int n = g.q.l.n;
  pdd_local_solve(g.q.l, s, pdd_block_start(n, g.ranks, r), pdd_block_start(n, g.ranks, r + 1), g.q.a, g.q.b, g.q.c,
                  g.q.x, g.q.z, g.w, g.q.cp);
}

template <class T>
__global__ void pdd_interface_kernel(PddArgs<T> g) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int batch = g.q.l.batch;
  if (t >= (long long)batch * (g.ranks - 1)) return;
  const int s = int(t % batch), r = int(t / batch);
  const int boundary = pdd_block_start(g.q.l.n, g.ranks, r + 1);
  const std::size_t m = g.q.l.index(s, boundary - 1), f = g.q.l.index(s, boundary);
  const PddPair<T> y = pdd_interface(g.q.x[m], g.w[m], g.q.x[f], g.q.z[f]);
  g.y[std::size_t(2 * r) * batch + s] = y.lo;
  g.y[std::size_t(2 * r + 1) * batch + s] = y.hi;
}

template <class T>
__global__ void pdd_correct_kernel(PddArgs<T> g) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int batch = g.q.l.batch, n = g.q.l.n;
  if (t >= (long long)batch * n) return;
  const int s = int(t % batch), j = int(t / batch);  // consecutive threads: consecutive systems of a row
  int r = int((long long)j * g.ranks / n);            // the block of row j (pdd_block_start's inverse)
  while (r + 1 < g.ranks && pdd_block_start(n, g.ranks, r + 1) <= j) ++r;
  while (r > 0 && pdd_block_start(n, g.ranks, r) > j) --r;
  const T above = r > 0 ? g.y[std::size_t(2 * r - 2) * batch + s] : T(0);
  const T below = r + 1 < g.ranks ? g.y[std::size_t(2 * r + 1) * batch + s] : T(0);
  const std::size_t p = g.q.l.index(s, j);
  g.q.x[p] = pdd_correct(g.q.x[p], g.q.z[p], g.w[p], above, below);
}

template <class T>
__global__ void ppt_reduced_kernel(PddArgs<T> g) {
  const int s = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int batch = g.q.l.batch;
  if (s >= batch) return;
  PptReduced<T> r;
  ppt_build_reduced(r, g.q.l, s, g.ranks, g.q.x, g.q.z, g.w);
  ppt_solve_reduced(r);
  for (int k = 0; k < r.q; ++k) g.y[std::size_t(k) * batch + s] = r.y[k];
}

// kPpt: the whole reduced system (exact) instead of PDD's 2x2 interface blocks.
template <class T, bool kPpt>
void run_split(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  if (c.ranks < 2) throw std::invalid_argument("tridiag: PDD and PPT split each line into 2 blocks or more");
  if (kPpt && c.ranks > kPptMaxRanks)
    throw std::invalid_argument("tridiag: PPT takes at most " + std::to_string(kPptMaxRanks) + " blocks");
  const TridiagLayout& l = c.layout;
  const std::size_t points = l.points();
  if (c.work_bytes < (3 * points + std::size_t(2 * (c.ranks - 1)) * std::size_t(l.batch)) * sizeof(T))
    throw std::invalid_argument("tridiag: the work array cannot hold v, w, c' and the interface values");
  PddArgs<T> g{tridiag_args(c), c.work + 2 * points, c.work + 3 * points, c.ranks};
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  const cudaStream_t stream = stream_of(c.exec);
  pdd_local_kernel<<<ceil_div((long long)l.batch * c.ranks, threads), threads, 0, stream>>>(g);
  NSB_LAUNCHED("pdd_local_kernel");
  if constexpr (kPpt) {
    ppt_reduced_kernel<<<ceil_div(l.batch, threads), threads, 0, stream>>>(g);
    NSB_LAUNCHED("ppt_reduced_kernel");
  } else {
    pdd_interface_kernel<<<ceil_div((long long)l.batch * (c.ranks - 1), threads), threads, 0, stream>>>(g);
    NSB_LAUNCHED("pdd_interface_kernel");
  }
  pdd_correct_kernel<<<ceil_div((long long)points, threads), threads, 0, stream>>>(g);
  NSB_LAUNCHED("pdd_correct_kernel");
}

}  // namespace nsb
