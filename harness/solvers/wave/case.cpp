#include "wave/case.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace nsb {

namespace {

std::string grid_text(const CaseOptions& o) {
  return std::to_string(o.nx) + "x" + std::to_string(o.ny) + "x" + std::to_string(o.nz);
}

}  // namespace

WaveCase make_wave_case(const CaseOptions& o) {
  const CaseOptions defaults;
  if (!o.name.empty() && o.name != "standing_wave")
    throw std::invalid_argument("unknown case '" + o.name + "' for the wave solver; known cases: standing_wave");
  if (o.ny != 1)
    throw std::invalid_argument("the wave equation is 2D: give --grid NXx1xNY (the wave's y is the grid's third "
                                "axis, e.g. 8192x1x8192), not " + grid_text(o));
  if (o.nx < 1 || o.nz < 1) throw std::invalid_argument("impossible grid " + grid_text(o));
  // CaseOptions cannot say whether an option was given, only whether it differs from its default.
  if (o.re != defaults.re) throw std::invalid_argument("--re has no meaning for the wave equation (no viscosity)");
  if (o.gamma != defaults.gamma) throw std::invalid_argument("--gamma has no meaning for the wave equation (no advection)");
  if (!(o.safety > 0 && o.safety <= 1))
    throw std::invalid_argument("--safety must be in (0, 1], not " + std::to_string(o.safety));
  if (o.dt < 0) throw std::invalid_argument("--dt must be positive, not " + std::to_string(o.dt));
  case_params(o, {});  // the standing wave has no settings of its own

  WaveCase c;
  c.grid = wave_grid(o.nx, o.nz);
  c.exact.lx = c.grid.lx;
  c.exact.ly = c.grid.lz;
  const double stable_dt = wave_rho_limit() * c.h() / c.exact.c;
  c.dt = o.dt > 0 ? o.dt : o.safety * stable_dt;
  if (c.rho() > wave_rho_limit() * (1 + 1e-12))
    throw std::invalid_argument("--dt " + std::to_string(o.dt) + " is unstable on this grid: rho = c dt / h = " +
                                std::to_string(c.rho()) + " exceeds 1/sqrt(2) (h = " + std::to_string(c.h()) +
                                "); the largest stable time step is " + std::to_string(stable_dt));
  return c;
}

void check_wave_options(const SolverOptions& o) {
  const SolverOptions defaults;
  if (o.scheme != defaults.scheme)
    throw std::runtime_error("--scheme: the wave's time scheme is fixed (centred second differences, Eq. 2.8)");
  if (o.poisson_method != defaults.poisson_method || o.jacobi_iterations != defaults.jacobi_iterations ||
      o.jacobi_tol != defaults.jacobi_tol || o.check_every != defaults.check_every)
    throw std::runtime_error("--poisson, --iterations, --jacobi-tol and --check-every set a pressure solve; "
                             "the wave equation has none");
}

template <class T>
HostState<T> wave_initial_state(const WaveCase& c) {
  const Grid& g = c.grid;
  const double h = c.h();
  HostState<T> s{g, {{"u_prev", std::vector<T>(g.padded_points(), T(0))}, {"u", std::vector<T>(g.padded_points(), T(0))}}};
  std::vector<T>& u_prev = s.field("u_prev");
  std::vector<T>& u = s.field("u");
  for (int k = 1; k <= g.nz; ++k)
    for (int i = 1; i <= g.nx; ++i) {
      u_prev[wave_node(g, i, k)] = T(c.exact(i * h, k * h, -c.dt));
      u[wave_node(g, i, k)] = T(c.exact(i * h, k * h, 0.0));
    }
  return s;
}

template <class T>
HostState<T> wave_initial_slab(const WaveCase& c, const Slab& s) {
  const Grid& g = c.grid;
  const Grid l = slab_grid(g, s);
  const double h = c.h();
  HostState<T> out{l, {{"u_prev", std::vector<T>(l.padded_points(), T(0))}, {"u", std::vector<T>(l.padded_points(), T(0))}}};
  std::vector<T>& u_prev = out.field("u_prev");
  std::vector<T>& u = out.field("u");
  for (int kl = 0; kl <= s.nz + 1; ++kl) {  // ghost rows too: a cut's ghost row is the neighbour's interior row
    const int k = s.z_begin - 1 + kl;
    if (k < 1 || k > g.nz) continue;  // the whole grid's boundary rows stay 0, as in wave_initial_state
    for (int i = 1; i <= g.nx; ++i) {
      u_prev[wave_node(l, i, kl)] = T(c.exact(i * h, k * h, -c.dt));
      u[wave_node(l, i, kl)] = T(c.exact(i * h, k * h, 0.0));
    }
  }
  return out;
}

template <class T>
nlohmann::json wave_validation(const WaveCase& c, const HostState<T>& s) {
  const Grid& g = c.grid;
  const std::vector<T>& u = s.field("u");
  const double h = c.h();
  double max_error = 0, sum_squares = 0;
  for (int k = 1; k <= g.nz; ++k)
    for (int i = 1; i <= g.nx; ++i) {
      const double e = double(u[wave_node(g, i, k)]) - c.exact(i * h, k * h, s.time);
      max_error = std::max(max_error, std::abs(e));
      sum_squares += e * e;
    }
  return {{"kind", "exact"},
          {"detail", "standing wave sin(kx x) sin(ky y) cos(omega t), m = " + std::to_string(c.exact.m) +
                         ", n = " + std::to_string(c.exact.n) + ", amplitude 1"},
          {"max_error", max_error},
          {"rms_error", std::sqrt(sum_squares / double(g.interior_points()))},
          {"time", s.time},
          {"steps", s.step}};
}

template <class T>
double wave_energy(const WaveCase& c, const Grid& g, const std::vector<T>& u_prev, const std::vector<T>& u,
                   bool lower_boundary) {
  // (u_a - u_b)(u_prev_a - u_prev_b) of the edge between nodes a and b.
  const auto edge = [&](std::size_t a, std::size_t b) {
    return (double(u[a]) - double(u[b])) * (double(u_prev[a]) - double(u_prev[b]));
  };
  const std::size_t up = std::size_t(g.sz());  // to the next row of nodes
  double kinetic = 0, potential = 0;
  for (int k = 1; k <= g.nz; ++k)
    for (int i = 0; i <= g.nx; ++i) {  // the row's nodes and its edges along x, boundary nodes' too
      const std::size_t n = wave_node(g, i, k);
      const double d = double(u[n]) - double(u_prev[n]);
      kinetic += d * d;
      potential += edge(n + 1, n);
    }
  for (int k = lower_boundary ? 0 : 1; k <= g.nz; ++k)
    for (int i = 1; i <= g.nx; ++i) potential += edge(wave_node(g, i, k) + up, wave_node(g, i, k));  // along y
  const double r = c.h() / c.dt;
  return r * r * kinetic + c.exact.c * c.exact.c * potential;
}

template HostState<float> wave_initial_slab<float>(const WaveCase&, const Slab&);
template HostState<double> wave_initial_slab<double>(const WaveCase&, const Slab&);
template HostState<float> wave_initial_state<float>(const WaveCase&);
template HostState<double> wave_initial_state<double>(const WaveCase&);
template nlohmann::json wave_validation<float>(const WaveCase&, const HostState<float>&);
template nlohmann::json wave_validation<double>(const WaveCase&, const HostState<double>&);
template double wave_energy<float>(const WaveCase&, const Grid&, const std::vector<float>&, const std::vector<float>&, bool);
template double wave_energy<double>(const WaveCase&, const Grid&, const std::vector<double>&, const std::vector<double>&, bool);

}  // namespace nsb
