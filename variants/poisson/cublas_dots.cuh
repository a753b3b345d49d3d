// What the family's cuBLAS variants share (dot/library_cublas, apply_dot/separate_cublas,
// cg_update/separate_cublas): dot products by cublasDdot in device pointer mode, so each sum is written
// straight to the stage's device scalar and the host never waits (the paper's CG dots, Liu et al. Sec. 2).
//
// cuBLAS takes contiguous vectors while the family's arrays are padded (ghost points between the
// interior's rows), and cublasSdot would sum float in float where the kinds sum in double: so a pass over
// the interior writes the two factors of each point's product (an op's factors(), poisson_ops.cuh) into
// two compact double vectors, numbered x fastest, and cublasDdot reads those. The pass is the stage's own
// (the dot's gather, the operator's or the update's walk), so it adds the compact writes, not a walk.
//
// The handle and the compact vectors are kept per host thread and device (ranks run on threads), grown to
// the largest grid seen and kept while the process lives; the three variants share them (one function
// below, inline with external linkage: one instance in the program). Calls on one thread are ordered on
// their stream, so a stage's gather never overwrites vectors a previous stage's cublasDdot still reads.
// Declared for the memory check by each variant (PoissonKernelWorkspaceRegistrar, pool "cublas_dots": counted
// once however many of them a run chooses).
#pragma once

#include <cublas_v2.h>

#include <climits>
#include <map>
#include <stdexcept>
#include <string>

#include "poisson/poisson_ops.cuh"

namespace nsb {

inline void cublas_check(cublasStatus_t s, const char* who, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(who) + ": " + what + " failed (cuBLAS status " + std::to_string(int(s)) + ")");
}

// The handle (device pointer mode) and two compact vectors of `capacity` doubles each.
struct CublasDots {
  cublasHandle_t handle = nullptr;
  double* vectors = nullptr;  // x, then y
  std::size_t capacity = 0;
  double* x() const { return vectors; }
  double* y() const { return vectors + capacity; }
};
inline CublasDots& cublas_dots_workspace(std::size_t points, const char* who) {
  if (points > std::size_t(INT_MAX)) throw std::runtime_error(std::string(who) + ": more than 2^31 interior points");
  int device = 0;
  NSB_CUDA(cudaGetDevice(&device));
  thread_local std::map<int, CublasDots> by_device;
  CublasDots& w = by_device[device];
  if (!w.handle) {
    cublas_check(cublasCreate(&w.handle), who, "cublasCreate");
    cublas_check(cublasSetPointerMode(w.handle, CUBLAS_POINTER_MODE_DEVICE), who, "cublasSetPointerMode");
  }
  if (w.capacity < points) {
    if (w.vectors) NSB_CUDA(cudaFree(w.vectors));
    NSB_CUDA(cudaMalloc(&w.vectors, 2 * points * sizeof(double)));
    w.capacity = points;
  }
  return w;
}

// An op's point writes, and its factors at the point's compact number (x fastest) in x and y.
template <class Op>
struct CompactFactorsOp {
  Op op;
  double* x;
  double* y;
  Grid g;
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const std::size_t m = std::size_t(i - 1) + std::size_t(g.nx) * (std::size_t(j - 1) + std::size_t(g.ny) * std::size_t(k - 1));
    const Pair f = op.factors(i, j, k, n);
    x[m] = f.a;
    y[m] = f.b;
    return {};
  }
};

// The walk of op over c's interior (its writes), its factors into the compact vectors; returns the
// workspace, its handle on c's stream, for cublas_dot.
template <class T, class Op>
CublasDots& cublas_compact_factors(const PoissonCall<T>& c, const Op& op, const char* who) {
  CublasDots& w = cublas_dots_workspace(c.grid.interior_points(), who);
  poisson_launch(c, CompactFactorsOp<Op>{op, w.x(), w.y(), c.grid}, who);
  cublas_check(cublasSetStream(w.handle, stream_of(c.exec)), who, "cublasSetStream");
  return w;
}

// *out = a . b over c's interior points (a, b: compact vectors of the workspace); no host wait.
template <class T>
void cublas_dot(const PoissonCall<T>& c, CublasDots& w, const double* a, const double* b, double* out, const char* who) {
  cublas_check(cublasDdot(w.handle, int(c.grid.interior_points()), a, 1, b, 1, out), who, "cublasDdot");
}

}  // namespace nsb
