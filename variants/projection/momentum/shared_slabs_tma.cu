// momentum/shared_slabs_tma: momentum marching z over row slabs of u, v, w that the copy engine (TMA
// bulk copies) streams into a ring of shared-memory planes, pf levels ahead (common/bulk_slabs.cuh).
// All 27 neighbour values come from shared memory: no thread issues a global load, its 64-bit address
// arithmetic or holds a load in flight. The price: one halo row above and below the block's `by` rows
// is copied again by the neighbouring block (from L2).
#include "common/bulk_slabs.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T, bool Upwind>
struct MomentumFromSlabs {
  using value_type = T;
  MomentumPoint<T, Upwind> op;
  __device__ void operator()(std::size_t n, const RingAt<T>& u, const RingAt<T>& v, const RingAt<T>& w) const {
    op.compute(n, u, v, w);
  }
};

template <class T>
void run(const StageCall<T>& c) {
  // Offsets read (point_formulas.hpp): -1..+1 on every axis, so one halo row each side and planes k-1..k+1.
  const SlabShape star{-1, 1, -1, 1};
  const SlabFields<T, 3> set{{c.f.u, c.f.v, c.f.w}, {star, star, star}};
  with_momentum_point(c, [&](const auto& point) {
    using Point = std::decay_t<decltype(point)>;
    launch_bulk_slabs(MomentumFromSlabs<T, Point::kUpwind>{point}, set, c, "momentum/shared_slabs_tma");
  });
}

const Registrar reg{Variant{
    .stage = "projection/momentum",
    .name = "shared_slabs_tma",
    .aliases = {"tma_slabs"},
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}, {"traversal", "zmarch"}, {"copy", "tma"}},
    .tunings = {parse_tuning("bx128_by2_sz64_pf1"), parse_tuning("bx256_by2_sz64_pf1"),
                parse_tuning("bx256_by2_sz32_pf1"), parse_tuning("bx64_by2_sz64_pf1"),
                parse_tuning("bx128_by1_sz64_pf2"), parse_tuning("bx256_by1_sz64_pf1"),
                parse_tuning("bx128_by4_sz64_pf1"), parse_tuning("bx256_by4_sz64_pf1")},
    .status = "negative on H200: float 45-48%, double 56-59% of copy at 512^3, below register_zmarch: too few warps "
              "for its flops (experiment 15)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"bulk_slab_kernel<float>", (const void*)&bulk_slab_kernel<MomentumFromSlabs<float, false>, 3>, 4},
                {"bulk_slab_kernel<double>", (const void*)&bulk_slab_kernel<MomentumFromSlabs<double, false>, 3>, 8}},
}};

}  // namespace
}  // namespace nsb
