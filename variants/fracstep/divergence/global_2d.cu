// fracstep/divergence/global_2d: div(u + du) at the cells, a thread a cell (all three components) in 2D blocks
// over (i, j), one z level a grid row; every value read from global memory (fracstep_kernels.cuh).
#include "fracstep/fracstep_kernels.cuh"

namespace nsb {
namespace {

template <class T>
void run(const FracstepCall<T>& c) {
  run_cells<T, &fracstep_divergence_kernel<T>>(c, "fracstep_divergence_kernel");
}

const Registrar reg{Variant{
    .stage = "fracstep/divergence",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"mapping", "thread_per_point"}},
    .tunings = fracstep_cell_tunings(),
    .status = "global-memory baseline (V0)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"fracstep_divergence_kernel<float>", (const void*)&fracstep_divergence_kernel<float>, 4},
                {"fracstep_divergence_kernel<double>", (const void*)&fracstep_divergence_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
