// What the gtsvInterleavedBatch variants share: copy the diagonals into the work array (the API may
// overwrite them; a, b, c stay the caller's), hand it the rest of the work array as its buffer, solve.
// The copies move 6 words an unknown that the model does not count: they are the variant's price.
#pragma once

#include "registry.hpp"
#include "tridiag/cusparse_call.cuh"
#include "tridiag/stage_call.hpp"

namespace nsb {

template <class T, int kAlgo>
void run_cusparse_interleaved(const TridiagCall<T>& c) {
  check_tridiag_call(c);
  const TridiagLayout& l = c.layout;
  if (l.inner != l.batch) throw std::invalid_argument("tridiag: gtsvInterleavedBatch needs interleaved systems");
  if (l.n < 3) throw std::invalid_argument("tridiag: gtsvInterleavedBatch needs at least 3 unknowns a system");
  const cudaStream_t stream = static_cast<cudaStream_t>(c.exec.stream);
  const cusparseHandle_t h = cusparse_handle(stream);
  const std::size_t values = l.points();
  T* const dl = c.work;
  T* const d = dl + values;
  T* const du = d + values;
  void* const buffer = du + values;
  const std::size_t copies = 3 * values * sizeof(T);
  size_t bytes = 0;
  cusparse_check(gtsv_interleaved_buffer(h, kAlgo, l.n, c.a, c.b, c.c, c.x, l.batch, &bytes),
                 "gtsvInterleavedBatch_bufferSizeExt");
  if (copies + bytes > c.work_bytes)
    throw std::invalid_argument("tridiag: gtsvInterleavedBatch wants " + std::to_string(copies + bytes) +
                                " bytes of copies and buffer, the work array has " + std::to_string(c.work_bytes));
  NSB_CUDA(cudaMemcpyAsync(dl, c.a, values * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  NSB_CUDA(cudaMemcpyAsync(d, c.b, values * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  NSB_CUDA(cudaMemcpyAsync(du, c.c, values * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  cusparse_check(gtsv_interleaved(h, kAlgo, l.n, dl, d, du, c.x, l.batch, buffer), "gtsvInterleavedBatch");
}

}  // namespace nsb
