// imle/mls/two_phase_global_i64: the paper's two phases (two_phase.cuh): layout planes, int64_t indices.
// study axis: the paper's layout with 64-bit indices and no batching.
#include "imle/mls/two_phase.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MlsCall<T>& c) {
  run_two_phase<T, MlsLayout::planes, int64_t>(c, "imle/mls/two_phase_global_i64");
}

const Registrar reg{Variant{
    .stage = "imle/mls",
    .name = "two_phase_global_i64",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"phases", "two_phase"}, {"layout", "planes"}, {"index", "int64"}},
    .tunings = mls_block_shapes(),
    .status = "study axis: the paper's layout with 64-bit indices and no batching",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"mls_build_kernel<float>", (const void*)&mls_build_kernel<float, MlsLayout::planes, int64_t>, 4},
                {"mls_build_kernel<double>", (const void*)&mls_build_kernel<double, MlsLayout::planes, int64_t>, 8},
                {"mls_solve_kernel<float>", (const void*)&mls_solve_kernel<float, MlsLayout::planes, int64_t>, 4},
                {"mls_solve_kernel<double>", (const void*)&mls_solve_kernel<double, MlsLayout::planes, int64_t>, 8}},
}};

}  // namespace
}  // namespace nsb
