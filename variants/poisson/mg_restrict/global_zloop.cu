// poisson/mg_restrict/global_zloop: coarse f = average of the 8 fine residuals, a thread a coarse point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgRestrictCall<T>& c) {
  launch_zloop_2d((MgRestrictOp<T>{c.fine_r, c.coarse_f, c.fine}), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_restrict",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgRestrictOp<float>, MgRestrictOp<double>>(),
}};

}  // namespace
}  // namespace nsb
