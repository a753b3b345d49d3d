// ogrid/sweep/global_2d: the paper's regular method (its only GPU grid generator, Table 3): a 2D block, one thread
// a node, x and y with their 9-point neighbours from global memory; the residual's maximum by warp shuffles and
// one atomicMax a warp
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "ogrid/sweep",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "warp_atomic"}, {"method", "regular"}},
    .tunings = regular_shapes(),
    .status = "the paper's regular method (Table 3)",
    .run_float = &run<Traversal::global_2d, WarpAtomic, GridSweepCall<float>>,
    .run_double = &run<Traversal::global_2d, WarpAtomic, GridSweepCall<double>>,
    .kernels = kernels_of<Traversal::global_2d, WarpAtomic, GridSweepOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
