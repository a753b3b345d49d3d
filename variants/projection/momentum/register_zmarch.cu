// momentum/register_zmarch: the thesis's 2D blocks walking z with the values the next level needs
// again kept in registers (zmarch_walk.cuh): 17 loads a point instead of 27, to cut issued instructions
// (loads and their address arithmetic). Every point computes all six faces of each component. ncu
// found it issuing on two-thirds of the cycles in float and waiting on loads in double, with the
// neighbour rows refetched from L2 (docs/performance-notes.md, 19); the shared-memory rings
// (shared_ring.cuh) read each value from L2 once per block.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zmarch<RecomputeEveryFace>(c, "momentum/register_zmarch");
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
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
