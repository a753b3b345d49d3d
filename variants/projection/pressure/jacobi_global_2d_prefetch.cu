// pressure/jacobi_global_2d_prefetch: the global-memory Jacobi sweep walking z in 2D blocks, software-
// pipelined: each thread loads p(k+2) and div(k+1) of its column one level before it needs them, so two
// levels' DRAM loads are in flight per thread. Why: in float a level gives a thread only 8 new bytes to
// wait for, perhaps too few to cover DRAM latency (docs/performance-notes.md, experiment 7 and "What
// the counters say").
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

// The point's neighbours from global memory, except p(0,0,+1), already in a register.
template <class T>
struct AboveInRegister {
  ReadOnlyAt<T> p;
  T above;
  __device__ T operator()(int di, int dj, int dk) const { return dk == 1 && di == 0 && dj == 0 ? above : p(di, dj, dk); }
};

template <class T>
__global__ void jacobi_prefetch_kernel(JacobiPoint<T> op, int k_begin, int k_end, int sz) {
  const Grid g = op.g;
  const int i = 1 + int(blockIdx.x * blockDim.x + threadIdx.x);
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (i > g.nx || j > g.ny) return;
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  const std::size_t column = g.idx(i, j, 0);
  const std::ptrdiff_t s = g.sz();
  T above = __ldg(op.p + column + (k0 + 1) * s);
  T div = __ldg(op.div + column + k0 * s);
  for (int k = k0; k < k1; ++k) {
    // Next level's loads first: they fly while this level is computed and stored.
    const T next_above = k + 2 < g.NZ() ? __ldg(op.p + column + (k + 2) * s) : T(0);
    const T next_div = k + 1 < k1 ? __ldg(op.div + column + (k + 1) * s) : T(0);
    const std::size_t n = column + k * s;
    op.p_new[n] = jacobi_point(AboveInRegister<T>{point_at<T>(op.p, g, n), above}, div, op.dti, op.coef);
    above = next_above;
    div = next_div;
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const ZWalk w = z_walk(c, "pressure/jacobi_global_2d_prefetch");
  if (w.empty()) return;
  jacobi_prefetch_kernel<T><<<w.grid, w.block, 0, stream_of(c.exec)>>>(JacobiPoint<T>(c), c.zr.k_begin, c.zr.k_end,
                                                                        w.sz);
  NSB_LAUNCHED("jacobi_prefetch_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_2d_prefetch",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"pipelining", "software"}},
    .tunings = {parse_tuning("bx128_by2_sz16"), parse_tuning("bx64_by4_sz16"), parse_tuning("bx32_by8_sz8"),
                parse_tuning("bx64_by4_sz32"), parse_tuning("bx128_by2_sz32"), parse_tuning("bx32_by4_sz16"),
                parse_tuning("bx256_by1_sz32")},
    .status = "negative: float 76.8% against 78.1% for the plain walk; the sweep is not short of loads in flight "
              "(experiment 7)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"jacobi_prefetch_kernel<float>", (const void*)&jacobi_prefetch_kernel<float>, 4},
                {"jacobi_prefetch_kernel<double>", (const void*)&jacobi_prefetch_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
