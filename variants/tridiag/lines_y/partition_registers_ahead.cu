// tridiag/lines_y/partition_registers_ahead: lines_y/partition_p1_shared with persistent blocks that load
// the next tile's chunks into registers while this tile's reduced system is solved and its unknowns
// stored (variants/tridiag/partition_registers_ahead.cuh). The same 5 words an unknown, the same formulas.
#include "tridiag/partition_registers_ahead.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_registers_ahead_variant(
    "tridiag/lines_y", "partition_p1_shared with the next tile's chunks loaded into registers during this tile's reduced solve "
                       "and stores (persistent blocks); issue 21's 80% attempt, verified, slower than partition_registers (docs/solvers/tridiag.md)")};

}  // namespace
}  // namespace nsb
