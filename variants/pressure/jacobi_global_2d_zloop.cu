// pressure/jacobi_global_2d_zloop: Jacobi sweep in global memory, thesis 2D blocks walking SIZE_Z levels (C.5.2).
#include "common/traversals.cuh"
#include "point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d(JacobiPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = StageKind::pressure,
    .name = "jacobi_global_2d_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = zloop_shapes(),
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<JacobiPoint<float>, JacobiPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
