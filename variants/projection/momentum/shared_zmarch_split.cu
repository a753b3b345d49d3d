// momentum/shared_zmarch_split: shared_zmarch_async without the block barrier every level: each slot of
// the ring has a `ready` mbarrier (cp.async arrives on it when a thread's copies have landed) and a
// `consumed` one (every thread arrives after the last level that reads the plane), and a thread waits
// only for the planes it reads and the slot it refills (shared_ring.cuh, Split). Five slots let warps
// drift two levels apart.
//
// Why: ncu of shared_zmarch_async capped at 64 registers (docs/performance-notes.md, experiment 24)
// has warps waiting ~3 cycles an issued instruction at the per-level barrier.
// Measured (experiments 27, 28): double Euler 68.2-69.9% of the copy bandwidth at 512^3 over five
// processes (bx64_by4_sz32) in session 5; with the ring's slots constants (session 6) 72.2-72.6% over
// three processes on an H200, about as fast as the barrier version now that its barrier waits less
// than its copies (experiment 30). AB2 66.0% (the barrier version 68.3%, 73.2% at 128x4).
#include "projection/momentum/shared_ring.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch_split",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "cp_async"},
             {"sync", "mbarrier"}},
    .tunings = {ring_tuning<RingAsyncSplit, 64, 4>("bx64_by4_sz32"),
                ring_tuning<RingAsyncSplit, 64, 4>("bx64_by4_sz64"),
                ring_tuning<RingAsyncSplit, 64, 4, 1, 4>("bx64_by4_sz32_mb4"),
                ring_tuning<RingAsyncSplit, 64, 4, 1, 4>("bx64_by4_sz16_mb4"),
                ring_tuning<RingAsyncSplit, 64, 4, 1, 4>("bx64_by4_sz64_mb4"),
                ring_tuning<RingAsyncSplit, 32, 8>("bx32_by8_sz32"),
                ring_tuning<RingAsyncSplit, 32, 8>("bx32_by8_sz64"),
                ring_tuning<RingAsyncSplit, 64, 4, 2>("bx64_by4_sz32_pf2"),
                ring_tuning<RingAsyncSplit, 64, 4, 2>("bx64_by4_sz64_pf2"),
                ring_tuning<RingAsyncSplit, 64, 4, 3>("bx64_by4_sz32_pf3"),
                ring_tuning<RingAsyncSplit, 64, 4, 3>("bx64_by4_sz64_pf3")},
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
