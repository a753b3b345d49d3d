// streamvort/vorticity/shared_tile_2d: ablation 2: a 2D block with (bx+2)x(by+2) tiles of omega and psi in shared
// memory
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/vorticity",
    .name = "shared_tile_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"method", "ablation"}},
    .tunings = regular_shapes(),
    .status = "ablation 2: 2D block with shared tiles",
    .run_float = &run<Traversal::shared_tile_2d, NoReduce, VorticityCall<float>>,
    .run_double = &run<Traversal::shared_tile_2d, NoReduce, VorticityCall<double>>,
    .kernels = kernels_of<Traversal::shared_tile_2d, NoReduce, VorticityOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
