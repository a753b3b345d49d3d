// momentum/shared_zmarch_pipelined: shared_zmarch's 2.5D walk (shared_ring.cuh) with the global loads
// of plane k+2 issued into registers before the compute of level k and stored into the ring after it.
//
// Why: ncu at 512^3 (docs/performance-notes.md, experiment 19) shows the register walks with L2
// throughput at 80-90% (DRAM 50-60%) and warps waiting on loads: the rows j-1 and j+1 and the
// x-neighbours come from L2 again for every warp that reads them. A ring in shared memory reads each
// value from L2 once per block ((bx+2)(by+2)/(bx by) of the interior); shared_zmarch does that too but
// loads a plane and waits for it before every level. Here the wait overlaps the level before.
// Measured: double Euler 63.8% of the copy bandwidth at 512^3 on an H200 (bx64_by4_sz32, session 6,
// call5); the copies' registers cost it against shared_zmarch_async (docs/performance-notes.md, 24).
#include "projection/momentum/shared_ring.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch_pipelined",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "registers"}},
    .tunings = ring_one_plane_tunings<RingThroughRegisters>(),
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
