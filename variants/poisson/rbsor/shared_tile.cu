// poisson/rbsor/shared_tile: a block of bx x by threads owns 2 bx x by columns (a red and a black point
// per thread and level) and marches up its sz levels; at each level the block copies the plane's tile
// with its ring, (2 bx + 2) x (by + 2) values of x, into shared memory, and each thread relaxes its
// point of the colour from there (the levels below and above from global memory: the other colour,
// which this pass does not write). The ghost layer after each colour.
#include "poisson/poisson_ops.cuh"
#include "poisson/rbsor/rbsor_tunings.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void rbsor_shared_kernel(PoissonArgs<T> c, int colour, int sz) {
  extern __shared__ unsigned char tile_bytes[];
  T* tile = reinterpret_cast<T*>(tile_bytes);
  const Grid& g = c.grid;
  const int width = 2 * int(blockDim.x) + 2, height = int(blockDim.y) + 2;
  const int i0 = 1 + 2 * int(blockIdx.x * blockDim.x), j0 = 1 + int(blockIdx.y * blockDim.y);  // first owned
  const int j = j0 + int(threadIdx.y), ia = i0 + 2 * int(threadIdx.x);
  const int k0 = 1 + int(blockIdx.z) * sz, k1 = min(k0 + sz, g.nz + 1);
  const int threads = int(blockDim.x * blockDim.y), me = int(threadIdx.x + threadIdx.y * blockDim.x);
  for (int k = k0; k < k1; ++k) {
    __syncthreads();  // the previous level's tile is read
    for (int e = me; e < width * height; e += threads) {
      const int u = e % width, v = e / width;
      const int ii = i0 - 1 + u, jj = j0 - 1 + v;
      if (ii <= g.nx + 1 && jj <= g.ny + 1) tile[e] = c.x[g.idx(ii, jj, k)];
    }
    __syncthreads();
    const int i = ia + ((ia + j + k + colour) & 1);  // (i + j + k) & 1 == colour
    if (i > g.nx || j > g.ny) continue;
    const int u = i - (i0 - 1), v = j - (j0 - 1);
    const T* t = tile + v * width + u;
    const std::size_t n = g.idx(i, j, k);
    const T neighbours = (t[-1] + t[1]) * c.coef.cx + (t[-width] + t[width]) * c.coef.cy +
                         (c.x[n - g.sz()] + c.x[n + g.sz()]) * c.coef.cz;
    c.x[n] = rbsor_relax(c, t[0], neighbours, c.rhs[n], poisson_jacobi_diagonal(g, c.faces, c.coef, i, j, k));
  }
}

template <class T>
void run(const PoissonCall<T>& c) {
  const PoissonWalk w = poisson_walk(c, (c.grid.nx + 1) / 2, "poisson/rbsor/shared_tile");
  const std::size_t bytes = std::size_t(2 * w.block.x + 2) * (w.block.y + 2) * sizeof(T);
  for (int colour = 0; colour < 2; ++colour) {
    if (!w.empty()) {
      rbsor_shared_kernel<<<w.grid, w.block, bytes, stream_of(c.exec)>>>(PoissonArgs<T>(c), colour, w.sz);
      NSB_LAUNCHED("rbsor_shared_kernel");
    }
    poisson_launch_faces(c, c.x);
  }
}

const Registrar reg{Variant{
    .stage = "poisson/rbsor",
    .name = "shared_tile",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "2d"}},
    .tunings = rbsor_tunings(),
    .status = "shared-memory tiles of each level (x-y neighbours from shared memory)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"rbsor_shared_kernel<float>", (const void*)&rbsor_shared_kernel<float>, 4},
                {"rbsor_shared_kernel<double>", (const void*)&rbsor_shared_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
