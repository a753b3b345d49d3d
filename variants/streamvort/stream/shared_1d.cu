// streamvort/stream/shared_1d: the paper's present method: a 1D block of B threads over the flattened node index,
// psi's rows j-1..j+1 staged in shared memory (one value each side; row ends from global), the residual's maximum
// by a shared-memory tree and the threadfence last-block pattern
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "shared_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"reduce", "last_block"}, {"method", "present"}},
    .tunings = present_carveouts(),
    .status = "the paper's present method (Tables 4-5)",
    .run_float = &run<Traversal::shared_1d, LastBlock, StreamCall<float>>,
    .run_double = &run<Traversal::shared_1d, LastBlock, StreamCall<double>>,
    .kernels = kernels_of<Traversal::shared_1d, LastBlock, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
