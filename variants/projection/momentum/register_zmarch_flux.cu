// momentum/register_zmarch_flux: register_zmarch's walk up z (zmarch_walk.cuh), with each component's z faces
// carried from one level to the next. The flux form (point_formulas.hpp) makes every direction's terms
// an upper minus a lower face; walking up z, the lower z face of level k is the upper z face of level
// k-1, already computed. So a point computes 5 faces per component instead of 6 (about 8 of the 65
// flops of each component's right-hand side), and the level below (k-1) is no longer read at all: no
// value of plane k-1 is held or loaded after the first level of the walk. The first level computes its
// lower faces from memory.
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
    .run_float = &run_tuning_instance<StageCall<float>>,
    .run_double = &run_tuning_instance<StageCall<double>>,
}};

}  // namespace
}  // namespace nsb
