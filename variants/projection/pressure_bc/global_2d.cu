// pressure_bc/global_2d: ghost cells of p, 2D blocks over each face.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_faces_2d(PressureBcLine<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure_bc",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = tunings_2d({{32, 4}, {16, 16}, {8, 8}}, 0),
    .status = "thesis-style 2D blocks over each face; the stage kind's default GPU variant (three launches a call: "
              "launch overhead, performance-notes: the profiling pass)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"face_2d_kernel<float>", (const void*)&face_2d_kernel<PressureBcLine<float>>, 4}, {"face_2d_kernel<double>", (const void*)&face_2d_kernel<PressureBcLine<double>>, 8}},
}};

}  // namespace
}  // namespace nsb
