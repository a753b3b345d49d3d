// poisson/fft/cufft_r2c: the direct solve on real data (spectral_real.cuh, fft_real.hpp): one 3D
// real-to-complex cuFFT each way, Makhoul's reordering in the pack and unpack passes, and every axis's
// twiddles and the division in one pass over the half spectrum. Hypothesis: 5 passes of about 2 words
// a point plus cuFFT's own (fft_solve_passes), a third of cufft_fused's traffic on a 3D cavity.
#include "poisson/fft/spectral_real.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonDirectCall<T>& c) {
  solve_real_spectrum(c, "poisson/fft/cufft_r2c");
}

const Registrar reg{Variant{
    .stage = "poisson/fft",
    .name = "cufft_r2c",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"library", "cufft"}, {"transform", "r2c_makhoul"}, {"passes", "orbit"}},
    .tunings = {parse_tuning("b256")},
    .status = "default: real data, one 3D R2C/C2R cuFFT plan, the twiddles of every axis and the division in one pass",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"real_pack_kernel<float>", (const void*)&real_pack_kernel<float>, 4},
                {"real_pack_kernel<double>", (const void*)&real_pack_kernel<double>, 8},
                {"orbit_kernel<float>", (const void*)&orbit_kernel<float>, 4},
                {"orbit_kernel<double>", (const void*)&orbit_kernel<double>, 8},
                {"real_unpack_kernel<float>", (const void*)&real_unpack_kernel<float>, 4},
                {"real_unpack_kernel<double>", (const void*)&real_unpack_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
