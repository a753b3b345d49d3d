// divergence/global_2d: global 2D thread blocks walking z (thesis C.4).
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d(DivergencePoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/divergence",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = zloop_shapes(),
    .status = "thesis baseline (App. C.4); the stage kind's default GPU variant; best in float on an H200 (79.3% of "
              "copy, 512^3; performance-notes: where each stage stands)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<DivergencePoint<float>, DivergencePoint<double>>(),
}};

}  // namespace
}  // namespace nsb
