// momentum/register_zmarch_ahead: register_zmarch loading each level's new values (the column's plane
// k+1 and four neighbours, zmarch_walk.cuh) during the level before, into registers. Why: the double
// walk's warps stall on global loads (experiment 19): it uses a level's new values as soon as it loads
// them; issued a level early, they arrive while the level before is computed (7 registers a value size).
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
    .status = "negative: fewer load stalls but 84 registers; double 55.6% against 62.5% (experiment 23)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
