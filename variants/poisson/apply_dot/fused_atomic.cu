// poisson/apply_dot/fused_atomic: q = L p and p.q in one pass; block sums meet by atomics.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_atomic<1>(c, ApplyOp<T>{c}, "poisson/apply_dot/fused_atomic");
}

const Registrar reg{Variant{
    .stage = "poisson/apply_dot",
    .name = "fused_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "atomic"}, {"fusion", "fused"}},
    .tunings = poisson_walk_tunings(),
    .determinism = Determinism::order_dependent,
    .status = "operator and dot fused: p read once",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
