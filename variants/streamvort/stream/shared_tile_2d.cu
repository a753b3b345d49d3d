// streamvort/stream/shared_tile_2d: ablation 2 (module 2 alone): the regular 2D block with psi's (bx+2)x(by+2)
// tile in shared memory and the present residual reduction
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/stream",
    .name = "shared_tile_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"reduce", "last_block"}, {"method", "ablation"}},
    .tunings = regular_shapes(),
    .status = "ablation 2: 2D block with a shared tile",
    .run_float = &run<Traversal::shared_tile_2d, LastBlock, StreamCall<float>>,
    .run_double = &run<Traversal::shared_tile_2d, LastBlock, StreamCall<double>>,
    .kernels = kernels_of<Traversal::shared_tile_2d, LastBlock, StreamOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
