// poisson/dot/library_cublas: cuBLAS's dot (cublasDdot in device pointer mode: the sum is written to the
// device scalar, the host does not wait) over the interior points. cuBLAS takes contiguous vectors while
// the family's arrays are padded (ghost rows between the interior's), and cublasSdot would sum float in
// float where the kind sums in double: so a gather pass first copies the interior of a and of b (ones
// where b is null) into two compact double vectors, which cublasDdot reads. Words a point: a and b read,
// two doubles written and read again, against the fused variants' 2: the price of a library dot on a
// padded layout, which is what this variant measures (CG's own vectors are padded: stage_call.hpp).
// The handle and the compact vectors are kept per host thread and device (ranks run on threads), grown
// to the largest grid seen and kept while the process lives (declared for the memory check:
// PoissonKernelWorkspaceRegistrar).
#include <cublas_v2.h>

#include <climits>
#include <map>
#include <stdexcept>
#include <string>

#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
struct GatherOp {  // the interior point's a and b, as doubles, at its compact number (x fastest)
  const T* a;
  const T* b;
  double* x;
  double* y;
  Grid g;
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const std::size_t m = std::size_t(i - 1) + std::size_t(g.nx) * (std::size_t(j - 1) + std::size_t(g.ny) * std::size_t(k - 1));
    x[m] = double(a[n]);
    y[m] = b ? double(b[n]) : 1.0;
    return {};
  }
};

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("poisson/dot/library_cublas: ") + what + " failed (cuBLAS status " +
                             std::to_string(int(s)) + ")");
}

struct Workspace {
  cublasHandle_t handle = nullptr;
  double* vectors = nullptr;  // x, then y, `capacity` doubles each
  std::size_t capacity = 0;
};
Workspace& workspace(std::size_t points) {
  if (points > std::size_t(INT_MAX)) throw std::runtime_error("poisson/dot/library_cublas: more than 2^31 interior points");
  int device = 0;
  NSB_CUDA(cudaGetDevice(&device));
  thread_local std::map<int, Workspace> by_device;
  Workspace& w = by_device[device];
  if (!w.handle) {
    check(cublasCreate(&w.handle), "cublasCreate");
    check(cublasSetPointerMode(w.handle, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  }
  if (w.capacity < points) {
    if (w.vectors) NSB_CUDA(cudaFree(w.vectors));
    NSB_CUDA(cudaMalloc(&w.vectors, 2 * points * sizeof(double)));
    w.capacity = points;
  }
  return w;
}

template <class T>
void run(const PoissonCall<T>& c) {
  const std::size_t points = c.grid.interior_points();
  Workspace& w = workspace(points);
  double* x = w.vectors;
  double* y = w.vectors + w.capacity;
  poisson_launch(c, GatherOp<T>{c.a, c.b, x, y, c.grid}, "poisson/dot/library_cublas");
  check(cublasSetStream(w.handle, stream_of(c.exec)), "cublasSetStream");
  check(cublasDdot(w.handle, int(points), x, 1, y, 1, c.out), "cublasDdot");
}

const Registrar reg{Variant{
    .stage = "poisson/dot",
    .name = "library_cublas",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis: cuBLAS Ddot (device pointer mode) after a gather of the padded interior into compact doubles",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};
const PoissonKernelWorkspaceRegistrar reg_workspace{{"poisson/dot", "library_cublas", {16, 16}}};  // two compact doubles

}  // namespace
}  // namespace nsb
