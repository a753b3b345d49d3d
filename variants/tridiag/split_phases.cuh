// The GPU's Launch for the phased split solve (harness/solvers/tridiag/split_phases.hpp): a phase is a
// kernel of a thread a line on the solve's stream, a message a device-to-device copy on it (the
// emulation's stand-in for a send or an all-gather; its time is a copy's, not a link's).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/check.cuh"
#include "tridiag/split_phases.hpp"

namespace nsb {

template <class Op>
__global__ void split_phase_kernel(Op op, std::size_t lines) {
  for (std::size_t l = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; l < lines; l += std::size_t(gridDim.x) * blockDim.x)
    op(l);
}

struct DeviceSplitLaunch {
  cudaStream_t stream = nullptr;
  int block = 128;
  template <class Op>
  void each(std::size_t lines, const Op& op) const {
    const std::size_t blocks = (lines + std::size_t(block) - 1) / std::size_t(block);
    split_phase_kernel<<<unsigned(blocks < 65535u * 32u ? blocks : 65535u * 32u), unsigned(block), 0, stream>>>(op, lines);
    NSB_LAUNCHED("split_phase_kernel");
  }
  template <class T>
  void copy(T* dst, const T* src, std::size_t words) const {
    NSB_CUDA(cudaMemcpyAsync(dst, src, words * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
};

}  // namespace nsb
