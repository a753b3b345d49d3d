// pressure/jacobi_global_1d: Jacobi sweep in global memory, one thread per point, flat 1D blocks.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_flat_1d(JacobiPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = flat_sizes(),
    .status = "study axis: flat 1D blocks against the thesis's 2D ones (performance-notes: Fig. 4.4 on an H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = flat_kernels<JacobiPoint<float>, JacobiPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
