// poisson/fft2_tridiag/cufft_thomas_fused: cufft_thomas with the pack pass folded into the first
// gather and the unpack into the last inverse scatter (spectral_lines.cuh PassEnds): 8 words a point
// fewer (fft_solve_traffic_bytes).
#include "poisson/fft/spectral_z_slab.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_spectral_tridiagonal(c, "poisson/fft2_tridiag/cufft_thomas_fused", true);  // (a V1 z-slab rank: spectral_z_slab.cuh)
}

const Registrar reg{Variant{
    .stage = "poisson/fft2_tridiag",
    .name = "cufft_thomas_fused",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"library", "cufft"}, {"transform", "c2c_makhoul"}, {"tridiagonal", "thomas_per_thread"}, {"passes", "fused"}},
    .tunings = {parse_tuning("b256")},
    .status = "study axis: pack and unpack folded into the transforms' passes",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = spectral_kernels(true),
}};

}  // namespace
}  // namespace nsb
