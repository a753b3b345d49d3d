// poisson/cg_update/fused_atomic: x and r updated and r.z, r.r summed in one pass; block sums meet by
// atomics.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_atomic<2>(c, UpdateOp<T>{c}, "poisson/cg_update/fused_atomic");
}

const Registrar reg{Variant{
    .stage = "poisson/cg_update",
    .name = "fused_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "atomic"}, {"fusion", "fused"}},
    .tunings = poisson_walk_tunings(),
    .determinism = Determinism::order_dependent,
    .status = "both vector updates and both dots in one pass",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
