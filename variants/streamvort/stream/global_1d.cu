// streamvort/stream/global_1d: ablation 1 (module 1 alone): the present method's 1D block over the flattened
// index, every value from global memory
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"reduce", "warp_atomic"}, {"method", "ablation"}},
    .tunings = present_sizes(),
    .status = "ablation 1: 1D block, global memory only",
    .run_float = &run<Traversal::global_1d, WarpAtomic, StreamCall<float>>,
    .run_double = &run<Traversal::global_1d, WarpAtomic, StreamCall<double>>,
    .kernels = kernels_of<Traversal::global_1d, WarpAtomic, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
