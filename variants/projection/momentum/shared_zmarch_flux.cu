// momentum/shared_zmarch_flux: shared_zmarch_async's ring (cp.async copies, a block barrier a level,
// shared_ring.cuh) with each component's z faces carried from one level to the next, as
// register_zmarch_flux does for the register walk: the lower z face of level k is the upper z face of
// level k-1, so a point computes 5 faces a component instead of 6 and reads no value of plane k-1.
//
// Why: after the ring's addresses became constants (docs/performance-notes.md, experiment 28) the float
// walk issues on ~73% of its cycles: fewer instructions a point is what float needs. Double is not
// issue-bound there, and the six (twelve in double) carried values cost registers.
// Measured (experiment 32, three processes each, H200, 512^3): 124 FP32 instructions a level instead of
// 133.5; float Euler 58.4% of the copy bandwidth (the plain ring 58.0%), double Euler 72.8% with pf2
// (bx64_by4_sz32_pf2), the best double Euler variant on the H200.
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
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
