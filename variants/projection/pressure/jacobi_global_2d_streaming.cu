// pressure/jacobi_global_2d_streaming: jacobi_global_2d_zloop with cache hints. The right-hand side is
// read once and the new pressure written once per sweep, so both go through the evict-first path
// (ld.global.cs / st.global.cs); L2 then keeps the old pressure, whose planes k-1, k, k+1 are read
// by three z-levels and whose rows by three y-rows (docs/performance-notes.md, experiment 11).
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
struct JacobiStreamingPoint : JacobiPoint<T> {
  using JacobiPoint<T>::JacobiPoint;
  __device__ void operator()(int, int, int, std::size_t n) const {
    __stcs(this->p_new + n, jacobi_point(point_at<T>(this->p, this->g, n), __ldcs(this->div + n), this->dti, this->coef));
  }
};

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d(JacobiStreamingPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_2d_streaming",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"cache_hints", "streaming"}},
    .tunings = zloop_shapes(),
    .status = "study axis: evict-first hints help where the working set nearly fits L2 (256x32x256 double 63% -> "
              "79% of copy) and hurt at 512^3 (double 89.6% -> 85.1%; experiment 11)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<JacobiStreamingPoint<float>, JacobiStreamingPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
