// ogrid/sweep/shared_1d: the paper's present method applied to grid generation (the paper expects little gain
// here, notes Sec. 1.2): a 1D block over the flattened node index, rows j-1..j+1 of x and y staged in shared
// memory, the residual by the threadfence last-block pattern
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "ogrid/sweep",
    .name = "shared_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"reduce", "last_block"}, {"method", "present"}},
    .tunings = present_sizes(),
    .status = "the paper's present method, to test its expectation of little gain",
    .run_float = &run<Traversal::shared_1d, LastBlock, GridSweepCall<float>>,
    .run_double = &run<Traversal::shared_1d, LastBlock, GridSweepCall<double>>,
    .kernels = kernels_of<Traversal::shared_1d, LastBlock, GridSweepOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
