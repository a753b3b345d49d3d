// What tridiag/lines_y/partition_shared_async and tridiag/interleaved/partition_shared_async share: the
// partition method of partition_registers.cuh (the same block of W systems x K chunks, a thread a chunk of
// at most M rows, the same elimination, reduced solve and store), with the chunks' a, b, c, d brought into
// shared memory by asynchronous copies (cp.async) one tile ahead.
//
// Why: partition_registers loads a chunk into registers and then eliminates it; at 512^3 (double bx8_sz16)
// its 230 registers leave one block of 8 warps an SM, which waits for its loads and then computes with
// no load in flight (Nsight Compute: 12.5% occupancy, DRAM at 64% of its peak; docs/solvers/tridiag.md).
// Here a block is persistent: it solves tiles (W neighbouring systems each) blockIdx.x, blockIdx.x +
// gridDim.x, ..., and as soon as a tile's chunks are in registers the copies of the next tile's chunks
// go out into the same slots, in flight during this tile's elimination, reduced solve and stores. The
// copies hold no registers, so the loads overlap the work whatever the occupancy.
//
// Each thread copies its own chunk's rows (the same global reads as partition_registers: a warp's row r is
// runs of W values) into its own slots and alone reads them, so the copies need no barrier: a thread waits
// for its own (__pipeline_wait_prior) and reads them; one barrier a tile orders those reads before the
// slots' refill. Thread t's rows sit at t (M + 1): consecutive threads' rows are M + 1 values apart, an odd
// number of words (float) or 2 mod 4 (double), so a warp's reads of row r fall in distinct banks.
//
// Global memory sees the model's 5 words an unknown, as partition_registers. Shared memory a block: 4 (M +
// 1) values a thread and the reduced system (partition_shared_bytes). The systems a block solves (tuning
// bx) shrink where K is large or where the block would pass kMaxSharedBytes; systems too long for one
// system a block are refused by name.
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tridiag/partition_registers.cuh"

namespace nsb {

// Shared memory of a block of `systems` x `chunks` threads of M rows: the chunks' slots, then the reduced system.
template <class T>
std::size_t partition_shared_async_bytes(int systems, int chunks, int M) {
  return 4 * std::size_t(systems) * std::size_t(chunks) * std::size_t(M + 1) * sizeof(T) + partition_shared_bytes<T>(systems, chunks);
}

template <class T, int M>
__global__ void __launch_bounds__(kPartitionMaxThreads) partition_shared_async_kernel(TridiagArgs<T> q) {
  extern __shared__ unsigned char shared_bytes[];
  const int W = int(blockDim.x), K = int(blockDim.y), lane = int(threadIdx.x), k = int(threadIdx.y);
  const int n = q.l.n, j0 = partition_chunk_start(n, K, k), m = partition_chunk_start(n, K, k + 1) - j0;
  const int tiles = int((q.l.batch + W - 1) / W);
  const int span = W * K * (M + 1);  // one array's slots
  T* const slots = reinterpret_cast<T*>(shared_bytes);
  T* const own = slots + (k * W + lane) * (M + 1);  // this thread's rows of a; b, c, d at span, 2 span, 3 span
  T* const reduced = slots + 4 * span;

  // The chunk of tile `tile` into this thread's slots, one commit group, empty past the last tile or for a
  // spare lane. a_0 and c_{n-1} are outside the matrix: never read (their slots are not read either).
  const auto fetch = [&](int tile) {
    const int s = tile * W + lane;
    if (tile < tiles && s < q.l.batch) {
      const std::size_t first = q.l.index(s, j0), stride = q.l.stride();
#pragma unroll
      for (int r = 0; r < M; ++r)
        if (r < m) {
          const std::size_t p = first + std::size_t(r) * stride;
          if (j0 + r > 0) __pipeline_memcpy_async(own + r, q.a + p, sizeof(T));
          __pipeline_memcpy_async(own + span + r, q.b + p, sizeof(T));
          if (j0 + r < n - 1) __pipeline_memcpy_async(own + 2 * span + r, q.c + p, sizeof(T));
          __pipeline_memcpy_async(own + 3 * span + r, q.x + p, sizeof(T));
        }
    }
    __pipeline_commit();
  };

  fetch(int(blockIdx.x));
  for (int tile = int(blockIdx.x); tile < tiles; tile += int(gridDim.x)) {  // uniform over the block
    __pipeline_wait_prior(0);  // this tile's copies (this thread's own) have landed
    const int s = tile * W + lane;
    const bool active = s < q.l.batch;  // the last tile's spare lanes solve identity rows
    T a[M], b[M], c[M], d[M];
    load_chunk(active ? m : 0, [&](int r) {
      const int j = j0 + r;
      return TridiagRow<T>{j > 0 ? own[r] : T(0), own[span + r], j < n - 1 ? own[2 * span + r] : T(0), own[3 * span + r]};
    }, a, b, c, d);
    __syncthreads();              // the slots' reads are done (the chunk is in registers) before they are refilled
    fetch(tile + int(gridDim.x));  // the next tile's copies, in flight while this one is solved
    const PartitionLocal<T, M> local = partition_eliminate(a, b, c, d, m);
    const PartitionEnds<T> x = partition_reduced_solve(reduced, W, K, lane, k, local.first, local.last);
    partition_store(q, local, active, active ? q.l.index(s, j0) : 0, m, x);
  }
  __pipeline_wait_prior(0);  // nothing is left in flight (the last group is empty)
}

template <class T, int M>
void launch_partition_shared_async(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  PartitionBlock p = partition_block("partition_shared_async", l.n, M, c.tuning.bx);
  while (p.systems > 1 && partition_shared_async_bytes<T>(p.systems, p.chunks, M) > kMaxSharedBytes) --p.systems;
  const std::size_t shared = partition_shared_async_bytes<T>(p.systems, p.chunks, M);
  if (shared > kMaxSharedBytes)
    throw std::invalid_argument("tridiag: partition_shared_async with " + std::to_string(M) + " rows a thread needs " +
                                std::to_string(shared) + " bytes of shared memory a block for systems of " +
                                std::to_string(l.n) + " unknowns, more than fits");
  const auto kernel = &partition_shared_async_kernel<T, M>;
  launch_persistent_tiles(kernel, "partition_shared_async", p, shared, c);
  NSB_LAUNCHED("partition_shared_async_kernel");
}

// A tuning and its compiled instance: partition_shared_async_tuning<16>("bx4_sz16") (sz: rows a thread, M; bx,
// the systems a tile, is read at run time). A name that does not spell its instance stops the program as
// the variant registers (a bug, never an input).
template <int M>
Tuning partition_shared_async_tuning(const char* name) {
  const std::string shape = "partition_shared_async_kernel<sz" + std::to_string(M);
  static const TuningInstance instance{&launch_partition_shared_async<float, M>,
                                       &launch_partition_shared_async<double, M>,
                                       {{shape + ", float>", (const void*)&partition_shared_async_kernel<float, M>, 4},
                                        {shape + ", double>", (const void*)&partition_shared_async_kernel<double, M>, 8}}};
  Tuning t = parse_tuning(name);
  if (t.sz != M || t.mb > 0 || t.bx <= 0)
    throw std::logic_error(std::string("partition_shared_async: tuning ") + name + " does not spell its instance " + shape);
  t.instance = &instance;
  return t;
}

// The tunings both layouts register (the first is the default). A tile's row is a run of bx values: 32
// bytes (a sector) at bx4 in double and bx8 in float; shorter runs share a sector with another block's tile,
// which L2 then moves twice to the SMs. Blocks an SM holds at n = 512, by the registers (ptxas -v, sm_90:
// sz16 216 double / 123 float, sz8 192 / 122, no spill) and the shared memory (4 x 17 or 4 x 9 values a
// thread and the reduced system; 228 KiB an SM):
//   bx4_sz16  128 threads: double 2 (78 KiB a block, 8 warps), float 4 (39 KiB, 16 warps)
//   bx8_sz16  256 threads: double 1 (156 KiB, 8 warps),        float 2 (78 KiB, 16 warps)
//   bx2_sz16   64 threads: double 4 (39 KiB, 8 warps),         float 8 (20 KiB, 16 warps)
//   bx4_sz8   256 threads: double 1 (92 KiB, 8 warps),         float 2 (46 KiB, 16 warps)
inline std::vector<Tuning> partition_shared_async_tunings() {
  return {partition_shared_async_tuning<16>("bx4_sz16"), partition_shared_async_tuning<16>("bx8_sz16"),
          partition_shared_async_tuning<16>("bx2_sz16"), partition_shared_async_tuning<8>("bx4_sz8")};
}

// The registration both layouts share; `stage` picks the layout.
inline Variant partition_shared_async_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "partition_shared_async";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "shared"}, {"method", "partition"}, {"mapping", "thread_per_chunk"}};
  v.tunings = partition_shared_async_tunings();
  v.status = status;
  v.run_float = &run_tuning_instance<TridiagCall<float>>;
  v.run_double = &run_tuning_instance<TridiagCall<double>>;
  return v;
}

}  // namespace nsb
