// imle/mls/two_phase_global: the paper's two phases (two_phase.cuh): layout planes, int32_t indices.
// paper baseline (Liu 2019 Sec. 3.3: systems in global memory, planes layout, z-batches under 2 GB with 32-bit indices).
#include "imle/mls/two_phase.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MlsCall<T>& c) {
  run_two_phase<T, MlsLayout::planes, int32_t>(c, "imle/mls/two_phase_global");
}

const Registrar reg{Variant{
    .stage = "imle/mls",
    .name = "two_phase_global",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"phases", "two_phase"}, {"layout", "planes"}, {"index", "int32_batched"}},
    .tunings = mls_block_shapes(),
    .status = "paper baseline (Liu 2019 Sec. 3.3: systems in global memory, planes layout, z-batches under 2 GB with 32-bit indices)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"mls_build_kernel<float>", (const void*)&mls_build_kernel<float, MlsLayout::planes, int32_t>, 4},
                {"mls_build_kernel<double>", (const void*)&mls_build_kernel<double, MlsLayout::planes, int32_t>, 8},
                {"mls_solve_kernel<float>", (const void*)&mls_solve_kernel<float, MlsLayout::planes, int32_t>, 4},
                {"mls_solve_kernel<double>", (const void*)&mls_solve_kernel<double, MlsLayout::planes, int32_t>, 8}},
}};

}  // namespace
}  // namespace nsb
