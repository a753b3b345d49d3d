// What the variants of fracstep/transpose_zx and transpose_xz share (transpose.hpp): the local pass of one
// block (s, d), between its rows in z-slab s and its contiguous form, and the check of a call.
//
// Pack (z -> x) gathers the block's rows (nxs(d) points each, a row of the z-slab apart: ZSlabView) into the
// contiguous block; unpack (x -> z) scatters them back. A CUDA block a row, its threads along the row: reads and writes
// coalesced over runs of nxs(d) words points.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>

#include "cuda/check.cuh"
#include "transpose/transpose.hpp"
#include "registry.hpp"

namespace nsb {

template <class T, bool kPack>
__global__ void transpose_block_kernel(TransposeShape s, int d, ZSlabView<T> zslab, T* block) {
  const std::size_t row = blockIdx.x, run = s.run_words(d);
  T* z = zslab.at(s, row, s.x0(d));
  T* b = block + row * run;
  for (std::size_t q = threadIdx.x; q < run; q += blockDim.x) {
    if (kPack) b[q] = z[q];
    else z[q] = b[q];
  }
}

// Block (src, d)'s local pass on `stream`: pack (z-slab src -> block) or unpack (block -> z-slab src). The
// z-slab is a view (transpose.hpp: compact, or a padded field's interior).
template <class T>
void transpose_block(bool pack, const TransposeShape& s, int src, int d, ZSlabView<T> zslab, T* block, int threads,
                     cudaStream_t stream) {
  const std::size_t rows = s.block_rows(src);
  if (rows == 0 || s.run_words(d) == 0) return;
  if (pack) transpose_block_kernel<T, true><<<unsigned(rows), unsigned(threads), 0, stream>>>(s, d, zslab, block);
  else transpose_block_kernel<T, false><<<unsigned(rows), unsigned(threads), 0, stream>>>(s, d, zslab, block);
  NSB_CUDA(cudaGetLastError());
}

template <class T>
int transpose_threads(const TransposeCall<T>& c) {
  return c.tuning.bx > 0 ? c.tuning.bx : 256;
}

// The variants' kernels, for the registry (attributes recorded with each row).
inline std::vector<KernelRef> transpose_kernels() {
  return {{"transpose_block_kernel<float, pack>", (const void*)&transpose_block_kernel<float, true>, 4},
          {"transpose_block_kernel<float, unpack>", (const void*)&transpose_block_kernel<float, false>, 4},
          {"transpose_block_kernel<double, pack>", (const void*)&transpose_block_kernel<double, true>, 8},
          {"transpose_block_kernel<double, unpack>", (const void*)&transpose_block_kernel<double, false>, 8}};
}

// A phase's section on the call's timer (null: untimed).
struct TransposeSection {
  SectionTimer* timer;
  int phase;
  TransposeSection(SectionTimer* t, int ph) : timer(t), phase(ph) {
    if (timer) timer->begin(phase);
  }
  ~TransposeSection() {
    if (timer) timer->end(phase);
  }
  TransposeSection(const TransposeSection&) = delete;
  TransposeSection& operator=(const TransposeSection&) = delete;
};

}  // namespace nsb
