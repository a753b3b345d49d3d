// poisson/dot/block_atomic: each block sums its points' products, the block sums meet by atomics.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_atomic<1>(c, DotOp<T>{c.a, c.b}, "poisson/dot/block_atomic");
}

const Registrar reg{Variant{
    .stage = "poisson/dot",
    .name = "block_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "atomic"}},
    .tunings = poisson_walk_tunings(),
    .determinism = Determinism::order_dependent,
    .status = "per-block atomics (order of the atomics varies)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
