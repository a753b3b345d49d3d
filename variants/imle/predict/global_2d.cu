// imle/predict/global_2d: one thread a column of cells, 2D blocks over x-y, the shared formula
// (variants/imle/pointwise.cuh): the only GPU variant of this light stage so far.
#include "imle/pointwise.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "imle/predict",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = point_block_shapes(),
    .status = "global-memory baseline",
    .run_float = &run_point_global_2d<ImlePoint::predict, float>,
    .run_double = &run_point_global_2d<ImlePoint::predict, double>,
    .kernels = {{"zloop_2d_kernel<float>", (const void*)&zloop_2d_kernel<ImlePointOp<ImlePoint::predict, float>>, 4},
                {"zloop_2d_kernel<double>", (const void*)&zloop_2d_kernel<ImlePointOp<ImlePoint::predict, double>>, 8}},
}};

}  // namespace
}  // namespace nsb
