// poisson/apply_dot/csr_cusparse: q = L p by cuSPARSE's SpMV on the operator stored as a CSR matrix (Liu
// et al.'s form), then q scattered into the padded layout with p.q summed (per-block partials added in a
// fixed order). The matrix is poisson_csr_padded (csr.hpp): rows the interior points, columns the padded
// grid's with the ghosts, so the product reads p's ghosts as they stand, as the matrix-free variants do
// (a cut face's exchanged ghosts, verify's random ones). Built on the host and uploaded once per grid and
// precision, kept per host thread and device (ranks run on threads), its size printed when uploaded and
// declared for the memory check (PoissonKernelWorkspaceRegistrar). Bytes a point: the matrix (7 values, 7
// column indices, a row offset), p, SpMV's compact y written and read back, q written: in double
// 7 x 12 + 4 + 4 x 8 = 120 against the fused variants' 16, which is what the matrix-free operator saves.
#include <cstdio>
#include <map>

#include "device.hpp"
#include "poisson/csr.hpp"
#include "poisson/poisson_ops.cuh"
#include "tridiag/cusparse_call.cuh"

namespace nsb {
namespace {

template <class T>
struct ScatterDotOp {  // q at an interior point from SpMV's compact y (x fastest); p q
  const T* y;
  const T* p;
  T* q;
  Grid g;
  __device__ Pair operator()(int i, int j, int k, std::size_t n) const {
    const T v = y[std::size_t(i - 1) + std::size_t(g.nx) * (std::size_t(j - 1) + std::size_t(g.ny) * std::size_t(k - 1))];
    q[n] = v;
    return {double(p[n]) * double(v), 0};
  }
};

template <class T>
constexpr cudaDataType kValueType = sizeof(T) == 4 ? CUDA_R_32F : CUDA_R_64F;

// The matrix, SpMV's output and work buffer, and their descriptors, on one device for one grid.
template <class T>
struct CsrOperator {
  Grid grid;
  PoissonCoef<T> coef{};
  void* memory[4] = {};  // row offsets, columns, values, y
  void* buffer = nullptr;
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  bool holds(const Grid& g, const PoissonCoef<T>& c) const {
    return a && grid.nx == g.nx && grid.ny == g.ny && grid.nz == g.nz && coef.cx == c.cx && coef.cy == c.cy &&
           coef.cz == c.cz && coef.diag == c.diag;
  }
  void release() {  // errors ignored: also runs at thread exit, possibly after the context is gone
    if (a) cusparseDestroySpMat(a), cusparseDestroyDnVec(x), cusparseDestroyDnVec(y);
    for (void*& m : memory) cudaFree(m), m = nullptr;
    cudaFree(buffer), buffer = nullptr, a = nullptr;
  }
  ~CsrOperator() { release(); }
};

// device::copy_to_device waits for the copy to land: a plain cudaMemcpy from pageable memory can return
// before its DMA has, and SpMV runs on a non-blocking stream (seen as rare verify failures on the H200).
template <class T>
void* upload(const void* host, std::size_t bytes) {
  void* d = nullptr;
  NSB_CUDA(cudaMalloc(&d, bytes));
  device::copy_to_device(d, host, bytes);
  return d;
}

// This thread's operator on the current device for the call's grid, built and uploaded where it is not.
template <class T>
CsrOperator<T>& csr_operator(const PoissonCall<T>& c, cusparseHandle_t h) {
  int device = 0;
  NSB_CUDA(cudaGetDevice(&device));
  thread_local std::map<int, CsrOperator<T>> by_device;
  CsrOperator<T>& op = by_device[device];
  if (op.holds(c.grid, c.coef)) return op;
  op.release();
  const PoissonCsr<T> m = poisson_csr_padded<T>(c.grid, c.coef);
  op.grid = c.grid, op.coef = c.coef;
  op.memory[0] = upload<T>(m.row_start.data(), m.row_start.size() * sizeof(int));
  op.memory[1] = upload<T>(m.column.data(), m.column.size() * sizeof(int));
  op.memory[2] = upload<T>(m.value.data(), m.value.size() * sizeof(T));
  NSB_CUDA(cudaMalloc(&op.memory[3], std::size_t(m.rows) * sizeof(T)));
  cusparse_check(cusparseCreateCsr(&op.a, m.rows, int64_t(c.grid.padded_points()), int64_t(m.column.size()), op.memory[0],
                                   op.memory[1], op.memory[2], CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                   CUSPARSE_INDEX_BASE_ZERO, kValueType<T>),
                 "cusparseCreateCsr");
  cusparse_check(cusparseCreateDnVec(&op.x, int64_t(c.grid.padded_points()), const_cast<T*>(c.p), kValueType<T>),
                 "cusparseCreateDnVec");
  cusparse_check(cusparseCreateDnVec(&op.y, m.rows, op.memory[3], kValueType<T>), "cusparseCreateDnVec");
  const T one = 1, zero = 0;
  std::size_t bytes = 0;
  cusparse_check(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, op.a, op.x, &zero, op.y, kValueType<T>,
                                         CUSPARSE_SPMV_CSR_ALG1, &bytes),
                 "cusparseSpMV_bufferSize");
  NSB_CUDA(cudaMalloc(&op.buffer, bytes > 0 ? bytes : 1));
  std::fprintf(stderr, "poisson/apply_dot/csr_cusparse: L on %dx%dx%d as CSR (%d rows, %zu entries) uploaded: %.1f MB "
               "(values %.1f MB), SpMV buffer %zu bytes\n", c.grid.nx, c.grid.ny, c.grid.nz, m.rows, m.column.size(),
               double(poisson_csr_padded_bytes(c.grid, int(sizeof(T)))) / 1e6, double(m.value.size() * sizeof(T)) / 1e6, bytes);
  return op;
}

template <class T>
void run(const PoissonCall<T>& c) {
  if (c.grid.interior_points() == 0) return void(zeroed(c.out, 1, c));
  const cusparseHandle_t h = cusparse_handle(stream_of(c.exec));
  CsrOperator<T>& op = csr_operator(c, h);
  cusparse_check(cusparseDnVecSetValues(op.x, const_cast<T*>(c.p)), "cusparseDnVecSetValues");
  const T one = 1, zero = 0;
  cusparse_check(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, op.a, op.x, &zero, op.y, kValueType<T>,
                              CUSPARSE_SPMV_CSR_ALG1, op.buffer),
                 "cusparseSpMV");
  poisson_launch_buffer<1>(c, ScatterDotOp<T>{static_cast<const T*>(op.memory[3]), c.p, c.q, c.grid},
                           "poisson/apply_dot/csr_cusparse");
}

const Registrar reg{Variant{
    .stage = "poisson/apply_dot",
    .name = "csr_cusparse",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "buffer"}, {"fusion", "separate"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis: cuSPARSE SpMV on the CSR matrix (Liu's operator) against the matrix-free stencil",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};
// The matrix (7 values and column indices a row, a row offset) and SpMV's compact output.
const PoissonKernelWorkspaceRegistrar reg_workspace{{"poisson/apply_dot", "csr_cusparse", {7 * (4 + 4) + 4 + 4, 7 * (8 + 4) + 4 + 8}, ""}};

}  // namespace
}  // namespace nsb
