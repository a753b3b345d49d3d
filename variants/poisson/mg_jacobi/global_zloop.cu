// poisson/mg_jacobi/global_zloop: one weighted Jacobi sweep (out = p + omega (GS value - p)), a thread a point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgJacobiCall<T>& c) {
  launch_zloop_2d(mg_jacobi_op(c), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_jacobi",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline: the weighted Jacobi smoother",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgJacobiOp<float>, MgJacobiOp<double>>(),
}};

}  // namespace
}  // namespace nsb
