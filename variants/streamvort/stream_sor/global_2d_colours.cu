// streamvort/stream_sor/global_2d_colours: one four-colour SOR sweep (stage_call.hpp) as four launches, one a
// colour, each a 2D block of bx x by threads over that colour's nodes (every other node in xi and eta, so a
// warp's loads are stride-2 rows: half of each sector it fetches is the other colours'); values from global
// memory, the residual max by warp shuffles + one atomicMax a warp into a result cleared once a sweep.
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

template <class T>
__global__ void colour_kernel(StreamOp<T> op, ReduceTarget<T> r, int colour) {
  const int i = 1 + sor_colour_i(colour) + 2 * int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + sor_colour_j(colour) + 2 * int(blockIdx.y * blockDim.y + threadIdx.y);
  T res = T(0);
  if (i <= op.g.nx && j <= op.g.ny) {
    const std::size_t n = sv_node(op.g, i, j);
    res = op(i, j, n, global_stencil(op, n));
  }
  WarpAtomic::finish(res, r, int(threadIdx.x + blockDim.x * threadIdx.y), 0, static_cast<T*>(nullptr));
}

template <class T>
void run_colours(const StreamCall<T>& c) {
  check_block(c.tuning.bx * c.tuning.by, "streamvort/stream_sor/global_2d_colours");
  if (c.grid.nx < 1 || c.grid.ny < 1) return;
  const cudaStream_t s = stream_of(c.exec);
  const ReduceTarget<T> r = reduce_target(c.residual, c.exec);
  WarpAtomic::prepare(r, s);
  for (int colour = 0; colour < 4; ++colour) {
    const int ni = (c.grid.nx - sor_colour_i(colour) + 1) / 2, nj = (c.grid.ny - sor_colour_j(colour) + 1) / 2;
    if (ni < 1 || nj < 1) continue;
    const dim3 grid(ceil_div(ni, c.tuning.bx), ceil_div(nj, c.tuning.by)), block(c.tuning.bx, c.tuning.by);
    colour_kernel<<<grid, block, 0, s>>>(StreamOp<T>::of(c), r, colour);
    NSB_LAUNCHED("colour_kernel");
  }
}

const Registrar reg{Variant{
    .stage = "streamvort/stream_sor",
    .name = "global_2d_colours",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "warp_atomic"}, {"method", "regular"}},
    .tunings = tunings_2d({{32, 8}, {16, 16}, {32, 4}}, 0),
    .status = "SOR in four colours through the regular method's traversal (same sweep count as Jacobi)",
    .run_float = &run_colours<float>,
    .run_double = &run_colours<double>,
    .kernels = {{"colour_kernel<float>", (const void*)&colour_kernel<float>, 4},
                {"colour_kernel<double>", (const void*)&colour_kernel<double>, 8}},
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
