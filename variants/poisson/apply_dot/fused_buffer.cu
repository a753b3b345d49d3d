// poisson/apply_dot/fused_buffer: q = L p and per-block partials of p.q in one pass, the partials added
// by a second pass in a fixed order.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_buffer<1>(c, ApplyOp<T>{c}, "poisson/apply_dot/fused_buffer");
}

const Registrar reg{Variant{
    .stage = "poisson/apply_dot",
    .name = "fused_buffer",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "buffer"}, {"fusion", "fused"}},
    .tunings = poisson_walk_tunings(),
    .status = "operator and dot fused, deterministic partials",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
