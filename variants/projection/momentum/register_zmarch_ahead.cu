// momentum/register_zmarch_ahead: register_zmarch loading each level's new values (the column's plane
// k+1 and four neighbours, zmarch_walk.cuh) during the level before, into registers.
//
// Why: ncu on register_zmarch at 512^3 double (docs/performance-notes.md, experiment 19) has warps
// stalled on global loads for 73% of their cycles, with 0.7 eligible warps a scheduler: the walk loads
// a level's new values and uses them at once, and the first touch of a new plane comes from DRAM.
// Issued a level early, they arrive while the level before is computed. Costs 7 registers a value
// size (14 in double).
// Measured (experiment 23): the load stalls shrink (11.0 -> 7.4 cycles an instruction) but 84 registers
// cost a third of the warps; double 55.6% against 62.5%.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class Op>
struct LoadingAhead : RecomputeEveryFace<Op> {
  static constexpr bool kLoadAhead = true;
};

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch_ahead",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "registers"}},
    .tunings = zmarch_tunings<LoadingAhead>(),
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
