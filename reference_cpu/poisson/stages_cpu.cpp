// The Poisson family's iterative stages on the CPU (stage_call.hpp): the correctness reference of every
// GPU variant. cpu_serial and cpu_omp are the same loops with the OpenMP region off or on. Sums are
// compensated (Kahan) per thread, so the reference's own rounding stays near one unit of double and a
// GPU variant's summation order is what verify measures.
#include <omp.h>

#include <array>

#include "poisson/stage_call.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

struct Kahan {
  double sum = 0, carry = 0;
  void add(double v) {
    const double y = v - carry, t = sum + y;
    carry = (t - sum) - y;
    sum = t;
  }
};
using Sums = std::array<double, 2>;

template <class T>
int threads_of(const PoissonCall<T>& c) {
  if (c.exec.backend != Backend::cpu_omp) return 1;
  return c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
}

// f(i, j, k, n) at every interior point.
template <class T, class F>
void for_interior(const PoissonCall<T>& c, F f) {
  const Grid g = c.grid;
  const int threads = threads_of(c);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (threads > 1)
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) f(i, j, k, g.idx(i, j, k));
}

// The sums of f(i, j, k, n) (two terms) over interior points, compensated per thread.
template <class T, class F>
Sums sum_interior(const PoissonCall<T>& c, F f) {
  const Grid g = c.grid;
  const int threads = threads_of(c);
  Sums total{0, 0};
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    Kahan s0, s1;
#pragma omp for collapse(2) schedule(static)
    for (int k = 1; k <= g.nz; ++k)
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
          const Sums v = f(i, j, k, g.idx(i, j, k));
          s0.add(v[0]);
          s1.add(v[1]);
        }
#pragma omp critical
    total[0] += s0.sum, total[1] += s1.sum;
  }
  return total;
}

template <class T>
void ghosts(const PoissonCall<T>& c, T* a) {
  const Grid g = c.grid;
  const PoissonFaces& f = c.faces;
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j) poisson_ghost_pair(a, g.idx(0, j, k), 1, g.nx, f.face[0][0], f.face[0][1]);
  for (int k = 0; k < g.NZ(); ++k)
    for (int i = 0; i < g.NX(); ++i) poisson_ghost_pair(a, g.idx(i, 0, k), g.sy(), g.ny, f.face[1][0], f.face[1][1]);
  for (int j = 0; j < g.NY(); ++j)
    for (int i = 0; i < g.NX(); ++i) poisson_ghost_pair(a, g.idx(i, j, 0), g.sz(), g.nz, f.face[2][0], f.face[2][1]);
}

template <class T>
void faces(const PoissonCall<T>& c) {
  if (c.shift != T(0)) for_interior(c, [&](int, int, int, std::size_t n) { c.x[n] -= c.shift; });
  ghosts(c, c.x);
}

template <class T>
void residual(const PoissonCall<T>& c) {
  const Grid& g = c.grid;
  const Sums s = sum_interior(c, [&](int, int, int, std::size_t n) -> Sums {
    const T r = c.rhs_scale * (c.rhs[n] - c.rhs_shift) - poisson_apply(c.x, n, g.sy(), g.sz(), c.coef);
    c.r[n] = r;
    return {double(r) * double(r), 0};
  });
  c.out[0] = s[0];
}

template <class T>
void jacobi_sweep(const PoissonCall<T>& c) {
  const Grid& g = c.grid;
  for_interior(c, [&](int, int, int, std::size_t n) {
    c.p[n] = (poisson_neighbours(c.x, n, g.sy(), g.sz(), c.coef) - c.rhs_scale * (c.rhs[n] - c.rhs_shift)) / c.coef.diag;
  });
}

template <class T>
void rbsor(const PoissonCall<T>& c) {
  for (int colour = 0; colour < 2; ++colour) {
    for_interior(c, [&](int i, int j, int k, std::size_t n) {
      if (rb_colour(i, j, k) == colour) c.x[n] = rbsor_point(c, i, j, k, n);
    });
    ghosts(c, c.x);
  }
}

template <class T>
void dot(const PoissonCall<T>& c) {
  const Sums s = sum_interior(c, [&](int, int, int, std::size_t n) -> Sums {
    return {c.b ? double(c.a[n]) * double(c.b[n]) : double(c.a[n]), 0};
  });
  c.out[0] = s[0];
}

template <class T>
void apply_dot(const PoissonCall<T>& c) {
  const Grid& g = c.grid;
  const Sums s = sum_interior(c, [&](int, int, int, std::size_t n) -> Sums {
    const T q = poisson_apply(c.p, n, g.sy(), g.sz(), c.coef);
    c.q[n] = q;
    return {double(c.p[n]) * double(q), 0};
  });
  c.out[0] = s[0];
}

template <class T>
void cg_update(const PoissonCall<T>& c) {
  const T alpha = T(cg_alpha_of(c.rz, c.pq, c.stop));
  const Sums s = sum_interior(c, [&](int i, int j, int k, std::size_t n) -> Sums {
    c.x[n] += alpha * c.p[n];
    const T r = c.r[n] - alpha * c.q[n];
    c.r[n] = r;
    const T z = cg_multiplier(c, i, j, k) * r;
    return {double(r) * double(z), double(r) * double(r)};
  });
  c.out[0] = s[0], c.out[1] = s[1];
}

template <class T>
void cg_direction(const PoissonCall<T>& c) {
  const T beta = c.rz_prev ? T(*c.rz / *c.rz_prev) : T(0);
  for_interior(c, [&](int i, int j, int k, std::size_t n) { c.p[n] = cg_multiplier(c, i, j, k) * c.r[n] + beta * c.p[n]; });
  ghosts(c, c.p);
}

template <class T>
void cg_check(const PoissonCall<T>& c) {
  cg_check_step<T>(c);
}

// The rbsor reference carries the GPU variants' omegas (the method reads omega from the chosen
// tuning, whatever the backend; the reference's own tuning list is what verify runs it with).
std::vector<Tuning> omega_tunings() {
  std::vector<Tuning> t;
  for (const char* name : {"w190", "w100", "w150", "w170", "w180", "w195", "w198"}) t.push_back(parse_tuning(name));
  return t;
}

template <void (*F)(const PoissonCall<float>&), void (*D)(const PoissonCall<double>&)>
void add(const char* stage, Backend b) {
  Variant v = cpu_reference_variant(std::string("poisson/") + stage, b, F, D);
  if (v.stage == "poisson/rbsor") v.tunings = omega_tunings();
  Registry::instance().add(std::move(v));
}

template <void (*F)(const PoissonCall<float>&), void (*D)(const PoissonCall<double>&)>
void add_both(const char* stage) {
  add<F, D>(stage, Backend::cpu_serial);
  add<F, D>(stage, Backend::cpu_omp);
}

const bool registered = [] {
  add_both<&faces<float>, &faces<double>>("faces");
  add_both<&residual<float>, &residual<double>>("residual");
  add_both<&jacobi_sweep<float>, &jacobi_sweep<double>>("jacobi_sweep");
  add_both<&rbsor<float>, &rbsor<double>>("rbsor");
  add_both<&dot<float>, &dot<double>>("dot");
  add_both<&apply_dot<float>, &apply_dot<double>>("apply_dot");
  add_both<&cg_update<float>, &cg_update<double>>("cg_update");
  add_both<&cg_direction<float>, &cg_direction<double>>("cg_direction");
  add_both<&cg_check<float>, &cg_check<double>>("cg_check");
  return true;
}();

}  // namespace
}  // namespace nsb
