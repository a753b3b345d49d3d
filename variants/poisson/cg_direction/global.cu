// poisson/cg_direction/global: p = m r + beta p over the interior walk, then p's ghost layer.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch(c, DirectionOp<T>{c}, "poisson/cg_direction/global");
  poisson_launch_faces(c, c.p);
}

const Registrar reg{Variant{
    .stage = "poisson/cg_direction",
    .name = "global",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = poisson_walk_tunings(),
    .status = "the search direction and its ghosts",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
