// poisson/mg_prolong/global_zloop: fine e += trilinear interpolation of the coarse e, a thread a fine point in 2D blocks over x-y walking
// sz levels of z (variants/common/traversals.cuh), every value from global memory through the caches.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgProlongCall<T>& c) {
  launch_zloop_2d((MgProlongOp<T>{c.coarse_e, c.fine_e, c.coarse}), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_prolong",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgProlongOp<float>, MgProlongOp<double>>(),
}};

}  // namespace
}  // namespace nsb
