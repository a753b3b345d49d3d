// tridiag/contiguous/pcr_shared: parallel cyclic reduction in shared memory, a group of threads a system,
// run to the end (every row alone). log2(n) steps of 12 flops a row: more arithmetic than Thomas, all
// of it on chip; global memory sees the model's 5 words an unknown.
#include "tridiag/block_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/contiguous",
    .name = "pcr_shared",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"method", "pcr"}, {"mapping", "block_per_system"}},
    .tunings = {parse_tuning("b256"), parse_tuning("b128"), parse_tuning("b512")},
    .status = "study axis: PCR to the end, whole system on chip",
    .run_float = &run_block_per_system<float, true>,
    .run_double = &run_block_per_system<double, true>,
    .kernels = {{"pcr_block_kernel<float, pcr>", (const void*)&pcr_block_kernel<float, true>, 4},
                {"pcr_block_kernel<double, pcr>", (const void*)&pcr_block_kernel<double, true>, 8}},
}};

}  // namespace
}  // namespace nsb
