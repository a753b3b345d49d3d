// streamvort/stream/shared_1d_buffer: ablation 4: the present method with the residual to a per-block buffer
// reduced by a second kernel
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "shared_1d_buffer",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"reduce", "buffer"}, {"method", "ablation"}},
    .tunings = present_sizes(),
    .status = "ablation 4: residual reduction by a per-block buffer and a second pass",
    .run_float = &run<Traversal::shared_1d, BlockBuffer, StreamCall<float>>,
    .run_double = &run<Traversal::shared_1d, BlockBuffer, StreamCall<double>>,
    .kernels = kernels_of<Traversal::shared_1d, BlockBuffer, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
