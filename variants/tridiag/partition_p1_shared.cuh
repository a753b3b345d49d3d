// What tridiag/lines_y/partition_p1_shared is: the partition method of partition_registers.cuh (the same
// block of W systems x K chunks, a thread a chunk of at most M rows loaded once into registers, the same
// elimination, reduced solve and store), with P1's coefficients (y, v, w of the chunk's interior rows)
// parked in shared memory while the block solves the reduced system.
//
// Why: partition_registers is latency bound at 512^3. Nsight Compute (double bx8_sz16, 4a8ae3c): 230
// registers a thread, one block of 8 warps an SM, 0.25 eligible warps a scheduler, 9.3 cycles between a
// warp's instructions, DRAM at 63% of its peak; float with 139 registers is also held to 8 warps, and its
// 16-warp tuning (bx8_sz16_mb2, two blocks) ran 1.75x faster than the 8-warp one. The peak of registers is
// the reduced solve's second level (its chunk of kPartitionReducedRows rows and their P1, 56 values) while
// the thread's own P1 (3 M values) stays live. Parked, P1 holds no register through the reduced solve:
// ptxas (sm_90, CUDA 13.0) gives 190 registers where partition_registers takes 218 in double and 108
// where it takes 124 in float at sz16, and at sz8 128 in double without the 232 B partition_registers
// spills at the same bound. So more warps fit an SM (the tunings below: double bx4_sz8_mb2 two blocks of
// 8 warps without spilling, float bx8_sz8_mb2 two of 16).
//
// The slots: value i (3 (r - 1) + {0, 1, 2} for y, v, w of row r) of thread t at i * threads + t, so a
// warp's 32 threads write and read 32 consecutive words: no bank conflict. A thread alone reads its slots,
// after the reduced solve's barriers. Global memory sees the model's 5 words an unknown, as
// partition_registers; the same formulas in the same order, so the same result to rounding.
//
// Blocks are up to MaxThreads threads (256 or 512, the tuning's instance): at n = 512 a block of bx8 at
// sz8 is 8 x 64 = 512 threads, whose rows are runs of 8 values (32 B in float, a sector), where 256 threads
// would leave runs of 4 (16 B: the float bx4 tunings of partition_registers ran at 36-50%).
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tridiag/partition_registers.cuh"

namespace nsb {

// P1's parked values a thread: y, v, w of the interior rows 1..M-2.
template <int M>
inline constexpr int kParkedValues = 3 * (M - 2);

// Shared memory of a block of `systems` x `chunks` threads of M rows: the parked P1, then the reduced system.
template <class T, int M>
std::size_t partition_p1_shared_bytes(int systems, int chunks) {
  return std::size_t(kParkedValues<M>) * std::size_t(systems) * std::size_t(chunks) * sizeof(T) +
         partition_shared_bytes<T>(systems, chunks);
}

// P1 of a chunk into its thread's slots (`slots` + t, a value every `threads`), and back.
template <class T, int M>
__device__ void park_p1(T* slots, int threads, const PartitionLocal<T, M>& local) {
#pragma unroll
  for (int r = 1; r < M - 1; ++r) {
    slots[(3 * (r - 1) + 0) * threads] = local.y[r];
    slots[(3 * (r - 1) + 1) * threads] = local.v[r];
    slots[(3 * (r - 1) + 2) * threads] = local.w[r];
  }
}
template <class T, int M>
__device__ void unpark_p1(const T* slots, int threads, PartitionLocal<T, M>& local) {
#pragma unroll
  for (int r = 1; r < M - 1; ++r) {
    local.y[r] = slots[(3 * (r - 1) + 0) * threads];
    local.v[r] = slots[(3 * (r - 1) + 1) * threads];
    local.w[r] = slots[(3 * (r - 1) + 2) * threads];
  }
}

template <class T, int M, int MaxThreads, int MinBlocks>
__global__ void __launch_bounds__(MaxThreads, MinBlocks) partition_p1_shared_kernel(TridiagArgs<T> q) {
  extern __shared__ unsigned char shared_bytes[];
  const int W = int(blockDim.x), K = int(blockDim.y), lane = int(threadIdx.x), k = int(threadIdx.y);
  const int threads = W * K;
  const int s = int(blockIdx.x) * W + lane;
  const bool active = s < q.l.batch;  // the last block's spare lanes solve identity rows
  const int n = q.l.n, j0 = partition_chunk_start(n, K, k), m = partition_chunk_start(n, K, k + 1) - j0;
  const std::size_t first = active ? q.l.index(s, j0) : 0;
  T* const slots = reinterpret_cast<T*>(shared_bytes) + (k * W + lane);

  // The chunk, read once, and its elimination; P1 parked for the reduced solve.
  T a[M], b[M], c[M], d[M];
  load_chunk(active ? m : 0, [&](int r) { return partition_global_row(q, first, j0, r); }, a, b, c, d);
  PartitionLocal<T, M> local = partition_eliminate(a, b, c, d, m);
  park_p1(slots, threads, local);
  T* const reduced = reinterpret_cast<T*>(shared_bytes) + std::size_t(kParkedValues<M>) * std::size_t(threads);
  const PartitionEnds<T> x = partition_reduced_solve(reduced, W, K, lane, k, local.first, local.last);
  unpark_p1(slots, threads, local);  // after the reduced solve's last barrier: the thread's own slots
  partition_store(q, local, active, first, m, x);
}

template <class T, int M, int MaxThreads, int MinBlocks>
void launch_partition_p1_shared(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  const PartitionBlock p = partition_block("partition_p1_shared", l.n, M, c.tuning.bx, MaxThreads);
  const std::size_t shared = partition_p1_shared_bytes<T, M>(p.systems, p.chunks);
  if (shared > kMaxSharedBytes)  // not at the sizes the tunings allow (at most 212 KiB), but said by name if so
    throw std::invalid_argument("tridiag: partition_p1_shared needs " + std::to_string(shared) +
                                " bytes of shared memory a block for systems of " + std::to_string(l.n) + " unknowns, more than fits");
  const auto kernel = &partition_p1_shared_kernel<T, M, MaxThreads, MinBlocks>;
  NSB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  const dim3 block{unsigned(p.systems), unsigned(p.chunks), 1};
  kernel<<<ceil_div(l.batch, p.systems), block, shared, stream_of(c.exec)>>>(tridiag_args(c));
  NSB_LAUNCHED("partition_p1_shared_kernel");
}

// A tuning and its compiled instance: partition_p1_shared_tuning<16, 256>("bx8_sz16"),
// partition_p1_shared_tuning<8, 512, 2>("bx8_sz8_mb2") (sz: rows a thread, M; MaxThreads: the block's
// bound, which bx x K at n = 512 must meet; mb: blocks an SM the registers must allow, none: 1; bx is read
// at run time). A name that does not spell its instance stops the program as the variant registers.
template <int M, int MaxThreads, int MinBlocks = 1>
Tuning partition_p1_shared_tuning(const char* name) {
  const std::string shape = "partition_p1_shared_kernel<sz" + std::to_string(M) + ", t" + std::to_string(MaxThreads) + ", mb" +
                            std::to_string(MinBlocks);
  static const TuningInstance instance{
      &launch_partition_p1_shared<float, M, MaxThreads, MinBlocks>,
      &launch_partition_p1_shared<double, M, MaxThreads, MinBlocks>,
      {{shape + ", float>", (const void*)&partition_p1_shared_kernel<float, M, MaxThreads, MinBlocks>, 4},
       {shape + ", double>", (const void*)&partition_p1_shared_kernel<double, M, MaxThreads, MinBlocks>, 8}}};
  Tuning t = parse_tuning(name);
  if (t.sz != M || (t.mb > 0 ? t.mb : 1) != MinBlocks || t.bx <= 0 || t.bx * partition_chunks(512, M) != MaxThreads)
    throw std::logic_error(std::string("partition_p1_shared: tuning ") + name + " does not spell its instance " + shape);
  t.instance = &instance;
  return t;
}

// The tunings (the first is the default). Registers from ptxas -v (sm_90, CUDA 13.0), double / float;
// docs/solvers/tridiag.md tables them with the blocks an SM they allow at n = 512 (K = 512 / sz):
//   bx8_sz16      256 threads, 190 / 108: partition_registers' best shape with P1 parked
//   bx16_sz16     512 threads, 128 (828 B spilled) / 108: float rows of 64 B, one block of 16 warps
//   bx4_sz8_mb2   256 threads, 128 / 79: double two blocks (16 warps) without spilling
//   bx8_sz8       512 threads, 128 / 79: one block of 16 warps, rows of 64 B (double) and 32 B (float)
//   bx8_sz8_mb2   512 threads, 64 (1400 B spilled) / 64 (60 B): float two blocks of 16 warps
//   bx4_sz16_mb3  128 threads, 168 (96 B spilled) / 108: double three blocks (12 warps), rows of 32 B
inline std::vector<Tuning> partition_p1_shared_tunings() {
  return {partition_p1_shared_tuning<16, 256>("bx8_sz16"), partition_p1_shared_tuning<16, 512>("bx16_sz16"),
          partition_p1_shared_tuning<8, 256, 2>("bx4_sz8_mb2"), partition_p1_shared_tuning<8, 512>("bx8_sz8"),
          partition_p1_shared_tuning<8, 512, 2>("bx8_sz8_mb2"), partition_p1_shared_tuning<16, 128, 3>("bx4_sz16_mb3")};
}

inline Variant partition_p1_shared_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "partition_p1_shared";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "registers"}, {"method", "partition"}, {"mapping", "thread_per_chunk"}};
  v.tunings = partition_p1_shared_tunings();
  v.status = status;
  v.run_float = &run_tuning_instance<TridiagCall<float>>;
  v.run_double = &run_tuning_instance<TridiagCall<double>>;
  return v;
}

}  // namespace nsb
