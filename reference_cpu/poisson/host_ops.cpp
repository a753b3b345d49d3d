// The Poisson family's whole-grid host operations (host_ops.hpp), serial or OpenMP.
#include "poisson/host_ops.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "poisson/formulas.hpp"

namespace nsb {

template <class T>
void apply_faces_host(T* p, const Grid& g, const PoissonFaces& f, int threads) {
  (void)threads;  // a face is small next to a sweep: serial
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j) poisson_ghost_pair(p, g.idx(0, j, k), 1, g.nx, f.face[0][0], f.face[0][1]);
  for (int k = 0; k < g.NZ(); ++k)
    for (int i = 0; i < g.NX(); ++i) poisson_ghost_pair(p, g.idx(i, 0, k), g.sy(), g.ny, f.face[1][0], f.face[1][1]);
  for (int j = 0; j < g.NY(); ++j)
    for (int i = 0; i < g.NX(); ++i) poisson_ghost_pair(p, g.idx(i, j, 0), g.sz(), g.nz, f.face[2][0], f.face[2][1]);
}

template <class T>
void residual_host(T* r, const T* p, const T* rhs, T rhs_scale, const Grid& g, int threads) {
  const PoissonCoef<T> c = make_poisson_coef<T>(g);
#pragma omp parallel for collapse(2) num_threads(threads) if (threads > 1)
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = g.idx(i, j, k);
        r[n] = rhs_scale * rhs[n] - poisson_apply(p, n, g.sy(), g.sz(), c);
      }
}

namespace {
template <class T, class F>
double interior_sum(const T* a, const Grid& g, int threads, F term) {
  double s = 0;
#pragma omp parallel for collapse(2) reduction(+ : s) num_threads(threads) if (threads > 1)
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) s += term(double(a[g.idx(i, j, k)]));
  return s;
}
}  // namespace

template <class T>
double interior_rms(const T* a, const Grid& g, int threads) {
  return std::sqrt(interior_sum(a, g, threads, [](double x) { return x * x; }) / double(g.interior_points()));
}

template <class T>
double interior_mean(const T* a, const Grid& g, int threads) {
  return interior_sum(a, g, threads, [](double x) { return x; }) / double(g.interior_points());
}

template <class T>
void subtract_interior(T* a, double c, const Grid& g, int threads) {
#pragma omp parallel for collapse(2) num_threads(threads) if (threads > 1)
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) a[g.idx(i, j, k)] = T(a[g.idx(i, j, k)] - c);
}

namespace {
// One axis's factor of the manufactured solution: value and second derivative at x in [0, L].
struct AxisMode {
  double k = 0;  // wavenumber
  bool cosine = false;
};
AxisMode axis_mode(PoissonFace lo, PoissonFace hi, double length, const char* axis) {
  if (lo != hi)
    throw std::invalid_argument(std::string("manufactured Poisson problem: the ") + axis + " faces are " +
                                poisson_face_name(lo) + " and " + poisson_face_name(hi) + "; it needs a pair of one type");
  const double pi = std::acos(-1.0);
  if (lo == PoissonFace::neumann) return {pi / length, true};
  if (lo == PoissonFace::dirichlet) return {pi / length, false};
  return {2 * pi / length, false};
}
}  // namespace

template <class T>
ManufacturedPoisson<T> manufactured_poisson(const Grid& g, const PoissonFaces& f) {
  const AxisMode m[3] = {axis_mode(f.face[0][0], f.face[0][1], g.lx, "x"),
                         axis_mode(f.face[1][0], f.face[1][1], g.ly, "y"),
                         axis_mode(f.face[2][0], f.face[2][1], g.lz, "z")};
  const double h[3] = {g.dx(), g.dy(), g.dz()};
  auto factor = [&](int a, int i) {
    const double x = (i - 0.5) * h[a];
    return m[a].cosine ? std::cos(m[a].k * x) : std::sin(m[a].k * x);
  };
  const double lap = -(m[0].k * m[0].k + m[1].k * m[1].k + m[2].k * m[2].k);
  ManufacturedPoisson<T> out{std::vector<T>(g.padded_points(), T(0)), std::vector<T>(g.padded_points(), T(0))};
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const double v = factor(0, i) * factor(1, j) * factor(2, k);
        out.exact[g.idx(i, j, k)] = T(v);
        out.rhs[g.idx(i, j, k)] = T(lap * v);
      }
  // A product with a cosine or periodic sine factor has zero mean on the cell centres already.
  return out;
}

#define NSB_POISSON_HOST_OPS(T)                                                                   \
  template void apply_faces_host<T>(T*, const Grid&, const PoissonFaces&, int);                \
  template void residual_host<T>(T*, const T*, const T*, T, const Grid&, int);                 \
  template double interior_rms<T>(const T*, const Grid&, int);                                 \
  template double interior_mean<T>(const T*, const Grid&, int);                                \
  template void subtract_interior<T>(T*, double, const Grid&, int);                            \
  template ManufacturedPoisson<T> manufactured_poisson<T>(const Grid&, const PoissonFaces&);
NSB_POISSON_HOST_OPS(float)
NSB_POISSON_HOST_OPS(double)

}  // namespace nsb
