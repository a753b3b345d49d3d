// pressure_bc/global_1d: ghost cells of p, flat 1D blocks over each face.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_faces_1d(PressureBcLine<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure_bc",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = {parse_tuning("b256"), parse_tuning("b128")},
    .status = "study axis: flat 1D blocks over each face",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"face_1d_kernel<float>", (const void*)&face_1d_kernel<PressureBcLine<float>>, 4}, {"face_1d_kernel<double>", (const void*)&face_1d_kernel<PressureBcLine<double>>, 8}},
}};

}  // namespace
}  // namespace nsb
