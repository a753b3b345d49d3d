// ogrid/sweep/global_2d_block_atomic: the regular method (2D block, every value from global memory) with the
// residual's maximum formed per block in shared memory and one atomicMax a block, instead of one a warp. The
// same change took the stream-function sweep from 33% to 86% of the copy bandwidth (table4_5_flow_solver's
// stage benchmark at 2048^2): one address taking an atomic from every warp of a 4096^2 grid is the limit.
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "ogrid/sweep",
    .name = "global_2d_block_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "block_atomic"}, {"method", "ablation"}},
    .tunings = regular_shapes(),
    .status = "ablation on the regular method: one atomicMax a block instead of one a warp",
    .run_float = &run<Traversal::global_2d, BlockAtomic, GridSweepCall<float>>,
    .run_double = &run<Traversal::global_2d, BlockAtomic, GridSweepCall<double>>,
    .kernels = kernels_of<Traversal::global_2d, BlockAtomic, GridSweepOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
