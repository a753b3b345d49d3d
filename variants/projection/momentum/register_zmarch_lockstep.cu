// momentum/register_zmarch_lockstep: register_zmarch with a block barrier after every level, so the
// block's warps walk z together.
//
// Why: ncu on register_zmarch at 512^3 (docs/performance-notes.md, experiment 19) shows L2 throughput
// at 80-87% while DRAM runs at 51-60%: the stencil's rows j-1 and j+1, which the neighbouring warps of
// the same block load too, are fetched from L2 again and again (L1 hit rate 55-62%). Warps of a block
// drift apart along z without a barrier, so by the time a warp needs its neighbour row, the neighbour
// loaded it levels ago and L1 has evicted it. In lockstep the block's working set is three planes of
// its (by + 2) rows, which L1 holds.
// Measured (experiment 21): the L1 hit rate barely moves (62% -> 64%), float within the run-to-run
// spread of register_zmarch, double slower (84 registers). The drift is not what costs L2 traffic.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class Op>
struct InLockstep : RecomputeEveryFace<Op> {
  static constexpr bool kLockstep = true;
};

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch_lockstep",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"sync", "every_level"}},
    .tunings = {zmarch_tuning<InLockstep>("bx64_by4_sz16"), zmarch_tuning<InLockstep>("bx32_by8_sz16"),
                zmarch_tuning<InLockstep>("bx64_by8_sz16"), zmarch_tuning<InLockstep>("bx128_by4_sz16"),
                zmarch_tuning<InLockstep>("bx32_by16_sz16"), zmarch_tuning<InLockstep>("bx64_by4_sz32"),
                zmarch_tuning<InLockstep>("bx64_by8_sz32"), zmarch_tuning<InLockstep>("bx128_by4_sz32"),
                zmarch_tuning<InLockstep>("bx32_by4_sz16"), zmarch_tuning<InLockstep, 3>("bx32_by8_sz16_mb3"),
                zmarch_tuning<InLockstep, 3>("bx64_by4_sz32_mb3")},
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
