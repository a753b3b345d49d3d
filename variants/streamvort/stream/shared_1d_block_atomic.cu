// streamvort/stream/shared_1d_block_atomic: ablation 4: the present method with the residual by one atomicMax a
// block (result cleared by a memset first)
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "shared_1d_block_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"reduce", "block_atomic"}, {"method", "ablation"}},
    .tunings = present_sizes(),
    .status = "ablation 4: residual reduction by atomics",
    .run_float = &run<Traversal::shared_1d, BlockAtomic, StreamCall<float>>,
    .run_double = &run<Traversal::shared_1d, BlockAtomic, StreamCall<double>>,
    .kernels = kernels_of<Traversal::shared_1d, BlockAtomic, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
