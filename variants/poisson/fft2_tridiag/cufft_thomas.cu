// poisson/fft2_tridiag/cufft_thomas: transforms in x and z (spectral_lines.cuh), then one thread a
// (kx, kz) line solving its tridiagonal system in y by the Thomas algorithm (fft_solve.hpp thomas_line,
// the CPU reference's own), reading the y rows per row; neighbouring threads take neighbouring kx, so
// every access of a line's step j is one coalesced row of W. Every pass its own kernel.
#include "poisson/fft/spectral_z_slab.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_spectral_tridiagonal(c, "poisson/fft2_tridiag/cufft_thomas", false);  // (a V1 z-slab rank: spectral_z_slab.cuh)
}

const Registrar reg{Variant{
    .stage = "poisson/fft2_tridiag",
    .name = "cufft_thomas",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"library", "cufft"}, {"transform", "c2c_makhoul"}, {"tridiagonal", "thomas_per_thread"}, {"passes", "separate"}},
    .tunings = {parse_tuning("b256")},
    .status = "Ha et al.'s structure: FFTs in x and z, a Thomas solve per line in y",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = spectral_kernels(true),
}};

}  // namespace
}  // namespace nsb
