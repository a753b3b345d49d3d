// momentum/register_zmarch_flux: register_zmarch's walk up z (zmarch_walk.cuh) with each component's z
// faces carried from one level to the next. In the flux form (point_formulas.hpp) the lower z face of
// level k is the upper z face of level k-1, already computed: 5 faces a component instead of 6, and
// no value of plane k-1 held or loaded after the first level, which computes its lower faces itself.
#include "projection/momentum/zmarch_walk.cuh"

namespace nsb {
namespace {

template <class Op>
struct CarryZFaces {
  MomentumFace<typename Op::value_type> zface[3];
  template <class U, class V, class W>
  __device__ void operator()(const Op& op, std::size_t n, const U& u, const V& v, const W& w, bool first_level) {
    if (first_level) op.lower_z_faces(u, v, w, zface);
    op.compute_carrying_z(n, u, v, w, zface);
  }
};

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "register_zmarch_flux",
    .aliases = {"flux_zmarch"},
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"faces", "carried"}},
    .tunings = zmarch_tunings<CarryZFaces>(),
    .status = "negative: the carried faces cost registers what they save (experiment 17: float 53.7% against 55.5% "
              "for register_zmarch)",
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
