// What the cuSPARSE variants share: a handle per host thread and GPU (creating one costs milliseconds,
// so it lives as long as the thread), and the float/double entry points of the batched solvers under
// one name each.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <map>
#include <stdexcept>
#include <string>

#include "cuda/check.cuh"

namespace nsb {

inline void cusparse_check(cusparseStatus_t s, const char* what) {
  if (s != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE error in ") + what + ": " + cusparseGetErrorString(s));
}

inline cusparseHandle_t cusparse_handle(cudaStream_t stream) {
  struct Handles {
    std::map<int, cusparseHandle_t> by_device;
    ~Handles() {
      for (auto& [dev, h] : by_device) cusparseDestroy(h);  // at thread exit; a failure there is moot
    }
  };
  thread_local Handles handles;
  int dev = 0;
  NSB_CUDA(cudaGetDevice(&dev));
  cusparseHandle_t& h = handles.by_device[dev];
  if (!h) cusparse_check(cusparseCreate(&h), "cusparseCreate");
  cusparse_check(cusparseSetStream(h, stream), "cusparseSetStream");
  return h;
}

// gtsv2StridedBatch: contiguous systems, batchStride apart; no pivoting (CR + PCR).
inline cusparseStatus_t gtsv2_strided_buffer(cusparseHandle_t h, int m, const float* dl, const float* d,
                                             const float* du, const float* x, int batch, int stride, size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
inline cusparseStatus_t gtsv2_strided_buffer(cusparseHandle_t h, int m, const double* dl, const double* d,
                                             const double* du, const double* x, int batch, int stride, size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, batch, stride, bytes);
}
inline cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                      float* x, int batch, int stride, void* buffer) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}
inline cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                      double* x, int batch, int stride, void* buffer) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, batch, stride, buffer);
}

// gtsvInterleavedBatch: interleaved systems; algo 0 Thomas, 1 LU with partial pivoting, 2 QR. Its
// diagonals are not const in the API, so the variants hand it copies.
inline cusparseStatus_t gtsv_interleaved_buffer(cusparseHandle_t h, int algo, int m, const float* dl, const float* d,
                                                const float* du, const float* x, int batch, size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, batch, bytes);
}
inline cusparseStatus_t gtsv_interleaved_buffer(cusparseHandle_t h, int algo, int m, const double* dl,
                                                const double* d, const double* du, const double* x, int batch,
                                                size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, batch, bytes);
}
inline cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, float* dl, float* d, float* du, float* x,
                                         int batch, void* buffer) {
  return cusparseSgtsvInterleavedBatch(h, algo, m, dl, d, du, x, batch, buffer);
}
inline cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, double* dl, double* d, double* du,
                                         double* x, int batch, void* buffer) {
  return cusparseDgtsvInterleavedBatch(h, algo, m, dl, d, du, x, batch, buffer);
}

}  // namespace nsb
