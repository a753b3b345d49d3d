// momentum/register_zmarch_prefetch: register_zmarch with each thread prefetching its column of u, v
// and w into L1 one level before the walk loads it.
//
// Why: ncu on register_zmarch at 512^3 (docs/performance-notes.md, experiment 19) shows L2 throughput
// at 80-87% while DRAM runs at 51-60%, with an L1 hit rate of 55-62%: the first loads of a new plane's
// sectors are the walk's own plane-(k+1) loads and, at the same moment, the x- and y-neighbour loads of
// the same sectors by this warp and the warps of rows j-1 and j+1; each misses and goes to L2. A
// prefetch a level earlier brings each sector into L1 once, so all of them hit. Holding the block's
// warps at the same level did not change the hit rate (register_zmarch_lockstep).
// Measured (experiment 22): the L1 hit rate falls (62% -> 54%); float slower, double within the spread.
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
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
