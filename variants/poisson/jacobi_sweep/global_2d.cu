// poisson/jacobi_sweep/global_2d: one Jacobi sweep over the interior walk, every value from global
// memory (neighbours shared through the caches): the unit of the family's "sweep equivalents".
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch(c, JacobiOp<T>{c}, "poisson/jacobi_sweep/global_2d");
}

const Registrar reg{Variant{
    .stage = "poisson/jacobi_sweep",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = poisson_walk_tunings(),
    .status = "global-memory sweep (the projection's tuned sweeps are projection/pressure)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
