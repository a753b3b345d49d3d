// pressure/jacobi_global_2d_pairs: the thesis's 2D z-walk, but each thread updates two neighbouring
// points along x with 8- (float) or 16-byte (double) loads and stores. Why: if a float sweep (12 bytes
// a point for ~25 instructions) were short of instruction issue, a pair needs 8 loads instead of 14 and
// one store instead of two (docs/performance-notes.md, experiment 10).
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

template <class T>
struct Pair;
template <>
struct Pair<float> {
  using type = float2;
};
template <>
struct Pair<double> {
  using type = double2;
};

template <class T>
__device__ inline typename Pair<T>::type load_pair(const T* p, bool aligned) {
  if (aligned) return __ldg(reinterpret_cast<const typename Pair<T>::type*>(p));
  return {__ldg(p), __ldg(p + 1)};
}

// The six neighbours of one point, for the shared Jacobi formula.
template <class T>
struct Neighbours {
  T xm, xp, ym, yp, zm, zp;
  __device__ T operator()(int di, int dj, int dk) const {
    return di < 0 ? xm : di > 0 ? xp : dj < 0 ? ym : dj > 0 ? yp : dk < 0 ? zm : zp;
  }
};

template <class T>
__global__ void jacobi_pairs_kernel(JacobiPoint<T> op, int k_begin, int k_end, int sz) {
  const Grid g = op.g;
  const int j = 1 + int(blockIdx.y * blockDim.y + threadIdx.y);
  if (j > g.ny) return;
  const int pair = int(blockIdx.x * blockDim.x + threadIdx.x);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  const std::ptrdiff_t sy = g.sy(), sz_stride = g.sz();
  const bool y_aligned = sy % 2 == 0, z_aligned = sz_stride % 2 == 0;
#pragma unroll 2
  for (int k = k0; k < k1; ++k) {
    const std::size_t row = g.idx(0, j, k);
    const int i = 2 * pair - int(row & 1);  // row + i is even
    if (i > g.nx || i + 1 < 1) continue;
    const std::size_t n = row + std::size_t(std::ptrdiff_t(i));
    const T* p = op.p + n;
    const auto c = load_pair(p, true);
    const auto ym = load_pair(p - sy, y_aligned), yp = load_pair(p + sy, y_aligned);
    const auto zm = load_pair(p - sz_stride, z_aligned), zp = load_pair(p + sz_stride, z_aligned);
    const auto d = load_pair(op.div + n, true);
    const T left = __ldg(p - 1), right = __ldg(p + 2);
    const T a = jacobi_point(Neighbours<T>{left, c.y, ym.x, yp.x, zm.x, zp.x}, d.x, op.dti, op.coef);
    const T b = jacobi_point(Neighbours<T>{c.x, right, ym.y, yp.y, zm.y, zp.y}, d.y, op.dti, op.coef);
    T* out = op.p_new + n;
    if (i >= 1 && i + 1 <= g.nx) *reinterpret_cast<typename Pair<T>::type*>(out) = {a, b};
    else if (i >= 1) out[0] = a;
    else out[1] = b;
  }
}

template <class T>
void run(const StageCall<T>& c) {
  ZWalk w = z_walk(c, "pressure/jacobi_global_2d_pairs");
  if (w.empty()) return;
  const int pairs = (c.grid.nx + 1) / 2 + 1;  // enough for either parity of a row's first index
  w.grid.x = ceil_div(pairs, c.tuning.bx);
  jacobi_pairs_kernel<T><<<w.grid, w.block, 0, stream_of(c.exec)>>>(JacobiPoint<T>(c), c.zr.k_begin, c.zr.k_end, w.sz);
  NSB_LAUNCHED("jacobi_pairs_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_global_2d_pairs",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"points_per_thread", "2"}, {"access", "vector2"}},
    .tunings = {parse_tuning("bx32_by8_sz8"), parse_tuning("bx64_by4_sz16"), parse_tuning("bx32_by4_sz16"),
                parse_tuning("bx64_by2_sz16"), parse_tuning("bx128_by2_sz16"), parse_tuning("bx32_by8_sz32")},
    .status = "negative: float 66.2% against 78.0% for the z-loop; the sweep waits on memory, not on issue "
              "(experiment 10)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"jacobi_pairs_kernel<float>", (const void*)&jacobi_pairs_kernel<float>, 4},
                {"jacobi_pairs_kernel<double>", (const void*)&jacobi_pairs_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
