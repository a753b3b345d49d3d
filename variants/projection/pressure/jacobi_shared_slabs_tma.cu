// pressure/jacobi_shared_slabs_tma: the Jacobi sweep marching z over row slabs that the copy engine (TMA
// bulk copies) streams into a ring of shared-memory planes, pf levels ahead (common/bulk_slabs.cuh).
// A block owns `by` full rows; each level reads p's slab with one halo row each side and div's rows.
// Why: threads issue no global loads at all, so the bytes in flight no longer depend on how many loads
// each thread can hold (docs/performance-notes.md, experiment 14).
#include "common/bulk_slabs.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

// The shared Jacobi formula, fed from the ring: p's three planes, div's own plane.
template <class T>
struct JacobiFromSlabs {
  using value_type = T;
  JacobiPoint<T> op;
  __device__ void operator()(std::size_t n, const RingAt<T>& p, const RingAt<T>& div) const {
    op.p_new[n] = jacobi_point(p, div(0, 0, 0), op.dti, op.coef);
  }
};

template <class T>
void run(const StageCall<T>& c) {
  const JacobiFromSlabs<T> op{JacobiPoint<T>(c)};
  const SlabFields<T, 2> set{{c.f.p, c.f.div}, {SlabShape{-1, 1, -1, 1}, SlabShape{0, 0, 0, 0}}};
  launch_bulk_slabs(op, set, c, "pressure/jacobi_shared_slabs_tma");
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_shared_slabs_tma",
    .aliases = {"jacobi_tma_slabs"},
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"copy", "tma"}},
    .tunings = {parse_tuning("bx128_by4_sz64_pf2"), parse_tuning("bx64_by4_sz64_pf2"),
                parse_tuning("bx128_by4_sz32_pf2"), parse_tuning("bx128_by4_sz128_pf2"),
                parse_tuning("bx128_by4_sz64_pf1"), parse_tuning("bx128_by4_sz64_pf3"),
                parse_tuning("bx128_by8_sz64_pf1"), parse_tuning("bx128_by2_sz64_pf2"),
                parse_tuning("bx128_by3_sz64_pf2"), parse_tuning("bx256_by4_sz64_pf2"),
                parse_tuning("bx256_by2_sz64_pf1"), parse_tuning("bx128_by4_sz16_pf2"),
                parse_tuning("bx128_by2_sz16_pf2")},
    .status = "best in float on an H200 (84.5-86.1% of copy, 512^3, bx128_by4_sz128_pf2 / sz64_pf2; experiment 14); "
              "in double below jacobi_global_2d_zloop",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"bulk_slab_kernel<float>", (const void*)&bulk_slab_kernel<JacobiFromSlabs<float>, 2>, 4},
                {"bulk_slab_kernel<double>", (const void*)&bulk_slab_kernel<JacobiFromSlabs<double>, 2>, 8}},
}};

}  // namespace
}  // namespace nsb
