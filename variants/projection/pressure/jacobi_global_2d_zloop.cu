// pressure/jacobi_global_2d_zloop: Jacobi sweep in global memory, thesis 2D blocks walking SIZE_Z levels (C.5.2).
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

#ifdef NSB_TEST_SLOWDOWN
// Test-only (cmake -DNSB_TEST_SLOWDOWN=ON, never in a normal build): an extra read of a quarter of div
// before every sweep, about 8% more memory traffic for this stage: a known regression that the
// regression gate (scripts/gpu-ci) must catch.
template <class T>
__global__ void extra_read_pass(const T* a, std::size_t n, T* sink) {
  T s = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x)
    s += a[i];
  if (s == T(-12345.678)) *sink = s;  // never true for the test's data; keeps the loads alive
}
#endif

template <class T>
void run(const StageCall<T>& c) {
#ifdef NSB_TEST_SLOWDOWN
  extra_read_pass<<<1024, 256, 0, stream_of(c.exec)>>>(c.f.div, c.grid.padded_points() / 4, c.f.p_new);
  NSB_LAUNCHED("extra_read_pass");
#endif
  launch_zloop_2d(JacobiPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_2d_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = zloop_wide_shapes(),
    .status = "thesis baseline (Fig. 4.5 'global', App. C.5.2); best in double on an H200 (92.5-93.4% of copy, "
              "512^3, bx256_by4_sz8; performance-notes: where each stage stands)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<JacobiPoint<float>, JacobiPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
