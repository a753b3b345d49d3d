// momentum/register_zmarch: the thesis's 2D blocks walking z with the values the next level needs
// again kept in registers (zmarch_walk.cuh): 17 loads a point instead of 27, to cut issued instructions
// (loads and their address arithmetic). Every point computes all six faces of each component.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = zmarch_tunings<RecomputeEveryFace>(),
    .status = "in the `best` recipe (the regression gate's); 17 loads a point instead of 27: float Euler 55.2% of "
              "copy at 512^3 on an H200 (experiment 12)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
