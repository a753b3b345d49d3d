// pressure/jacobi_register_zmarch: 2.5D Jacobi. A bx x by block marches up a chunk of sz levels
// (0: the whole column); each thread keeps p(k-1) and p(k+1) of its own column in registers and only
// the plane p(k), with a one-point halo, goes through shared memory for the x and y neighbours. Every
// value of p is read from global memory once (plus the plane halos), which is the streaming minimum.
#include "common/tiles.cuh"
#include "projection/point_ops.hpp"

namespace nsb {
namespace {

// Neighbours of the point: x and y from the shared plane, z from the thread's registers.
template <class T>
struct ColumnAt {
  const T* plane;
  int sy;
  T below, above;
  NSB_HD T operator()(int di, int dj, int dk) const {
    return dk < 0 ? below : (dk > 0 ? above : plane[di + dj * sy]);
  }
};

// Loads the one-point ring around a (tx-2) x (ty-2) plane of level k into shared memory.
template <class T>
__device__ inline void load_plane_halo(T* plane, const T* __restrict__ p, const Grid& g, int i0, int j0, int k, int tx,
                                       int ty) {
  const int ring = 2 * tx + 2 * (ty - 2);
  for (int t = threadIdx.x + threadIdx.y * blockDim.x; t < ring; t += blockDim.x * blockDim.y) {
    int a, b;
    if (t < tx) a = t, b = 0;
    else if (t < 2 * tx) a = t - tx, b = ty - 1;
    else a = (t - 2 * tx) % 2 ? tx - 1 : 0, b = 1 + (t - 2 * tx) / 2;
    const int i = i0 + a, j = j0 + b;
    if (i < g.NX() && j < g.NY()) plane[a + b * tx] = p[g.idx(i, j, k)];
  }
}

template <class T>
__global__ void jacobi_zmarch_kernel(JacobiPoint<T> op, int k_begin, int k_end, int sz) {
  extern __shared__ unsigned char smem[];
  const Grid g = op.g;
  const int tx = blockDim.x + 2, ty = blockDim.y + 2;
  T* plane = reinterpret_cast<T*>(smem);
  const int i0 = 1 + int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);
  const int k0 = k_begin + int(blockIdx.z) * sz;
  const int k1 = min(k0 + sz, k_end);
  const int i = i0 + int(threadIdx.x), j = j0 + int(threadIdx.y);
  const bool inside = i <= g.nx && j <= g.ny;
  // In a partial block the threads just past the interior hold the ghost column for their neighbours.
  const bool holds_column = i < g.NX() && j < g.NY();
  const int c = (threadIdx.x + 1) + (threadIdx.y + 1) * tx;
  const T* __restrict__ p = op.p;
  // The thread's column in registers: p(k-1), p(k), p(k+1), with p(k+2) and div(k+1) loaded one level
  // ahead so that their latency hides behind this level's work (software pipelining).
  const std::size_t column = g.idx(min(i, g.NX() - 1), min(j, g.NY() - 1), 0);
  const std::ptrdiff_t sz_stride = g.sz();
  auto at = [&](const T* f, int k) { return holds_column && k < g.NZ() ? __ldg(f + column + k * sz_stride) : T(0); };
  T below = at(p, k0 - 1), centre = at(p, k0), above = at(p, k0 + 1);
  T div = inside ? at(op.div, k0) : T(0);
  for (int k = k0; k < k1; ++k) {
    const T next_above = at(p, k + 2);
    const T next_div = inside && k + 1 < k1 ? at(op.div, k + 1) : T(0);
    if (holds_column) plane[c] = centre;
    load_plane_halo(plane, p, g, i0 - 1, j0 - 1, k, tx, ty);
    __syncthreads();
    if (inside) op.p_new[column + k * sz_stride] = jacobi_point(ColumnAt<T>{plane + c, tx, below, above}, div, op.dti, op.coef);
    below = centre, centre = above, above = next_above, div = next_div;
    __syncthreads();  // the plane is overwritten with the next level
  }
}

template <class T>
void run(const StageCall<T>& c) {
  const Tuning& t = c.tuning;
  const ZWalk walk = z_walk(c, "pressure/jacobi_register_zmarch");
  if (walk.empty()) return;
  const int sz = walk.sz;
  const std::size_t shared = std::size_t(t.bx + 2) * (t.by + 2) * sizeof(T);
  jacobi_zmarch_kernel<T><<<walk.grid, walk.block, shared, stream_of(c.exec)>>>(JacobiPoint<T>(c), c.zr.k_begin,
                                                                                c.zr.k_end, sz);
  NSB_LAUNCHED("jacobi_zmarch_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_register_zmarch",
    .backend = Backend::cuda,
    .tags = {{"memory", "register"}, {"cta", "2d"}, {"traversal", "zmarch"}},
    .tunings = {parse_tuning("bx32_by8_sz32"), parse_tuning("bx32_by8_sz16"), parse_tuning("bx32_by4_sz32"),
                parse_tuning("bx64_by4_sz32"), parse_tuning("bx32_by8_sz64"), parse_tuning("bx16_by16_sz32")},
    .status = "in the `modern` recipe; 2.5D: a register column and one shared plane (no measurement in "
              "docs/performance-notes.md)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"jacobi_zmarch_kernel<float>", (const void*)&jacobi_zmarch_kernel<float>, 4},
                {"jacobi_zmarch_kernel<double>", (const void*)&jacobi_zmarch_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
