// momentum/shared_zmarch_split: shared_zmarch_async without the block barrier every level (shared_ring.cuh,
// RingAsyncSplit): each slot has a `ready` and a `consumed` mbarrier, and a thread waits only for the
// planes it reads and the slot it refills; one more slot lets warps drift apart. Why: the capped async
// ring's warps wait at the per-level barrier (docs/performance-notes.md, 24).
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
    .status = "study axis: mbarriers instead of a block barrier; double Euler 72.3% of copy (512^3, H200, "
              "bx64_by4_sz32; experiments 27, 28), about as fast as the barrier ring (experiment 30)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
