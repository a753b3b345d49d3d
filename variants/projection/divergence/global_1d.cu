// divergence/global_1d: one thread per point, flat 1D blocks.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_flat_1d(DivergencePoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/divergence",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = flat_sizes(),
    .status = "best in double on an H200 (91.4% of copy, 512^3; performance-notes: where each stage stands)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = flat_kernels<DivergencePoint<float>, DivergencePoint<double>>(),
}};

}  // namespace
}  // namespace nsb
