// imle/mls/two_phase_aos: the paper's two phases (two_phase.cuh): layout aos, int32_t indices.
// study axis: the paper's two phases with each cell's system contiguous (array of structures).
#include "imle/mls/two_phase.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MlsCall<T>& c) {
  run_two_phase<T, MlsLayout::aos, int32_t>(c, "imle/mls/two_phase_aos");
}

const Registrar reg{Variant{
    .stage = "imle/mls",
    .name = "two_phase_aos",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"phases", "two_phase"}, {"layout", "aos"}, {"index", "int32_batched"}},
    .tunings = mls_block_shapes(),
    .status = "study axis: the paper's two phases with each cell's system contiguous (array of structures)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"mls_build_kernel<float>", (const void*)&mls_build_kernel<float, MlsLayout::aos, int32_t>, 4},
                {"mls_build_kernel<double>", (const void*)&mls_build_kernel<double, MlsLayout::aos, int32_t>, 8},
                {"mls_solve_kernel<float>", (const void*)&mls_solve_kernel<float, MlsLayout::aos, int32_t>, 4},
                {"mls_solve_kernel<double>", (const void*)&mls_solve_kernel<double, MlsLayout::aos, int32_t>, 8}},
}};

}  // namespace
}  // namespace nsb
