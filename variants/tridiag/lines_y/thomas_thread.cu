// tridiag/lines_y/thomas_thread: Thomas, a thread a y line of an x-fastest field: a warp's 32 lines are
// neighbours in x, so every row it touches is one coalesced run (as interleaved systems), and the field
// needs no transpose to y-orientation first (the paper's local transpose before ADI-Y).
#include "tridiag/thread_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{thread_per_system_variant(
    "tridiag/lines_y", "baseline: coalesced along x, no transpose; c' through global memory")};

}  // namespace
}  // namespace nsb
