// streamvort/boundary/global_1d: one thread a xi column writes the wall and far-field vorticity of its
// column (a 1D block over the nx columns; nx values a step, so its cost is the launch).
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

template <class T>
__global__ void boundary_kernel(BoundaryOp<T> op) {
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  if (i <= op.g.nx) boundary_column(op, i);
}

template <class T>
void run_boundary(const BoundaryCall<T>& c) {
  check_block(c.tuning.bx, "streamvort/boundary/global_1d");
  if (c.grid.nx < 1) return;
  boundary_kernel<<<ceil_div(c.grid.nx, c.tuning.bx), c.tuning.bx, 0, stream_of(c.exec)>>>(BoundaryOp<T>::of(c));
  NSB_LAUNCHED("boundary_kernel");
}

const Registrar reg{Variant{
    .stage = "streamvort/boundary",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = {parse_tuning("b128"), parse_tuning("b256")},
    .status = "the only GPU boundary variant (both methods use it)",
    .run_float = &run_boundary<float>,
    .run_double = &run_boundary<double>,
    .kernels = {{"boundary_kernel<float>", (const void*)&boundary_kernel<float>, 4},
                {"boundary_kernel<double>", (const void*)&boundary_kernel<double>, 8}},
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
