// tridiag/cyclic/thomas_thread: periodic systems by Sherman-Morrison, a thread a system (interleaved):
// two Thomas solves sharing c' (the right-hand side and the corner column), then the rank-one correction.
#include "tridiag/thread_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{thread_per_system_variant(
    "tridiag/cyclic", "baseline: Sherman-Morrison, coalesced rows, c' and z through global memory")};

}  // namespace
}  // namespace nsb
