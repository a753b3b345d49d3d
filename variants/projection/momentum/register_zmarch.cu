// momentum/register_zmarch: the thesis's 2D blocks walking z with the values the next level needs
// again kept in registers (zmarch_walk.cuh): 17 loads a point instead of 27, to cut issued instructions
// (loads and their address arithmetic). Every point computes all six faces of each component. ncu
// found it issuing on two-thirds of the cycles in float and waiting on loads in double, with the
// neighbour rows refetched from L2 (docs/performance-notes.md, 19); the shared-memory rings
// (shared_ring.cuh) read each value from L2 once per block.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = zmarch_tunings<RecomputeEveryFace>(),
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
