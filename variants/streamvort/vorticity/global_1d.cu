// streamvort/vorticity/global_1d: ablation 1: a 1D block over the flattened index, every value from global memory
#include "grid2d/stencil2d.cuh"

namespace nsb {
namespace sv {
namespace {

const Registrar reg{Variant{
    .stage = "streamvort/vorticity",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"method", "ablation"}},
    .tunings = present_sizes(),
    .status = "ablation 1: 1D block, global memory only",
    .run_float = &run<Traversal::global_1d, NoReduce, VorticityCall<float>>,
    .run_double = &run<Traversal::global_1d, NoReduce, VorticityCall<double>>,
    .kernels = kernels_of<Traversal::global_1d, NoReduce, VorticityOp>(),
}};

}  // namespace
}  // namespace sv
}  // namespace nsb
