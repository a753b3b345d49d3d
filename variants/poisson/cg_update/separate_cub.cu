// poisson/cg_update/separate_cub: x += alpha p and r -= alpha q as two kernels, then r.z and r.r as two
// CUB reductions (r read twice more: the unfused baseline).
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  poisson_launch(c, AxpyXOp<T>{c}, "poisson/cg_update/separate_cub x");
  poisson_launch(c, AxpyROp<T>{c}, "poisson/cg_update/separate_cub r");
  poisson_cub_sum(c, ResidualTerm<T>{c, false}, c.out, "poisson/cg_update/separate_cub rz");
  poisson_cub_sum(c, ResidualTerm<T>{c, true}, c.out + 1, "poisson/cg_update/separate_cub rr");
}

const Registrar reg{Variant{
    .stage = "poisson/cg_update",
    .name = "separate_cub",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}, {"fusion", "separate"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis: unfused updates and library dots",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
