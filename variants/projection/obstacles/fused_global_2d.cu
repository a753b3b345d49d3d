// obstacles/fused_global_2d: the four thesis kernels as one (obstacle_final: each point's result from
// its neighbourhood of the unmodified input), into the workspace, then copied back into u* v* w*.
// One pass reading u* v* w* and the flags and writing three fields, plus three device copies (a
// kernel cannot write in place: a point's neighbours must still read its old value). Whole grid.
#include "device.hpp"
#include "projection/obstacles/obstacle_passes.cuh"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_padded_2d(ObstacleFusedWhole<T>{ObstacleFusedPoint<T>(c)}, c);
  const std::size_t bytes = c.grid.padded_points() * sizeof(T);
  device::copy_device(c.f.us, c.f.ut, bytes, c.exec.stream);
  device::copy_device(c.f.vs, c.f.vt, bytes, c.exec.stream);
  device::copy_device(c.f.ws, c.f.wt, bytes, c.exec.stream);
}

const Registrar reg{Variant{
    .stage = "projection/obstacles",
    .name = "fused_global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"passes", "fused"}, {"points", "all"}},
    .tunings = thesis_and_modern_shapes(4),
    .status = "study axis: the four thesis kernels fused into one whole-grid pass (plus a copy back)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"obstacles_fused<float>", (const void*)&padded_2d_kernel<ObstacleFusedWhole<float>>, 4},
                {"obstacles_fused<double>", (const void*)&padded_2d_kernel<ObstacleFusedWhole<double>>, 8}},
}};

}  // namespace
}  // namespace nsb
