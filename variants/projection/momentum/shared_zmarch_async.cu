// momentum/shared_zmarch_async: shared_zmarch_pipelined with the plane copies as cp.async (global to
// shared memory without registers; shared_ring.cuh, RingAsync). Why: the pipelined ring still waits
// on its loads and holds the values in flight in registers, whose loads the compiler may move down to
// the stores that need them (docs/performance-notes.md, 24); an asynchronous copy holds no register
// and cannot be moved next to a use.
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
    .status = "best on H200 for double AB2 (73.2% of copy, 512^3, bx128_by4_sz32_mb2, experiment 33) and on H100 "
              "(double Euler 82.0%, bx128_by4_sz32_pf3; performance-notes: Session 6 on an H100)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
