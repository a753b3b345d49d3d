// momentum/shared_zmarch_pipelined: shared_zmarch's 2.5D walk (shared_ring.cuh, RingThroughRegisters)
// with the global loads of plane k+2 issued into registers before the compute of level k and stored
// into the ring after it. Why: the register walks refetch their neighbour rows from L2 and wait on
// loads (docs/performance-notes.md, 19); the ring reads each value from L2 once per block, and here
// its wait for the next plane overlaps the level before.
#include "projection/momentum/shared_ring.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch_pipelined",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "registers"}},
    .tunings = ring_one_plane_tunings<RingThroughRegisters>(),
    .status = "study axis: the ring's next plane in flight through registers (experiment 24: double Euler 64.3% of "
              "copy, 512^3, H200); the copies' registers cost it against shared_zmarch_async",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
