// momentum/shared_zmarch_flux: shared_zmarch_async's ring (shared_ring.cuh, RingAsyncCarryZ) with each
// component's z faces carried from one level to the next, as register_zmarch_flux does for the register
// walk: a point computes 5 faces a component instead of 6 and reads no value of plane k-1. Why: the
// float ring is issue-bound (docs/performance-notes.md, 32): it needs fewer instructions a point.
#include "projection/momentum/shared_ring.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch_flux",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "cp_async"},
             {"faces", "carried"}},
    .tunings = {ring_tuning<RingAsyncCarryZ, 64, 4>("bx64_by4_sz32"),
                ring_tuning<RingAsyncCarryZ, 64, 4>("bx64_by4_sz16"),
                ring_tuning<RingAsyncCarryZ, 64, 4>("bx64_by4_sz64"),
                ring_tuning<RingAsyncCarryZ, 128, 4>("bx128_by4_sz32"),
                ring_tuning<RingAsyncCarryZ, 64, 4, 1, 4>("bx64_by4_sz32_mb4"),
                ring_tuning<RingAsyncCarryZ, 64, 4, 2>("bx64_by4_sz32_pf2")},
    .status = "best on H200 (double Euler 72.8% of copy, 512^3, bx64_by4_sz32_pf2, experiment 32)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
