// momentum/global_2d_x2: global-memory momentum walking z in 2D blocks, two columns per thread (bx
// apart): more independent work per thread to hide the latency of its ~27 neighbour loads.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  with_momentum_point(c, [&](const auto& op) { launch_zloop_2d_x2(op, c); });
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "global_2d_x2",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"points_per_thread", "2"}},
    .tunings = {parse_tuning("bx32_by4_sz16"), parse_tuning("bx64_by4_sz16"), parse_tuning("bx32_by8_sz8"),
                parse_tuning("bx64_by2_sz32"), parse_tuning("bx32_by4_sz2")},
    .status = "study axis: two columns a thread (experiment 6: float AB2 42.4% -> 50.2% of copy, double slower)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_x2_kernels<MomentumPoint<float, false>, MomentumPoint<double, false>>(),
}};

}  // namespace
}  // namespace nsb
