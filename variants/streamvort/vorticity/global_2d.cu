// streamvort/vorticity/global_2d: the paper's regular method: a 2D block, one thread a node, omega's and psi's 9
// values from global memory
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/vorticity",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"method", "regular"}},
    .tunings = regular_shapes(),
    .status = "the paper's regular method (Tables 4-5)",
    .run_float = &run<Traversal::global_2d, NoReduce, VorticityCall<float>>,
    .run_double = &run<Traversal::global_2d, NoReduce, VorticityCall<double>>,
    .kernels = kernels_of<Traversal::global_2d, NoReduce, VorticityOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
