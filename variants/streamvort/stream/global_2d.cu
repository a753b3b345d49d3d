// streamvort/stream/global_2d: the paper's regular method: a 2D block (16x16, 16x8, 8x8, 32x4, 32x8), one thread a
// node, psi's 9 values from global memory; residual max by warp shuffles + one atomicMax a warp
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "warp_atomic"}, {"method", "regular"}},
    .tunings = regular_shapes(),
    .status = "the paper's regular method (Tables 4-5); bx32 shapes are ablation 3",
    .run_float = &run<Traversal::global_2d, WarpAtomic, StreamCall<float>>,
    .run_double = &run<Traversal::global_2d, WarpAtomic, StreamCall<double>>,
    .kernels = kernels_of<Traversal::global_2d, WarpAtomic, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
