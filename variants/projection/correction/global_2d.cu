// correction/global_2d: global 2D thread blocks walking z (thesis C.6).
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d(CorrectionPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/correction",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = zloop_shapes(),
    .status = "thesis baseline (App. C.6); the stage kind's default GPU variant; for correction flat 1D blocks are "
              "faster (performance-notes: Fig. 4.4 on an H200)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<CorrectionPoint<float>, CorrectionPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
