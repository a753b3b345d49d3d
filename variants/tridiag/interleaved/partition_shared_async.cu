// tridiag/interleaved/partition_shared_async: lines_y/partition_shared_async on interleaved systems
// (unknown j of all systems one run): a tile's bx systems are neighbours, so every row a warp copies is a
// run of bx values (variants/tridiag/partition_shared_async.cuh).
#include "tridiag/partition_shared_async.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_shared_async_variant(
    "tridiag/interleaved", "partition_registers with the next tile's chunks copied into shared memory (cp.async) while this one is "
                           "solved; verified (lines_y's timing: docs/solvers/tridiag.md)")};

}  // namespace
}  // namespace nsb
