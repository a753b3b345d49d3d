// The four-corner scatter of flux and fluxtrb (Kemal et al. 2015 Sec. IV.E, Fig. 6), written once for
// both (Phys: MbMeanFlow or MbTurbulence, formulas.hpp) in four ways:
//
//   atomic_fp64  one thread a cell adds its four corners with atomicAdd (native FP64 atomics, sm_60 on)
//   atomic_cas   the same with an atomicCAS loop: how FP64 atomics had to be done on the paper's Fermi
//                GPUs (no native double atomicAdd before sm_60), to reproduce its atomics
//   buffered     the paper's choice: kernel 1 adds one corner (i, j) directly (each node is that corner of
//                one cell only, so no race) and writes the other three to buffers indexed by cell; three
//                more kernels add one corner type each. Deterministic. 4 launches, 3 x NV buffers.
//   gather       node-centric (NOT in the paper, a modern alternative): one thread a node recomputes the
//                cells around it and adds their share once: no atomics, no buffers, four times the flops.
// A fifth, shared_atomic (NOT in the paper: a block's corners summed in shared memory first), is in
// scatter_tile.cuh.
#pragma once

#include <type_traits>

#include "multiblock/common.cuh"

namespace nsb {

enum class MbScatter { atomic_fp64, atomic_cas, buffered, gather };

// atomicAdd by compare-and-swap on the value's bits (the pre-sm_60 double-precision idiom).
template <class T>
__device__ inline void mb_atomic_add_cas(T* p, T v) {
  if constexpr (sizeof(T) == 8) {
    auto* bits = reinterpret_cast<unsigned long long*>(p);
    unsigned long long old = *bits, assumed;
    do {
      assumed = old;
      old = atomicCAS(bits, assumed, __double_as_longlong(__longlong_as_double(assumed) + double(v)));
    } while (assumed != old);
  } else {
    auto* bits = reinterpret_cast<unsigned int*>(p);
    unsigned int old = *bits, assumed;
    do {
      assumed = old;
      old = atomicCAS(bits, assumed, __float_as_uint(__uint_as_float(assumed) + float(v)));
    } while (assumed != old);
  }
}

template <class Phys, class T, bool Cas>
struct MbAtomicCells {
  MbArrays<T> a;
  std::ptrdiff_t sj;
  __device__ void operator()(int, int, int, std::size_t c00) const {
    T out[4][Phys::kVars];
    ni_cell<Phys>(a, c00, sj, out);
    for (int k = 0; k < 4; ++k)
      for (int v = 0; v < Phys::kVars; ++v) {
        T* target = a.f[Phys::kFirst + v] + mb_corner(c00, sj, k);
        if constexpr (Cas) mb_atomic_add_cas(target, out[k][v]);
        else atomicAdd(target, out[k][v]);
      }
  }
};

// Buffer of corner k (1..3) of unknown v: scratch field, indexed by the cell's first corner.
template <class Phys, class T>
__device__ inline T* mb_corner_buffer(const MbArrays<T>& a, int k, int v) {
  return a.f[kMbScratch + (k - 1) * Phys::kVars + v];
}

template <class Phys, class T>
struct MbBufferedCells {
  MbArrays<T> a;
  std::ptrdiff_t sj;
  __device__ void operator()(int, int, int, std::size_t c00) const {
    T out[4][Phys::kVars];
    ni_cell<Phys>(a, c00, sj, out);
    for (int v = 0; v < Phys::kVars; ++v) {
      a.f[Phys::kFirst + v][c00] += out[0][v];
      for (int k = 1; k < 4; ++k) mb_corner_buffer<Phys>(a, k, v)[c00] = out[k][v];
    }
  }
};
template <class Phys, class T>
struct MbBufferAdd {
  MbArrays<T> a;
  std::ptrdiff_t sj;
  int corner;
  __device__ void operator()(int, int, int, std::size_t c00) const {
    const std::size_t node = mb_corner(c00, sj, corner);
    for (int v = 0; v < Phys::kVars; ++v) a.f[Phys::kFirst + v][node] += mb_corner_buffer<Phys>(a, corner, v)[c00];
  }
};

template <class Phys, class T>
struct MbGatherNodes {
  MbArrays<T> a;
  std::ptrdiff_t sj;
  int n;
  __device__ void operator()(int, int i, int j, std::size_t node) const {
    T sum[Phys::kVars] = {};
    for (int k = 0; k < 4; ++k) {  // the cell whose corner k is this node
      const int ci = i - (mb_corner_si(k) > 0 ? 1 : 0), cj = j - (mb_corner_sj(k) > 0 ? 1 : 0);
      if (ci < 1 || cj < 1 || ci > n - 1 || cj > n - 1) continue;
      T out[4][Phys::kVars];
      ni_cell<Phys>(a, node - std::size_t(i - ci) - std::size_t(j - cj) * std::size_t(sj), sj, out);
      for (int v = 0; v < Phys::kVars; ++v) sum[v] += out[k][v];
    }
    for (int v = 0; v < Phys::kVars; ++v) a.f[Phys::kFirst + v][node] += sum[v];
  }
};

template <class Phys, MbScatter S, class T>
void mb_scatter(const MbCall<T>& c) {
  const std::ptrdiff_t sj = c.grid.sy();
  if constexpr (S == MbScatter::atomic_fp64) mb_launch_points(c, MbAtomicCells<Phys, T, false>{c.a, sj}, true, "atomic_fp64");
  else if constexpr (S == MbScatter::atomic_cas) mb_launch_points(c, MbAtomicCells<Phys, T, true>{c.a, sj}, true, "atomic_cas");
  else if constexpr (S == MbScatter::gather) mb_launch_points(c, MbGatherNodes<Phys, T>{c.a, sj, c.grid.nx}, false, "gather");
  else {
    for (int k = 1; k < 4; ++k)
      for (int v = 0; v < Phys::kVars; ++v)
        if (!c.a.f[kMbScratch + (k - 1) * Phys::kVars + v]) throw std::logic_error("buffered scatter: no corner buffers");
    // Block by block, as the paper: each block's four kernels, then the next block's.
    MbCall<T> one = c;
    one.nblocks = 1;
    for (int q = 0; q < c.nblocks; ++q) {
      one.blocks[0] = c.blocks[q];
      mb_launch_points(one, MbBufferedCells<Phys, T>{c.a, sj}, true, "buffered");
      for (int k = 1; k < 4; ++k) mb_launch_points(one, MbBufferAdd<Phys, T>{c.a, sj, k}, true, "buffered add");
    }
  }
}

template <class Phys, MbScatter S>
Variant mb_scatter_variant(const char* stage, const char* status) {
  static constexpr const char* names[] = {"atomic_fp64", "atomic_cas", "buffered", "gather"};
  Variant v;
  v.stage = stage;
  v.name = names[int(S)];
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"cta", "2d"}, {"scatter", v.name}};
  v.tunings = mb_block_shapes();
  v.status = status;
  // Atomics add in whatever order the threads arrive; the others in a fixed order.
  v.determinism = S == MbScatter::atomic_fp64 || S == MbScatter::atomic_cas ? Determinism::order_dependent : Determinism::deterministic;
  v.run_float = StageFn(&mb_scatter<Phys, S, float>);
  v.run_double = StageFn(&mb_scatter<Phys, S, double>);
  using F = std::conditional_t<S == MbScatter::gather, MbGatherNodes<Phys, float>,
                               std::conditional_t<S == MbScatter::buffered, MbBufferedCells<Phys, float>, MbAtomicCells<Phys, float, S == MbScatter::atomic_cas>>>;
  using D = std::conditional_t<S == MbScatter::gather, MbGatherNodes<Phys, double>,
                               std::conditional_t<S == MbScatter::buffered, MbBufferedCells<Phys, double>, MbAtomicCells<Phys, double, S == MbScatter::atomic_cas>>>;
  v.kernels = {{"mb_points_kernel<float>", (const void*)&mb_points_kernel<F>, 4},
               {"mb_points_kernel<double>", (const void*)&mb_points_kernel<D>, 8}};
  return v;
}

}  // namespace nsb
