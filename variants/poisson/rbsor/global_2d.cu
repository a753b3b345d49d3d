// poisson/rbsor/global_2d: each colour a pass of threads over the points of that colour (a thread's x
// index counts the colour's points of a row, so its column alternates with the level), every value
// from global memory; the ghost layer after each colour.
#include "poisson/poisson_ops.cuh"
#include "poisson/rbsor/rbsor_tunings.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void rbsor_global_kernel(PoissonArgs<T> c, int colour, int sz) {
  const int ih = int(blockIdx.x * blockDim.x + threadIdx.x), j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (j > c.grid.ny) return;
  const int k0 = 1 + int(blockIdx.z) * sz, k1 = min(k0 + sz, c.grid.nz + 1);
  for (int k = k0; k < k1; ++k) {
    const int i = 1 + ((colour + 1 + j + k) & 1) + 2 * ih;  // (i + j + k) & 1 == colour
    if (i > c.grid.nx) continue;
    const std::size_t n = c.grid.idx(i, j, k);
    c.x[n] = rbsor_point(c, i, j, k, n);
  }
}

template <class T>
void run(const PoissonCall<T>& c) {
  const PoissonWalk w = poisson_walk(c, (c.grid.nx + 1) / 2, "poisson/rbsor/global_2d");
  for (int colour = 0; colour < 2; ++colour) {
    if (!w.empty()) {
      rbsor_global_kernel<<<w.grid, w.block, 0, stream_of(c.exec)>>>(PoissonArgs<T>(c), colour, w.sz);
      NSB_LAUNCHED("rbsor_global_kernel");
    }
    poisson_launch_faces(c, c.x);
  }
}

const Registrar reg{Variant{
    .stage = "poisson/rbsor",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = rbsor_tunings(),
    .status = "global-memory red-black passes",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"rbsor_global_kernel<float>", (const void*)&rbsor_global_kernel<float>, 4},
                {"rbsor_global_kernel<double>", (const void*)&rbsor_global_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
