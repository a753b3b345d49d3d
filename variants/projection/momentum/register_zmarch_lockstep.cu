// momentum/register_zmarch_lockstep: register_zmarch with a block barrier after every level, so the
// block's warps walk z together. Why: register_zmarch refetches its neighbour rows from L2 (experiment
// 19); if warps drifting apart along z lose the rows their neighbours loaded from L1, walking in
// lockstep keeps the block's three planes of (by + 2) rows in L1.
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
    .status = "negative: the L1 hit rate barely moves (62.3% -> 63.9%); drift between warps is not what costs L2 "
              "traffic (experiment 21)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
