// poisson/mg_coarse/shared_block: the coarsest level's solve in one block: the whole padded level in
// shared memory (at most kMgCoarsestMaxCells cells), `sweeps` red-black Gauss-Seidel sweeps, each colour
// followed by the ghost shell, then the level written back. One launch, where a sweep of separate
// kernels would cost four launches on a grid of a few hundred points.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void coarse_block_kernel(T* e, const T* f, Grid g, PoissonFaces faces, MgCoef<T> coef, int sweeps) {
  extern __shared__ unsigned char smem[];
  T* s = reinterpret_cast<T*>(smem);
  const long long padded = (long long)g.padded_points(), points = (long long)g.interior_points();
  const long long shell = mg_shell_points(g);
  for (long long n = threadIdx.x; n < padded; n += blockDim.x) s[n] = e[n];
  __syncthreads();
  for (int sweep = 0; sweep < sweeps; ++sweep)
    for (int colour = 0; colour < 2; ++colour) {
      for (long long t = threadIdx.x; t < points; t += blockDim.x) {
        int i, j, k;
        mg_interior_point(g, t, i, j, k);
        const std::size_t n = g.idx(i, j, k);
        if (mg_has_colour(i, j, k, colour)) s[n] = mg_gauss_seidel_point(s, n, g.sy(), g.sz(), f[n], coef);
      }
      __syncthreads();
      for (long long t = threadIdx.x; t < shell; t += blockDim.x) {
        int i, j, k;
        mg_shell_point(g, t, i, j, k);
        s[g.idx(i, j, k)] = mg_ghost_value(s, g, faces, i, j, k);
      }
      __syncthreads();
    }
  for (long long n = threadIdx.x; n < padded; n += blockDim.x) e[n] = s[n];
}

template <class T>
void run(const MgCoarseCall<T>& c) {
  if ((long long)c.grid.interior_points() > kMgCoarsestMaxCells)
    throw std::runtime_error("poisson/mg_coarse/shared_block: a coarsest level of " + std::to_string(c.grid.interior_points()) +
                             " cells; it takes at most " + std::to_string(kMgCoarsestMaxCells));
  const std::size_t bytes = c.grid.padded_points() * sizeof(T);
  const unsigned threads = std::min(512u, ceil_div((long long)c.grid.interior_points(), 32) * 32u);
  coarse_block_kernel<<<1, threads, bytes, stream_of(c.exec)>>>(c.e, c.f, c.grid, c.faces, make_mg_coef<T>(c.grid), c.sweeps);
  NSB_LAUNCHED("coarse_block_kernel");
}

const Registrar reg{Variant{
    .stage = "poisson/mg_coarse",
    .name = "shared_block",
    .backend = Backend::cuda,
    .tags = {{"memory", "shared"}, {"cta", "1d"}},
    .status = "the coarsest-level solve (one block; latency-bound by design)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"coarse_block_kernel<float>", (const void*)&coarse_block_kernel<float>, 4},
                {"coarse_block_kernel<double>", (const void*)&coarse_block_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
