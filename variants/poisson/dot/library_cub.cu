// poisson/dot/library_cub: CUB's TransformReduce over the interior points' numbers (the library
// chooses its grid; its partials meet in a fixed order).
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_cub_sum(c, DotTerm<T>{DotOp<T>{c.a, c.b}}, c.out, "poisson/dot/library_cub");
}

const Registrar reg{Variant{
    .stage = "poisson/dot",
    .name = "library_cub",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"reduce", "library"}},
    .status = "CUB DeviceReduce (the default: deterministic)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
