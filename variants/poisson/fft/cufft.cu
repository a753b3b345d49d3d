// poisson/fft/cufft: the direct solve with a transform on every axis (spectral_lines.cuh): cuFFT
// complex FFTs of length n on axis-contiguous lines, Makhoul's pre/post-processing for the cosine
// (neumann) and sine (dirichlet) axes, one division by the discrete eigenvalues.
#include "poisson/fft/spectral_lines.cuh"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_spectral(c, "poisson/fft/cufft", false);
}

const Registrar reg{Variant{
    .stage = "poisson/fft",
    .name = "cufft",
    .backend = Backend::cuda,
    .tags = {{"library", "cufft"}, {"transform", "c2c_makhoul"}},
    .tunings = {parse_tuning("b256")},
    .status = "first GPU direct solve: complex working array, separate gather/FFT/scatter passes per axis",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"forward_gather_kernel<float>", (const void*)&forward_gather_kernel<float>, 4},
                {"forward_gather_kernel<double>", (const void*)&forward_gather_kernel<double>, 8},
                {"forward_scatter_kernel<float>", (const void*)&forward_scatter_kernel<float>, 4},
                {"forward_scatter_kernel<double>", (const void*)&forward_scatter_kernel<double>, 8},
                {"inverse_gather_kernel<float>", (const void*)&inverse_gather_kernel<float>, 4},
                {"inverse_gather_kernel<double>", (const void*)&inverse_gather_kernel<double>, 8},
                {"inverse_scatter_kernel<float>", (const void*)&inverse_scatter_kernel<float>, 4},
                {"inverse_scatter_kernel<double>", (const void*)&inverse_scatter_kernel<double>, 8},
                {"divide_kernel<float>", (const void*)&divide_kernel<float>, 4},
                {"divide_kernel<double>", (const void*)&divide_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
