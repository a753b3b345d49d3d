// momentum/shared_zmarch_async: shared_zmarch_pipelined with the plane copies as cp.async (global to
// shared memory without registers, shared_ring.cuh).
//
// Why: ncu of shared_zmarch_pipelined in double (docs/performance-notes.md, experiment 24) still has
// warps waiting on global loads for 45% of their stalls and 82 registers (31% occupancy): the six
// values in flight hold 12 registers, and the compiler may move their loads down towards the stores
// that need them. An asynchronous copy holds no register and cannot be moved next to a use.
// Measured (experiments 24, 28-33): session 5, double 66-69% (Euler) and 67.3% (AB2) of the copy
// bandwidth at 512^3 with bx64_by4_sz32_mb4; session 6 (slots and coefficients constants), three
// processes each on an H200: double AB2 73.2% (bx128_by4_sz32_mb2, the best AB2 variant), Euler 71.8%
// (bx64_by4_sz32_pf3), float AB2 61.7%, Euler 58.0%; on an H100 double Euler 82.0%
// (bx128_by4_sz32_pf3), float Euler 71.1% (bx128_by4_sz32_pf2). shared_zmarch_split drops the barrier
// (experiment 27), shared_zmarch_flux carries the z faces (32).
#include "projection/momentum/shared_ring.cuh"

namespace nsb {
namespace {

// The barrier rings' one-plane tunings, then copies two or three planes ahead and 128x4 blocks capped
// at 64 registers (two blocks an SM).
std::vector<Tuning> async_tunings() {
  std::vector<Tuning> t = ring_one_plane_tunings<RingAsync>();
  t.insert(t.end(), {ring_tuning<RingAsync, 64, 4, 2>("bx64_by4_sz32_pf2"),
                     ring_tuning<RingAsync, 64, 4, 2, 4>("bx64_by4_sz32_pf2_mb4"),
                     ring_tuning<RingAsync, 64, 4, 2>("bx64_by4_sz64_pf2"),
                     ring_tuning<RingAsync, 64, 4, 2, 4>("bx64_by4_sz64_pf2_mb4"),
                     ring_tuning<RingAsync, 128, 4, 2>("bx128_by4_sz32_pf2"),
                     ring_tuning<RingAsync, 64, 4, 3>("bx64_by4_sz32_pf3"),
                     ring_tuning<RingAsync, 64, 4, 3>("bx64_by4_sz64_pf3"),
                     ring_tuning<RingAsync, 128, 4, 3>("bx128_by4_sz32_pf3"),
                     ring_tuning<RingAsync, 128, 4, 1, 2>("bx128_by4_sz32_mb2"),
                     ring_tuning<RingAsync, 128, 4, 2, 2>("bx128_by4_sz32_pf2_mb2"),
                     ring_tuning<RingAsync, 128, 4, 3, 2>("bx128_by4_sz32_pf3_mb2")});
  return t;
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_zmarch_async",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"pipelining", "cp_async"}},
    .tunings = async_tunings(),
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
