// poisson/mg_rbgs/global_zloop: one colour of red-black Gauss-Seidel in place (threads of the other colour idle), a thread a point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgRbgsCall<T>& c) {
  launch_zloop_2d(mg_rbgs_op(c), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_rbgs",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline: the red-black Gauss-Seidel smoother (default)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgRbgsOp<float>, MgRbgsOp<double>>(),
}};

}  // namespace
}  // namespace nsb
