// tridiag/ppt/ppt_thread: PPT on p virtual ranks (the paper's TDMA-C): PDD's local solves and
// correction, with the whole reduced system of each line solved (partial pivoting) instead of the 2x2
// interface blocks: exact, where PDD is not (the Poisson y-systems). tridiag/split_kernels.cuh.
#include "tridiag/split_kernels.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/ppt",
    .name = "ppt_thread",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"method", "ppt"}, {"mapping", "thread_per_block_of_rows"}},
    .tunings = {parse_tuning("b128"), parse_tuning("b256")},
    .status = "PPT on virtual ranks (TDMA-C of the paper's V2): local solves, the reduced system a thread a line, the correction",
    .run_float = &run_split<float, true>,
    .run_double = &run_split<double, true>,
    .kernels = {{"pdd_local_kernel<float>", (const void*)&pdd_local_kernel<float>, 4},
                {"pdd_local_kernel<double>", (const void*)&pdd_local_kernel<double>, 8},
                {"ppt_reduced_kernel<float>", (const void*)&ppt_reduced_kernel<float>, 4},
                {"ppt_reduced_kernel<double>", (const void*)&ppt_reduced_kernel<double>, 8},
                {"pdd_correct_kernel<float>", (const void*)&pdd_correct_kernel<float>, 4},
                {"pdd_correct_kernel<double>", (const void*)&pdd_correct_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
