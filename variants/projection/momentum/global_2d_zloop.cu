// momentum/global_2d_zloop: global memory, thesis 2D blocks each walking SIZE_Z levels (C.3.1).
#include "common/traversals.cuh"
#include "projection/momentum/eddy_kernels.hpp"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  with_eddy_momentum_point(c, [&](const auto& op) { launch_zloop_2d(op, c); });
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "global_2d_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"viscosity", "eddy"}},
    .tunings = zloop_shapes(),
    .status = "thesis baseline (Fig. 4.5 'global', App. C.3.1); the stage kind's default GPU variant",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = with_eddy_kernels(zloop_kernels<MomentumPoint<float, false>, MomentumPoint<double, false>>(),
                                 zloop_kernels<EddyMomentumPoint<float, false>, EddyMomentumPoint<double, false>>()),
}};

}  // namespace
}  // namespace nsb
