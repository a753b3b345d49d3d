// tridiag/interleaved/partition_registers: the partition method of tridiag/lines_y/partition_registers
// on interleaved systems (unknown j of all systems one run): a block's bx systems are neighbours, so
// every row it loads or stores is a run of bx values; 5 words an unknown against thomas_thread's 9.
#include "tridiag/partition_registers.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_variant(
    "tridiag/interleaved", "candidate best: 5 words an unknown (chunks in registers, the reduced system by the same elimination and Thomas in shared memory); not yet timed")};

}  // namespace
}  // namespace nsb
