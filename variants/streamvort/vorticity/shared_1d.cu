// streamvort/vorticity/shared_1d: the paper's present method: a 1D block over the flattened index, rows j-1..j+1
// of omega and psi staged in shared memory
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/vorticity",
    .name = "shared_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}, {"method", "present"}},
    .tunings = present_carveouts(),
    .status = "the paper's present method (Tables 4-5)",
    .run_float = &run<Traversal::shared_1d, NoReduce, VorticityCall<float>>,
    .run_double = &run<Traversal::shared_1d, NoReduce, VorticityCall<double>>,
    .kernels = kernels_of<Traversal::shared_1d, NoReduce, VorticityOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
