// tridiag/lines_y/partition_p1_shared: lines_y/partition_registers (a thread a chunk of sz rows of a y
// line in registers, the reduced system in shared memory) with the chunk's P1 coefficients parked in
// shared memory through the reduced solve, so that a thread needs fewer registers and more warps fit an
// SM (variants/tridiag/partition_p1_shared.cuh). The same 5 words an unknown, the same formulas.
#include "tridiag/partition_p1_shared.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_p1_shared_variant(
    "tridiag/lines_y", "partition_registers with P1 parked in shared memory during the reduced solve (fewer registers, more "
                       "warps an SM); issue 21's 80% attempt, verified, slower than partition_registers (docs/solvers/tridiag.md)")};

}  // namespace
}  // namespace nsb
