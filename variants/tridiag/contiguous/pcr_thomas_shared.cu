// tridiag/contiguous/pcr_thomas_shared: PCR in shared memory until the coupling distance reaches the
// group's thread count S, then a Thomas solve a thread on each of the S independent subsystems (Zhang,
// Cohen & Owens' hybrid). Fewer steps than PCR (log2 S instead of log2 n) with every thread busy.
#include "tridiag/block_per_system.cuh"

namespace nsb {
namespace {

const Registrar reg{Variant{
    .stage = "tridiag/contiguous",
    .name = "pcr_thomas_shared",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"method", "pcr_thomas"}, {"mapping", "block_per_system"}},
    .tunings = {parse_tuning("b64"), parse_tuning("b32"), parse_tuning("b128"), parse_tuning("b256")},
    .status = "candidate best: PCR-Thomas hybrid, whole system on chip",
    .run_float = &run_block_per_system<float, false>,
    .run_double = &run_block_per_system<double, false>,
    .kernels = {{"pcr_block_kernel<float, pcr_thomas>", (const void*)&pcr_block_kernel<float, false>, 4},
                {"pcr_block_kernel<double, pcr_thomas>", (const void*)&pcr_block_kernel<double, false>, 8}},
}};

}  // namespace
}  // namespace nsb
