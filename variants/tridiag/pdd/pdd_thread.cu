// tridiag/pdd/pdd_thread: PDD on p virtual ranks in three kernels, the phases of the paper's Algorithm 1
// (tridiag/split_kernels.cuh): local solves, the 2x2 interface solves, the correction.
#include "tridiag/split_kernels.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/pdd",
    .name = "pdd_thread",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"method", "pdd"}, {"mapping", "thread_per_block_of_rows"}},
    .tunings = {parse_tuning("b128"), parse_tuning("b256")},
    .status = "PDD on virtual ranks (ADI-Y of the paper's V2), three phases as Algorithm 1",
    .run_float = &run_split<float, false>,
    .run_double = &run_split<double, false>,
    .kernels = {{"pdd_local_kernel<float>", (const void*)&pdd_local_kernel<float>, 4},
                {"pdd_local_kernel<double>", (const void*)&pdd_local_kernel<double>, 8},
                {"pdd_interface_kernel<float>", (const void*)&pdd_interface_kernel<float>, 4},
                {"pdd_interface_kernel<double>", (const void*)&pdd_interface_kernel<double>, 8},
                {"pdd_correct_kernel<float>", (const void*)&pdd_correct_kernel<float>, 4},
                {"pdd_correct_kernel<double>", (const void*)&pdd_correct_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
