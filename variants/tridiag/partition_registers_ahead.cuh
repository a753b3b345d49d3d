// What tridiag/lines_y/partition_registers_ahead is: partition_p1_shared (the partition method of
// partition_registers.cuh, P1 parked in shared memory through the reduced solve) with persistent blocks
// that load the next tile's chunks into registers while this tile's reduced system is solved and its
// unknowns are stored.
//
// Why: partition_registers' block (and partition_p1_shared's) loads its chunks, then eliminates, solves
// the reduced system and stores, and only then does the SM's next block load: at one block of 8 warps an
// SM (double, Nsight Compute at 4a8ae3c: 0.25 eligible warps a scheduler) the SM's loads stop for the
// whole reduced solve, where one warp of the 8 runs the Thomas finish. partition_shared_async loaded the
// next tile ahead into shared memory by cp.async and was slower (72.4% / 62.3%): its copies of 4 and 8
// bytes go through L1, which its 156 KiB of slots (double bx8) leave small, and a barrier a tile waits
// for every thread's copies. Here the loads are plain loads into the registers the chunk was eliminated
// from: once P1 is parked, the chunk's a, b, c, d registers are free, and the next tile's loads fill them
// during the reduced solve's barriers and the stores (a thread waits for its own loads only where it
// eliminates the next tile). The price is the registers of both at once: the reduced solve's second level
// beside a chunk in flight (ptxas: double sz16 255 registers and 44 B spilled, one block an SM).
//
// A block solves tiles (W neighbouring systems each) blockIdx.x, blockIdx.x + gridDim.x, ..., the grid
// as many blocks as the SMs hold at once. Global memory sees the model's 5 words an unknown; the same
// formulas in the same order as partition_registers.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "tridiag/partition_p1_shared.cuh"

namespace nsb {

template <class T, int M, int MinBlocks>
__global__ void __launch_bounds__(kPartitionMaxThreads, MinBlocks) partition_registers_ahead_kernel(TridiagArgs<T> q) {
  extern __shared__ unsigned char shared_bytes[];
  const int W = int(blockDim.x), K = int(blockDim.y), lane = int(threadIdx.x), k = int(threadIdx.y);
  const int threads = W * K;
  const int n = q.l.n, j0 = partition_chunk_start(n, K, k), m = partition_chunk_start(n, K, k + 1) - j0;
  const int tiles = int((q.l.batch + W - 1) / W);
  T* const slots = reinterpret_cast<T*>(shared_bytes) + (k * W + lane);
  T* const reduced = reinterpret_cast<T*>(shared_bytes) + std::size_t(kParkedValues<M>) * std::size_t(threads);

  // The chunk of tile `tile` into a, b, c, d (identity rows past the last tile and for a spare lane).
  T a[M], b[M], c[M], d[M];
  const auto fetch = [&](int tile) {
    const int s = tile * W + lane;
    const bool active = tile < tiles && s < q.l.batch;
    const std::size_t first = active ? q.l.index(s, j0) : 0;
    load_chunk(active ? m : 0, [&](int r) { return partition_global_row(q, first, j0, r); }, a, b, c, d);
  };

  fetch(int(blockIdx.x));
  for (int tile = int(blockIdx.x); tile < tiles; tile += int(gridDim.x)) {  // uniform over the block
    PartitionLocal<T, M> local = partition_eliminate(a, b, c, d, m);
    park_p1(slots, threads, local);
    fetch(tile + int(gridDim.x));  // in flight through the reduced solve and the stores below
    const PartitionEnds<T> x = partition_reduced_solve(reduced, W, K, lane, k, local.first, local.last);
    unpark_p1(slots, threads, local);  // after the reduced solve's last barrier: the thread's own slots
    const int s = tile * W + lane;
    const bool active = s < q.l.batch;
    partition_store(q, local, active, active ? q.l.index(s, j0) : 0, m, x);
  }
}

template <class T, int M, int MinBlocks>
void launch_partition_registers_ahead(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  const PartitionBlock p = partition_block("partition_registers_ahead", l.n, M, c.tuning.bx);
  const std::size_t shared = partition_p1_shared_bytes<T, M>(p.systems, p.chunks);  // at most 106 KiB (256 threads)
  const auto kernel = &partition_registers_ahead_kernel<T, M, MinBlocks>;
  launch_persistent_tiles(kernel, "partition_registers_ahead", p, shared, c);
  NSB_LAUNCHED("partition_registers_ahead_kernel");
}

// A tuning and its compiled instance: partition_registers_ahead_tuning<16>("bx8_sz16") (sz: rows a
// thread, M; mb: blocks of 256 threads an SM the registers must allow, none: 1; bx, the systems a tile,
// is read at run time). A name that does not spell its instance stops the program as the variant registers.
template <int M, int MinBlocks = 1>
Tuning partition_registers_ahead_tuning(const char* name) {
  const std::string shape = "partition_registers_ahead_kernel<sz" + std::to_string(M) + ", mb" + std::to_string(MinBlocks);
  static const TuningInstance instance{&launch_partition_registers_ahead<float, M, MinBlocks>,
                                       &launch_partition_registers_ahead<double, M, MinBlocks>,
                                       {{shape + ", float>", (const void*)&partition_registers_ahead_kernel<float, M, MinBlocks>, 4},
                                        {shape + ", double>", (const void*)&partition_registers_ahead_kernel<double, M, MinBlocks>, 8}}};
  Tuning t = parse_tuning(name);
  if (t.sz != M || (t.mb > 0 ? t.mb : 1) != MinBlocks || t.bx <= 0)
    throw std::logic_error(std::string("partition_registers_ahead: tuning ") + name + " does not spell its instance " + shape);
  t.instance = &instance;
  return t;
}

// The tunings (the first is the default); registers from ptxas -v (sm_90, CUDA 13.0), blocks an SM at
// n = 512 (docs/solvers/tridiag.md):
//   bx8_sz16      256 threads: one block of 8 warps (double 255 registers, 44 B spilled; float 168)
//   bx8_sz16_mb2  256 threads: float two blocks of 8 warps (128 registers, 84 B spilled)
//   bx4_sz8       256 threads: double one block without spilling (218 registers), K = 64
inline std::vector<Tuning> partition_registers_ahead_tunings() {
  return {partition_registers_ahead_tuning<16>("bx8_sz16"), partition_registers_ahead_tuning<16, 2>("bx8_sz16_mb2"),
          partition_registers_ahead_tuning<8>("bx4_sz8")};
}

inline Variant partition_registers_ahead_variant(const char* stage, const char* status) {
  Variant v;
  v.stage = stage;
  v.name = "partition_registers_ahead";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "registers"}, {"method", "partition"}, {"mapping", "thread_per_chunk"}};
  v.tunings = partition_registers_ahead_tunings();
  v.status = status;
  v.run_float = &run_tuning_instance<TridiagCall<float>>;
  v.run_double = &run_tuning_instance<TridiagCall<double>>;
  return v;
}

}  // namespace nsb
