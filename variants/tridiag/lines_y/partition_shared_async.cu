// tridiag/lines_y/partition_shared_async: the partition method of lines_y/partition_registers with the
// chunks brought into shared memory by cp.async a tile ahead, persistent blocks solving tile after tile
// (variants/tridiag/partition_shared_async.cuh). Why: partition_registers' block waits for its loads, then
// computes with none in flight (12.5% occupancy at 512^3, double); here the next tile's loads overlap this
// tile's elimination. The same 5 words an unknown, the same formulas.
#include "tridiag/partition_shared_async.cuh"

namespace nsb {
namespace {

const Registrar reg{partition_shared_async_variant(
    "tridiag/lines_y", "partition_registers with the next tile's chunks copied into shared memory (cp.async) while this one is "
                       "solved; verified, slower than partition_registers at 512^3 (docs/solvers/tridiag.md)")};

}  // namespace
}  // namespace nsb
