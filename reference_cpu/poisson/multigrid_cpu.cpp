// Multigrid's kernels on the CPU (stage kinds poisson/mg_*, multigrid_call.hpp): the correctness
// reference of every GPU variant, and with them the CPU multigrid (method mg on --backend cpu_*).
// cpu_serial and cpu_omp are the same loops with the OpenMP region off or on; every point is computed
// alone (a colour of red-black Gauss-Seidel reads only the other colour), so the two agree bit for bit,
// and the sums are taken per z-plane and added in plane order by both.
#include <omp.h>

#include <algorithm>
#include <vector>

#include "poisson/multigrid_call.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

int threads_of(const Exec& e) { return e.threads > 0 ? e.threads : omp_get_max_threads(); }

// Levels below this many points run serially under cpu_omp too: waking the threads costs more than the
// work on the coarse levels (the results are the same either way, as every point is computed alone).
constexpr std::size_t kOmpMinPoints = 4096;  // 16^3
bool parallel_on(const MgCallBase& c) {
  return c.exec.backend == Backend::cpu_omp && c.grid.interior_points() >= kOmpMinPoints;
}

// f(i, j, k, n) at every interior point of levels zr, in parallel over z with OpenMP.
template <class F>
void for_interior(const MgCallBase& c, const F& f) {
  const Grid g = c.grid;
  const bool parallel = parallel_on(c);
#pragma omp parallel for schedule(static) num_threads(threads_of(c.exec)) if (parallel)
  for (int k = c.zr.k_begin; k < c.zr.k_end; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) f(i, j, k, g.idx(i, j, k));
}

template <class T>
void ghosts_on(T* a, const Grid& g, const PoissonFaces& faces) {
  const long long shell = mg_shell_points(g);
  for (long long t = 0; t < shell; ++t) {
    int i, j, k;
    mg_shell_point(g, t, i, j, k);
    a[g.idx(i, j, k)] = mg_ghost_value(a, g, faces, i, j, k);
  }
}

template <class T>
void ghosts(const MgGhostsCall<T>& c) {
  ghosts_on(c.a, c.grid, c.faces);  // a shell is small next to a sweep: serial
}

template <class T>
void jacobi(const MgJacobiCall<T>& c) {
  const MgCoef<T> coef = make_mg_coef<T>(c.grid);
  const std::ptrdiff_t sy = c.grid.sy(), sz = c.grid.sz();
  for_interior(c, [&](int, int, int, std::size_t n) { c.out[n] = mg_jacobi_point(c.p, n, sy, sz, c.f[n], coef, c.omega); });
}

template <class T>
void colour_sweep(T* p, const T* f, const MgCallBase& c, int colour, T omega = T(1)) {
  const MgCoef<T> coef = make_mg_coef<T>(c.grid);
  const std::ptrdiff_t sy = c.grid.sy(), sz = c.grid.sz();
  for_interior(c, [&](int i, int j, int k, std::size_t n) {
    if (mg_has_colour(i, j, k, colour)) p[n] = mg_rbgs_point(p, n, sy, sz, f[n], coef, omega);
  });
}

template <class T>
void rbgs(const MgRbgsCall<T>& c) {
  colour_sweep(c.p, c.f, c, c.colour, c.omega);
}

template <class T>
void residual(const MgResidualCall<T>& c) {
  const MgCoef<T> coef = make_mg_coef<T>(c.grid);
  const std::ptrdiff_t sy = c.grid.sy(), sz = c.grid.sz();
  for_interior(c, [&](int, int, int, std::size_t n) { c.r[n] = mg_residual_point(c.p, n, sy, sz, c.f[n], coef); });
}

template <class T>
void restrict_to_coarse(const MgRestrictCall<T>& c) {
  for_interior(c, [&](int I, int J, int K, std::size_t n) { c.coarse_f[n] = mg_restrict_point(c.fine_r, c.fine, I, J, K); });
}

template <class T>
void residual_restrict(const MgResidualRestrictCall<T>& c) {
  const MgCoef<T> coef = make_mg_coef<T>(c.fine);
  for_interior(c, [&](int I, int J, int K, std::size_t n) {
    c.coarse_f[n] = mg_residual_restrict_point(c.p, c.f, c.fine, coef, I, J, K);
  });
}

template <class T>
void prolong(const MgProlongCall<T>& c) {
  for_interior(c, [&](int i, int j, int k, std::size_t n) { c.fine_e[n] += mg_prolong_point(c.coarse_e, c.coarse, i, j, k); });
}

// The coarsest level: the GPU variant's sweeps in the same order (red, ghosts, black, ghosts).
template <class T>
void coarse(const MgCoarseCall<T>& c) {
  MgCallBase serial = c;
  serial.exec.backend = Backend::cpu_serial;  // at most kMgCoarsestMaxCells points: not worth threads
  serial.zr = ZRange::interior(c.grid);
  for (int s = 0; s < c.sweeps; ++s)
    for (int colour = 0; colour < 2; ++colour) {
      colour_sweep(c.e, c.f, serial, colour);
      ghosts_on(c.e, c.grid, c.faces);
    }
}

template <class T>
void sums(const MgSumsCall<T>& c) {
  const Grid g = c.grid;
  std::vector<double> plane(std::size_t(g.nz) * 2, 0.0);
  const bool parallel = parallel_on(c);
#pragma omp parallel for schedule(static) num_threads(threads_of(c.exec)) if (parallel)
  for (int k = 1; k <= g.nz; ++k) {
    double s = 0, s2 = 0;
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const double v = double(c.a[g.idx(i, j, k)]);
        s += v, s2 += v * v;
      }
    plane[2 * std::size_t(k - 1)] = s, plane[2 * std::size_t(k - 1) + 1] = s2;
  }
  double s = 0, s2 = 0;
  for (int k = 0; k < g.nz; ++k) s += plane[2 * std::size_t(k)], s2 += plane[2 * std::size_t(k) + 1];
  c.sums[0] = s, c.sums[1] = s2;
}

template <class T>
void shift(const MgShiftCall<T>& c) {
  const T by = c.sums ? T(double(c.scale) * c.sums[0] / double(c.grid.interior_points())) : T(0);
  for_interior(c, [&](int, int, int, std::size_t n) { c.out[n] = c.scale * c.in[n] - by; });
}

template <class Call>
void register_cpu(const char* stage, void (*run_float)(const Call&), auto run_double) {
  for (Backend b : {Backend::cpu_serial, Backend::cpu_omp}) {
    Registry::instance().add(cpu_reference_variant(stage, b, run_float, run_double));
  }
}

const bool registered = [] {
  register_cpu("poisson/mg_ghosts", &ghosts<float>, &ghosts<double>);
  register_cpu("poisson/mg_jacobi", &jacobi<float>, &jacobi<double>);
  register_cpu("poisson/mg_rbgs", &rbgs<float>, &rbgs<double>);
  register_cpu("poisson/mg_residual", &residual<float>, &residual<double>);
  register_cpu("poisson/mg_restrict", &restrict_to_coarse<float>, &restrict_to_coarse<double>);
  register_cpu("poisson/mg_residual_restrict", &residual_restrict<float>, &residual_restrict<double>);
  register_cpu("poisson/mg_prolong", &prolong<float>, &prolong<double>);
  register_cpu("poisson/mg_coarse", &coarse<float>, &coarse<double>);
  register_cpu("poisson/mg_sums", &sums<float>, &sums<double>);
  register_cpu("poisson/mg_shift", &shift<float>, &shift<double>);
  return true;
}();

}  // namespace
}  // namespace nsb
