// momentum/register_zmarch: the thesis's 2D blocks walking z with the values the next level needs
// again kept in registers (zmarch_walk.cuh): 17 loads a point instead of 27. Momentum is bound by
// issued instructions, not bytes (docs/performance-notes.md), and loads with their address arithmetic
// are a large share of them. Every point computes all six faces of each component.
#include "momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zmarch<RecomputeEveryFace>(c, "momentum/register_zmarch");
}

const Registrar reg{Variant{
    .stage = StageKind::momentum,
    .name = "register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = zmarch_tunings(),
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zmarch_kernel_refs<RecomputeEveryFace>(),
}};

}  // namespace
}  // namespace nsb
