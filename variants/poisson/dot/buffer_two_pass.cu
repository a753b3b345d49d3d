// poisson/dot/buffer_two_pass: per-block sums into a buffer, added by a second one-block pass in a
// fixed order (deterministic).
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch_buffer<1>(c, DotOp<T>{c.a, c.b}, "poisson/dot/buffer_two_pass");
}

const Registrar reg{Variant{
    .stage = "poisson/dot",
    .name = "buffer_two_pass",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "buffer"}},
    .tunings = poisson_walk_tunings(),
    .status = "per-block partials, second pass in a fixed order",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
