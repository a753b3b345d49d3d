// tridiag/lines_y/partition_registers: the partition method (tridiag/pdd_formulas.hpp, "the partition
// method"), a thread a chunk of sz rows of a y line held in registers, the reduced system in shared
// memory (variants/tridiag/partition_registers.cuh). A block's bx lines are neighbours in x, so
// every row it loads or stores is a run of bx values, and the field needs no transpose; global memory
// sees the model's 5 words an unknown (thomas_thread moves 9).
#include "tridiag/partition_registers.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_variant(
    "tridiag/lines_y", "candidate best: 5 words an unknown (chunks in registers, the reduced system by the same elimination and Thomas in shared memory); 84.7% (double, bx8_sz16) and 80.9% (float, bx8_sz16_mb2) of copy at 512^3 on an H100 (docs/solvers/tridiag.md)")};

}  // namespace
}  // namespace nsb
