// pressure/jacobi_global_2d_x2: the global-memory Jacobi sweep walking z in 2D blocks, two columns
// per thread (bx apart): twice the loads in flight per thread, for float's 12 bytes a point.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d_x2(JacobiPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_2d_x2",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"points_per_thread", "2"}},
    .tunings = {parse_tuning("bx64_by4_sz16"), parse_tuning("bx32_by4_sz16"), parse_tuning("bx32_by8_sz16"),
                parse_tuning("bx64_by2_sz32"), parse_tuning("bx128_by2_sz16"), parse_tuning("bx32_by8_sz8")},
    .status = "negative: float 492.9 -> 653.2 us, 64 registers instead of 32 (experiment 6)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_x2_kernels<JacobiPoint<float>, JacobiPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
