// tridiag/contiguous/thomas_thread: Thomas, a thread a system on contiguous systems: a warp touches 32
// rows n apart at each step (strided access; L1/L2 serve the neighbouring values of later rows).
#include "tridiag/thread_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{thread_per_system_variant(
    "tridiag/contiguous", "baseline: strided (uncoalesced) rows, c' through global memory")};

}  // namespace
}  // namespace nsb
