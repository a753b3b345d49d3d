// poisson/residual/global_atomic: r and its squares in one pass over the interior walk, the block sums
// meeting by atomics.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_atomic<1>(c, ResidualOp<T>{c}, "poisson/residual/global_atomic");
}

const Registrar reg{Variant{
    .stage = "poisson/residual",
    .name = "global_atomic",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "atomic"}, {"fusion", "fused"}},
    .tunings = poisson_walk_tunings(),
    .determinism = Determinism::order_dependent,
    .status = "residual and its norm in one pass (convergence checks)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
