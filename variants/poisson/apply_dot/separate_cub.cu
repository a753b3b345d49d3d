// poisson/apply_dot/separate_cub: q = L p in one kernel, then p.q by CUB over p and q (p and q read
// again: 2 more words a point than the fused variants).
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch(c, ApplyOp<T>{c}, "poisson/apply_dot/separate_cub");
  poisson_cub_sum(c, DotTerm<T>{DotOp<T>{c.p, c.q}}, c.out, "poisson/apply_dot/separate_cub");
}

const Registrar reg{Variant{
    .stage = "poisson/apply_dot",
    .name = "separate_cub",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}, {"fusion", "separate"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis: operator, then a library dot",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
