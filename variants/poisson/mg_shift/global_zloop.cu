// poisson/mg_shift/global_zloop: out = scale in - scale mean(in), the mean read from the device sums, a thread a point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgShiftCall<T>& c) {
  launch_zloop_2d((MgShiftOp<T>{c.in, c.out, c.scale, c.sums, double(c.grid.interior_points())}), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_shift",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgShiftOp<float>, MgShiftOp<double>>(),
}};

}  // namespace
}  // namespace nsb
