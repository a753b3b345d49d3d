// What the chunked imle/ccd variants share (line_thread_shared_y, line_thread_recompute): one thread per
// line as the paper (1D blocks, l1 fastest, so y and z lines are coalesced across a warp), each running
// a chunked line solve of harness/solvers/imle/ccd_chunked.hpp with its store in dynamic shared memory,
// the block's lines interleaved (a thread's words blockDim.x apart: a warp's accesses are consecutive
// words, free of bank conflicts).
#pragma once

#include <stdexcept>
#include <string>

#include "imle/ccd/ccd_lines.cuh"
#include "imle/ccd_chunked.hpp"

namespace nsb {

// The line of this thread: its padded base index; false past the last line.
template <class Map>
__device__ inline bool ccd_block_line(const Map& lines, std::size_t& base) {
  const long long line = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (line >= (long long)lines.count1 * lines.count2) return false;
  base = lines.base(int(line % lines.count1), int(line / lines.count1));
  return true;
}

// This thread's column of the block's dynamic shared memory (words blockDim.x apart).
template <class T>
__device__ inline T* ccd_thread_store() {
  extern __shared__ __align__(16) unsigned char ccd_shared_bytes[];
  return reinterpret_cast<T*>(ccd_shared_bytes) + threadIdx.x;
}

inline constexpr std::size_t kCcdMaxSharedBytes = 227 * 1024;  // sm_90's per-block opt-in limit

// A 1D launch of bx threads a block, a line each, with `words` words of T a line in shared memory
// (refused by name where a block's lines need more than a block can have).
template <class T, class Map>
void launch_ccd_chunked(void (*kernel)(CcdArgs<T, Map>), const CcdArgs<T, Map>& a, int bx, std::size_t words,
                        cudaStream_t s, const char* variant, const char* kernel_name) {
  check_block(bx, variant);
  const std::size_t shared = words * std::size_t(bx) * sizeof(T);
  if (shared > kCcdMaxSharedBytes)
    throw std::invalid_argument(std::string(variant) + ": lines of " + std::to_string(a.lines.n) + " cells need " +
                                std::to_string(shared) + " bytes of shared memory a block of " + std::to_string(bx) +
                                " threads, more than fits (" + std::to_string(kCcdMaxSharedBytes) + "): use a smaller bx");
  const long long lines = (long long)a.lines.count1 * a.lines.count2;
  if (lines == 0) return;
  if (shared > 48 * 1024)
    NSB_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  kernel<<<ceil_div(lines, bx), bx, shared, s>>>(a);
  NSB_LAUNCHED(kernel_name);
}

}  // namespace nsb
