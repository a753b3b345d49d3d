// poisson/mg_ghosts/global_shell: the ghost shell of one level in one pass, a thread a ghost point over
// the shell enumerated as one range (mg_shell_point); each ghost takes its composed face rule from an
// interior value (mg_ghost_value), so no ghost reads another and one launch does all six faces.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void ghost_shell_kernel(T* a, Grid g, PoissonFaces faces, long long shell) {
  for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < shell; t += (long long)gridDim.x * blockDim.x) {
    int i, j, k;
    mg_shell_point(g, t, i, j, k);
    a[g.idx(i, j, k)] = mg_ghost_value(a, g, faces, i, j, k);
  }
}

template <class T>
void run(const MgGhostsCall<T>& c) {
  check_block(c.tuning.bx, "poisson/mg_ghosts/global_shell");
  const long long shell = mg_shell_points(c.grid);
  const unsigned blocks = std::min(ceil_div(shell, c.tuning.bx), 8192u);
  ghost_shell_kernel<<<blocks, c.tuning.bx, 0, stream_of(c.exec)>>>(c.a, c.grid, c.faces, shell);
  NSB_LAUNCHED("ghost_shell_kernel");
}

const Registrar reg{Variant{
    .stage = "poisson/mg_ghosts",
    .name = "global_shell",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = {parse_tuning("b256"), parse_tuning("b128")},
    .status = "global-memory baseline (the x faces are strided reads: a shell pass is small next to a sweep)",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"ghost_shell_kernel<float>", (const void*)&ghost_shell_kernel<float>, 4},
                {"ghost_shell_kernel<double>", (const void*)&ghost_shell_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
