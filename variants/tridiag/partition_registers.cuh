// What the partition-method variants share (tridiag/lines_y/partition_registers, tridiag/interleaved/
// partition_registers): a block of W x K threads solves W neighbouring systems (threadIdx.x: the system,
// so a warp's loads of one row are runs of W values along the fast index), each cut into K chunks of at
// most M rows (threadIdx.y: the chunk). A thread
//   1. loads its chunk's a, b, c, d once into registers,
//   2. eliminates the chunk's interior (partition_eliminate, tridiag/pdd_formulas.hpp), keeping P1's
//      y, v, w in registers, and writes the chunk's two rows of the reduced system to shared memory,
//   3. takes part in solving the reduced system (2K rows a system) in shared memory: the same elimination
//      on chunks of kPartitionReducedRows of its rows (a thread each), Thomas on the 2K' rows left (a
//      thread a system), each level's interior from its first and last,
//   4. writes its chunk's x once (partition_unknown).
// Global memory sees a, b, c, d read and x written once: the model's 5 words an unknown (the one-thread
// Thomas moves 9: c' and d' to global memory and back). The price is on chip: 4M values a thread while
// the loads are in flight, 3M after the elimination.
//
// M (rows a thread, tuning sz) is a template parameter (register arrays need constant indices), W (tuning
// bx) is read at run time and shrunk so that a block stays within kPartitionMaxThreads; systems longer
// than kPartitionMaxThreads * M are refused by name.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tridiag/block_per_system.cuh"

namespace nsb {

// The kernel's __launch_bounds__: blocks of up to 256 threads, MinBlocks of them an SM (tuning mb; none: 1),
// which caps the registers at 65536 / (256 MinBlocks).
inline constexpr int kPartitionMaxThreads = 256;

// Shared memory of a block: the 2K reduced rows of each of its W systems and the 2K' rows left of them.
template <class T>
std::size_t partition_shared_bytes(int systems, int chunks) {
  const int rows = 2 * chunks, rows1 = 2 * partition_chunks(rows, kPartitionReducedRows);
  return 4 * std::size_t(systems) * std::size_t(rows + rows1) * sizeof(T);
}

// pdd_block_start's split (the first row of chunk k of K over n rows) in 32-bit unsigned arithmetic:
// in device code the host formula's 64-bit division is a long routine, on the path of every thread's
// start and of the reduced solve's second level. Exact here: a block's k n < 2^32 (K <= 512 threads,
// n <= 512 M at the first level, 2K rows at the second), the same floor(k n / K).
__device__ inline int partition_chunk_start(int n, int K, int k) {
  return int(unsigned(k) * unsigned(n) / unsigned(K));
}

// A chunk's arrays from row(r), r < m (a TridiagRow), identity rows past m.
template <class T, int M, class Row>
__device__ void load_chunk(int m, const Row& row, T (&a)[M], T (&b)[M], T (&c)[M], T (&d)[M]) {
#pragma unroll
  for (int r = 0; r < M; ++r) {
    const TridiagRow<T> x = r < m ? row(r) : TridiagRow<T>{T(0), T(1), T(0), T(0)};
    a[r] = x.a, b[r] = x.b, c[r] = x.c, d[r] = x.d;
  }
}

// Row r of the chunk whose row 0 is unknown j0 of a system, at `first` (a_0 and c_{n-1} are outside the
// matrix: never read).
template <class T>
__device__ TridiagRow<T> partition_global_row(const TridiagArgs<T>& q, std::size_t first, int j0, int r) {
  const std::size_t p = first + std::size_t(r) * q.l.stride();
  const int j = j0 + r;
  return TridiagRow<T>{j > 0 ? q.a[p] : T(0), q.b[p], j < q.l.n - 1 ? q.c[p] : T(0), q.x[p]};
}

// A chunk's first and last unknowns, what the reduced system gives it.
template <class T>
struct PartitionEnds {
  T first, last;
};

// Steps 2 and 3 of the header, by every thread of a block of W x K (barriers inside): thread (lane, k)
// hands its chunk's two rows of the reduced system (partition_eliminate's first and last) and gets its
// chunk's first and last unknowns. `sh`: partition_shared_bytes of shared memory. Row i of system lane's
// reduced system lives at i * W + lane (a warp's lanes, neighbouring words); the 2K' rows its own chunks
// of R rows leave (threads k < K' a chunk each) follow. A block may call it again for other systems
// without a barrier between: a thread's first writes of the next call go to its own two rows, the ones
// it read last, and every other access of a call comes after the call's first barrier.
template <class T>
__device__ PartitionEnds<T> partition_reduced_solve(T* sh, int W, int K, int lane, int k, const TridiagRow<T>& first,
                                                     const TridiagRow<T>& last) {
  constexpr int R = kPartitionReducedRows;
  const int rows = 2 * K, chunks1 = partition_chunks(rows, R), rows1 = 2 * chunks1;
  T* const sh1 = sh + 4 * W * rows;
  const SharedRows<T> reduced{sh, sh + W * rows, sh + 2 * W * rows, sh + 3 * W * rows};
  const SharedRows<T> left{sh1, sh1 + W * rows1, sh1 + 2 * W * rows1, sh1 + 3 * W * rows1};
  reduced.set(2 * k * W + lane, first);
  reduced.set((2 * k + 1) * W + lane, last);
  __syncthreads();
  const bool second = k < chunks1;
  const int i0 = partition_chunk_start(rows, chunks1, k), m1 = second ? partition_chunk_start(rows, chunks1, k + 1) - i0 : 0;
  PartitionLocal<T, R> local1{};
  if (second) {
    T a1[R], b1[R], c1[R], d1[R];
    load_chunk(m1, [&](int r) { return reduced.row((i0 + r) * W + lane); }, a1, b1, c1, d1);
    local1 = partition_eliminate(a1, b1, c1, d1, m1);
    left.set(2 * k * W + lane, local1.first);
    left.set((2 * k + 1) * W + lane, local1.last);
  }
  __syncthreads();
  if (k == 0) thomas_in_shared(left, lane, rows1 * W, 0, W);  // a thread a system: rows lane, lane + W, ...
  __syncthreads();
  if (second) {
    const T x_first1 = left.d[2 * k * W + lane], x_last1 = left.d[(2 * k + 1) * W + lane];
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r < m1) reduced.d[(i0 + r) * W + lane] = partition_unknown(local1, r, m1, x_first1, x_last1);
  }
  __syncthreads();
  return {reduced.d[2 * k * W + lane], reduced.d[(2 * k + 1) * W + lane]};
}

// Step 4: the chunk's unknowns from its first and last, written once (nothing where the lane is spare).
template <class T, int M>
__device__ void partition_store(const TridiagArgs<T>& q, const PartitionLocal<T, M>& local, bool active, std::size_t first,
                                int m, PartitionEnds<T> x) {
#pragma unroll
  for (int r = 0; r < M; ++r)
    if (active && r < m) q.x[first + std::size_t(r) * q.l.stride()] = partition_unknown(local, r, m, x.first, x.last);
}

// The systems a block solves (tuning bx, shrunk so that a block of bx x K stays within max_threads, the
// kernel's __launch_bounds__) and its chunks K; systems longer than max_threads * M are refused by name.
struct PartitionBlock {
  int systems, chunks;
};
inline PartitionBlock partition_block(const char* variant, int n, int M, int bx, int max_threads = kPartitionMaxThreads) {
  const int chunks = partition_chunks(n, M);
  if (chunks > max_threads)
    throw std::invalid_argument(std::string("tridiag: ") + variant + " with " + std::to_string(M) + " rows a thread takes systems of at most " +
                                std::to_string(max_threads * M) + " unknowns, not " + std::to_string(n));
  return {std::max(1, std::min(bx, max_threads / chunks)), chunks};
}

// A persistent kernel's launch (partition_shared_async, partition_registers_ahead): as many blocks of p.systems x
// p.chunks threads as the SMs hold at once (the occupancy API, with this shared memory), each solving every
// gridDim.x-th tile of p.systems systems; refused by name where no block fits an SM.
template <class T, class Kernel>
void launch_persistent_tiles(Kernel kernel, const char* variant, const PartitionBlock& p, std::size_t shared,
                             const TridiagCall<T>& c) {
  NSB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  const int threads = p.systems * p.chunks;
  int per_sm = 0, device = 0, sms = 0;
  NSB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared));
  NSB_CUDA(cudaGetDevice(&device));
  NSB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (per_sm < 1)
    throw std::invalid_argument(std::string("tridiag: ") + variant + ": no block of " + std::to_string(threads) +
                                " threads and " + std::to_string(shared) + " bytes of shared memory fits an SM");
  const unsigned blocks = std::min(ceil_div(c.layout.batch, p.systems), unsigned(per_sm) * unsigned(sms));
  const dim3 block{unsigned(p.systems), unsigned(p.chunks), 1};
  kernel<<<blocks, block, shared, stream_of(c.exec)>>>(tridiag_args(c));
}

template <class T, int M, int MinBlocks>
__global__ void __launch_bounds__(kPartitionMaxThreads, MinBlocks) partition_kernel(TridiagArgs<T> q) {
  extern __shared__ unsigned char shared_bytes[];
  const int W = int(blockDim.x), K = int(blockDim.y), lane = int(threadIdx.x), k = int(threadIdx.y);
  const int s = int(blockIdx.x) * W + lane;
  const bool active = s < q.l.batch;  // the last block's spare lanes solve identity rows
  const int n = q.l.n, j0 = partition_chunk_start(n, K, k), m = partition_chunk_start(n, K, k + 1) - j0;
  const std::size_t first = active ? q.l.index(s, j0) : 0;

  // 1. The chunk, read once, and its elimination.
  T a[M], b[M], c[M], d[M];
  load_chunk(active ? m : 0, [&](int r) { return partition_global_row(q, first, j0, r); }, a, b, c, d);
  const PartitionLocal<T, M> local = partition_eliminate(a, b, c, d, m);
  // 2., 3. The reduced system; 4. the chunk's unknowns.
  const PartitionEnds<T> x = partition_reduced_solve(reinterpret_cast<T*>(shared_bytes), W, K, lane, k, local.first, local.last);
  partition_store(q, local, active, first, m, x);
}

template <class T, int M, int MinBlocks>
void launch_partition(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  const PartitionBlock p = partition_block("partition_registers", l.n, M, c.tuning.bx);
  const std::size_t shared = partition_shared_bytes<T>(p.systems, p.chunks);  // at most 32 KiB (double)
  const dim3 block{unsigned(p.systems), unsigned(p.chunks), 1};
  partition_kernel<T, M, MinBlocks><<<ceil_div(l.batch, p.systems), block, shared, stream_of(c.exec)>>>(tridiag_args(c));
  NSB_LAUNCHED("partition_kernel");
}

// A tuning and its compiled instance: partition_tuning<16>("bx8_sz16"), partition_tuning<8, 2>("bx4_sz8_mb2")
// (sz: rows a thread, M; mb: blocks of 256 threads an SM the registers must allow, none: 1; bx, the
// systems a block, is read at run time). A name that does not spell its instance stops the program as
// the variant registers (a bug, never an input).
template <int M, int MinBlocks = 1>
Tuning partition_tuning(const char* name) {
  const std::string shape = "partition_kernel<sz" + std::to_string(M) + ", mb" + std::to_string(MinBlocks);
  static const TuningInstance instance{&launch_partition<float, M, MinBlocks>,
                                       &launch_partition<double, M, MinBlocks>,
                                       {{shape + ", float>", (const void*)&partition_kernel<float, M, MinBlocks>, 4},
                                        {shape + ", double>", (const void*)&partition_kernel<double, M, MinBlocks>, 8}}};
  Tuning t = parse_tuning(name);
  if (t.sz != M || (t.mb > 0 ? t.mb : 1) != MinBlocks || t.bx <= 0)
    throw std::logic_error(std::string("partition_registers: tuning ") + name + " does not spell its instance " + shape);
  t.instance = &instance;
  return t;
}

// The tunings both layouts register (the first is the default). Registers (ptxas -v, sm_90; the table in
// docs/solvers/tridiag.md): sz16 218 (double) / 124 (float), sz16_mb2 128 (1076 B spilled) / 123,
// sz8_mb2 128 (232 B) / 95. At n = 512 a system is 32 chunks of 16 or 64 of 8: bx4_sz16 is a block of
// 128 threads, two an SM in double; bx8_sz16 and bx4_sz8 blocks of 256 (float bx8_sz16: two an SM).
inline std::vector<Tuning> partition_tunings() {
  return {partition_tuning<16>("bx4_sz16"), partition_tuning<16>("bx8_sz16"), partition_tuning<16, 2>("bx8_sz16_mb2"),
          partition_tuning<8, 2>("bx4_sz8_mb2")};
}

// The registration both layouts share; `stage` picks the layout.
inline Variant partition_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "partition_registers";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "registers"}, {"method", "partition"}, {"mapping", "thread_per_chunk"}};
  v.tunings = partition_tunings();
  v.status = status;
  v.run_float = &run_tuning_instance<TridiagCall<float>>;
  v.run_double = &run_tuning_instance<TridiagCall<double>>;
  return v;
}

}  // namespace nsb
