// poisson/mg_residual/global_zloop: r = f - L p, a thread a point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgResidualCall<T>& c) {
  launch_zloop_2d(mg_residual_op(c), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_residual",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgResidualOp<float>, MgResidualOp<double>>(),
}};

}  // namespace
}  // namespace nsb
