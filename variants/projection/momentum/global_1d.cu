// momentum/global_1d: global memory, one thread per point, flat 1D blocks.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  with_momentum_point(c, [&](const auto& op) { launch_flat_1d(op, c); });
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = flat_sizes(),
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = flat_kernels<MomentumPoint<float, false>, MomentumPoint<double, false>>(),
}};

}  // namespace
}  // namespace nsb
