// momentum/register_zmarch_prefetch: register_zmarch with each thread prefetching its column of u, v
// and w into L1 one level before the walk loads it. Why: the first loads of a new plane's sectors (the
// walk's own and its neighbours' in the same and adjacent warps) all miss L1 at once and go to L2
// (experiment 19); a prefetch a level earlier brings each sector into L1 once, so all of them hit.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class Op>
struct PrefetchingAhead : RecomputeEveryFace<Op> {
  static constexpr int kPrefetch = 1;
};

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch_prefetch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"prefetch", "l1_one_level"}},
    .tunings = zmarch_tunings<PrefetchingAhead>(),
    .status = "negative: the L1 hit rate falls (to 54%) and float gets slower (experiment 22)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
