// poisson/fft/cufft_fused: cufft with the pack pass folded into the first gather, the division into the
// last forward scatter and the unpack into the last inverse scatter (spectral_lines.cuh PassEnds):
// 12 words a point fewer (fft_solve_traffic_bytes). Hypothesis: time falls with the traffic, the
// passes being bandwidth-bound.
#include "poisson/fft/spectral_lines.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_spectral(c, "poisson/fft/cufft_fused", false, true);
}

const Registrar reg{Variant{
    .stage = "poisson/fft",
    .name = "cufft_fused",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"library", "cufft"}, {"transform", "c2c_makhoul"}, {"passes", "fused"}},
    .tunings = {parse_tuning("b256")},
    .status = "study axis: pack, divide and unpack folded into the transforms' passes",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = spectral_kernels(false),
}};

}  // namespace
}  // namespace nsb
