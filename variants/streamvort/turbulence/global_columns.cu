// streamvort/turbulence/global_columns: Baldwin-Lomax with one thread a wall-normal column (a xi station), a 1D
// block over the nx columns. The column's two walks up eta are sequential in the thread; a warp's 32 threads
// read 32 neighbouring xi nodes of one row at each step, so every load is a coalesced row segment, and the
// column maxima (F_max, U_dif) need no reduction between threads. Parallelism is nx threads, so at
// 4096 x 4096 that is 4096 threads: latency-bound below a few thousand columns.
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

template <class T>
__global__ void baldwin_lomax_kernel(TurbulenceOp<T> op) {
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i <= op.g.nx) baldwin_lomax_column(op, i);
}

template <class T>
void run_columns(const TurbulenceCall<T>& c) {
  check_block(c.tuning.bx, "streamvort/turbulence/global_columns");
  if (c.grid.nx < 1 || c.grid.ny < 1) return;
  baldwin_lomax_kernel<<<ceil_div(c.grid.nx, c.tuning.bx), c.tuning.bx, 0, stream_of(c.exec)>>>(TurbulenceOp<T>::of(c));
  NSB_LAUNCHED("baldwin_lomax_kernel");
}

const Registrar reg{Variant{
    .stage = "streamvort/turbulence",
    .name = "global_columns",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = {parse_tuning("b128"), parse_tuning("b64"), parse_tuning("b256")},
    .status = "one thread a wall-normal column (the per-station searches of Baldwin-Lomax)",
    .run_float = &run_columns<float>,
    .run_double = &run_columns<double>,
    .kernels = {{"baldwin_lomax_kernel<float>", (const void*)&baldwin_lomax_kernel<float>, 4},
                {"baldwin_lomax_kernel<double>", (const void*)&baldwin_lomax_kernel<double>, 8}},
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
