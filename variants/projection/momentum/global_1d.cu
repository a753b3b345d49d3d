// momentum/global_1d: global memory, one thread a point, flat 1D blocks: the plain mapping, neighbour
// reuse left to L1 and L2; the block-shape axis against the thesis's 2D blocks.
#include "common/traversals.cuh"
#include "projection/momentum/eddy_kernels.hpp"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  with_eddy_momentum_point(c, [&](const auto& op) { launch_flat_1d(op, c); });
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"viscosity", "eddy"}},
    .tunings = flat_sizes(),
    .status = "study axis: flat 1D blocks against the thesis's 2D ones (2D took 0.62-0.88x the time for the "
              "stencils; performance-notes: Fig. 4.4 on an H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = with_eddy_kernels(flat_kernels<MomentumPoint<float, false>, MomentumPoint<double, false>>(),
                                 flat_kernels<EddyMomentumPoint<float, false>, EddyMomentumPoint<double, false>>()),
}};

}  // namespace
}  // namespace nsb
