// poisson/fft/cufft: the direct solve with a transform on every axis (spectral_lines.cuh): cuFFT
// complex FFTs of length n on axis-contiguous lines, Makhoul's pre/post-processing for the cosine
// (neumann) and sine (dirichlet) axes, one division by the discrete eigenvalues; every pass its own
// kernel (the baseline of cufft_fused).
#include "poisson/fft/spectral_lines.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_spectral(c, "poisson/fft/cufft", false, false);
}

const Registrar reg{Variant{
    .stage = "poisson/fft",
    .name = "cufft",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"library", "cufft"}, {"transform", "c2c_makhoul"}, {"passes", "separate"}},
    .tunings = {parse_tuning("b256")},
    .status = "first GPU direct solve: complex working array, separate pack/gather/FFT/scatter/divide/unpack passes",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = spectral_kernels(false),
}};

}  // namespace
}  // namespace nsb
