// wave/step/global_2d: one thread a point in 2D blocks over the plane, every value of u read from
// global memory (neighbours shared between threads only through the caches).
#include "wave/step/plane.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void global_2d_kernel(WaveArgs<T> a) {
  int i, k;
  if (!plane_point(a, i, k)) return;
  const std::size_t n = wave_node(a.g, i, k);
  a.u_next[n] = wave_point(point_at(a.u, a.g, n), read_only(a.u_prev + n), a.rho2);
}

template <class T>
void run(const WaveCall<T>& c) {
  const PlaneBlocks b = plane_blocks(c, "wave/step/global_2d");
  if (b.empty()) return;
  global_2d_kernel<<<b.grid, b.block, 0, stream_of(c.exec)>>>(wave_args(c));
  NSB_LAUNCHED("global_2d_kernel");
}

const Registrar reg{Variant{
    .stage = "wave/step",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = wave_block_shapes(),
    .status = "global-memory baseline",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"global_2d_kernel<float>", (const void*)&global_2d_kernel<float>, 4},
                {"global_2d_kernel<double>", (const void*)&global_2d_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
