// tridiag/pdd/pdd_thread: PDD on p virtual ranks in three kernels, the phases of the paper's Algorithm 1
// with the neighbour send/receive between the first two replaced by reading the next block's rows in
// place (what a rank's slab of an emulated run holds):
//   1. a thread per (system, block): the local solves of x~, v, w (Eqs. 5-6), c' in the work array;
//   2. a thread per (system, interface): the 2x2 solve (Step 5), y pairs in the work array;
//   3. a thread per unknown: the correction x = x~ - v y_above - w y_below (Eq. 8).
// Interleaved systems, so every phase's warps read unknown j of 32 consecutive systems.
#include "tridiag/thread_per_system.cuh"

namespace nsb {
namespace {

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
  const int s = int(t % batch), j = int(t / batch);  // interleaved: t is the unknown's own index
  int r = int((long long)j * g.ranks / n);            // the block of row j (pdd_block_start's inverse)
  while (r + 1 < g.ranks && pdd_block_start(n, g.ranks, r + 1) <= j) ++r;
  while (r > 0 && pdd_block_start(n, g.ranks, r) > j) --r;
  const T above = r > 0 ? g.y[std::size_t(2 * r - 2) * batch + s] : T(0);
  const T below = r + 1 < g.ranks ? g.y[std::size_t(2 * r + 1) * batch + s] : T(0);
  const std::size_t p = g.q.l.index(s, j);
  g.q.x[p] = pdd_correct(g.q.x[p], g.q.z[p], g.w[p], above, below);
}

template <class T>
void run(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  if (l.inner != l.batch) throw std::invalid_argument("tridiag: pdd_thread needs interleaved systems");
  const std::size_t points = l.points();
  if (c.work_bytes < (3 * points + std::size_t(2 * (c.ranks - 1)) * std::size_t(l.batch)) * sizeof(T))
    throw std::invalid_argument("tridiag: the work array cannot hold v, w, c' and the interface values");
  PddArgs<T> g{tridiag_args(c), c.work + 2 * points, c.work + 3 * points, c.ranks};
  const int threads = c.tuning.bx > 0 ? c.tuning.bx : 128;
  const cudaStream_t stream = stream_of(c.exec);
  pdd_local_kernel<<<ceil_div((long long)l.batch * c.ranks, threads), threads, 0, stream>>>(g);
  NSB_LAUNCHED("pdd_local_kernel");
  pdd_interface_kernel<<<ceil_div((long long)l.batch * (c.ranks - 1), threads), threads, 0, stream>>>(g);
  NSB_LAUNCHED("pdd_interface_kernel");
  pdd_correct_kernel<<<ceil_div((long long)points, threads), threads, 0, stream>>>(g);
  NSB_LAUNCHED("pdd_correct_kernel");
}

const Registrar reg{Variant{
    .stage = "tridiag/pdd",
    .name = "pdd_thread",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"method", "pdd"}, {"mapping", "thread_per_block_of_rows"}},
    .tunings = {parse_tuning("b128"), parse_tuning("b256")},
    .status = "PDD on virtual ranks (ADI-Y of the paper's V2), three phases as Algorithm 1",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"pdd_local_kernel<float>", (const void*)&pdd_local_kernel<float>, 4},
                {"pdd_local_kernel<double>", (const void*)&pdd_local_kernel<double>, 8},
                {"pdd_interface_kernel<float>", (const void*)&pdd_interface_kernel<float>, 4},
                {"pdd_interface_kernel<double>", (const void*)&pdd_interface_kernel<double>, 8},
                {"pdd_correct_kernel<float>", (const void*)&pdd_correct_kernel<float>, 4},
                {"pdd_correct_kernel<double>", (const void*)&pdd_correct_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
