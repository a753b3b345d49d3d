// poisson/mg_rbgs/global_colour_packed: one colour of red-black Gauss-Seidel with threads on that
// colour's points only: thread ii of a row takes i = 2 ii + 1 or 2 ii + 2 (whichever has the colour),
// so a warp covers 64 consecutive cells of the row and no thread idles (global_zloop launches a thread
// for every point and lets half of them return). The bytes moved are the same: a colour's reads and
// writes still touch every sector of the interleaved row (multigrid_call.hpp, mg_rbgs_model).
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void rbgs_colour_packed_kernel(MgRbgsOp<T> op, Grid g, int k_begin, int k_end, int sz) {
  const int ii = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  for (int k = k0; k < k1; ++k) {
    const int i = 1 + ((1 + j + k + op.colour) & 1) + 2 * ii;  // (i + j + k) & 1 == colour
    if (i <= g.nx) op(i, j, k, g.idx(i, j, k));
  }
}

template <class T>
void run(const MgRbgsCall<T>& c) {
  ZWalk w = z_walk(c, "poisson/mg_rbgs/global_colour_packed");
  if (w.empty()) return;
  w.grid.x = ceil_div((c.grid.nx + 1) / 2, c.tuning.bx);
  rbgs_colour_packed_kernel<<<w.grid, w.block, 0, stream_of(c.exec)>>>(mg_rbgs_op(c), c.grid, c.zr.k_begin, c.zr.k_end, w.sz);
  NSB_LAUNCHED("rbgs_colour_packed_kernel");
}

const Registrar reg{Variant{
    .stage = "poisson/mg_rbgs",
    .name = "global_colour_packed",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "colour_packed"}},
    .tunings = mg_zloop_tunings(),
    .status = "study axis: threads on one colour only (vs global_zloop's idle half)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"rbgs_colour_packed_kernel<float>", (const void*)&rbgs_colour_packed_kernel<float>, 4},
                {"rbgs_colour_packed_kernel<double>", (const void*)&rbgs_colour_packed_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
