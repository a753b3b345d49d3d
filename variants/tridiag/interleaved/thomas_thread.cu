// tridiag/interleaved/thomas_thread: Thomas, a thread a system; unknown j of a warp's 32 systems is one
// coalesced run. The classic batched solver of ADI codes (and cuSPARSE's gtsvInterleavedBatch algo 0).
#include "tridiag/thread_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{thread_per_system_variant(
    "tridiag/interleaved", "baseline: coalesced rows, c' through global memory (9 words moved an unknown against 5 modelled)")};

}  // namespace
}  // namespace nsb
