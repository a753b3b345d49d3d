// Error checking for CUDA runtime calls and kernel launches: every failure names the call and the
// CUDA error, and throws, so a bad launch never goes unnoticed and results already written stay.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace nsb {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                             "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}

}  // namespace nsb

#define NSB_CUDA(call) ::nsb::cuda_check((call), #call, __FILE__, __LINE__)
// After a kernel launch: catches configuration errors at once; execution errors surface at the next sync.
#define NSB_LAUNCHED(name) ::nsb::cuda_check(cudaGetLastError(), name, __FILE__, __LINE__)
