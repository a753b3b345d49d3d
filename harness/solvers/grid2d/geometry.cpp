#include "grid2d/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace nsb {

namespace {

int digit(const std::string& d, int k) {
  if (d.size() != 4 || d.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("a NACA 4-digit designation has 4 digits, not '" + d + "'");
  return d[std::size_t(k)] - '0';
}

// Fills the ghost columns of row-major padded array f (plane k = 1) from the interior (periodic).
void wrap_columns(const Grid& g, std::vector<double>& f) {
  for (int j = 0; j <= g.ny + 1; ++j) {
    f[sv_node(g, 0, j)] = f[sv_node(g, g.nx, j)];
    f[sv_node(g, g.nx + 1, j)] = f[sv_node(g, 1, j)];
  }
}

}  // namespace

double naca_thickness(const std::string& digits, double xc) {
  const double t = (10 * digit(digits, 2) + digit(digits, 3)) / 100.0;
  xc = std::clamp(xc, 0.0, 1.0);
  return 5 * t * (0.2969 * std::sqrt(xc) - 0.1260 * xc - 0.3516 * xc * xc + 0.2843 * xc * xc * xc - 0.1036 * xc * xc * xc * xc);
}

double naca_camber(const std::string& digits, double xc) {
  const double m = digit(digits, 0) / 100.0, p = digit(digits, 1) / 10.0;
  if (m == 0 || p == 0) return 0;
  return xc < p ? m / (p * p) * (2 * p * xc - xc * xc) : m / ((1 - p) * (1 - p)) * (1 - 2 * p + 2 * p * xc - xc * xc);
}

std::vector<double> exponential_stretching(int n, double first_fraction) {
  std::vector<double> s(std::size_t(n) + 1);
  const auto shape = [n](double k, int j) { return k < 1e-9 ? double(j) / n : std::expm1(k * j / n) / std::expm1(k); };
  double k = 0;
  if (first_fraction < 1.0 / n) {  // clustering needed: s(1) falls as k grows
    double lo = 0, hi = 60;
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      (shape(mid, 1) > first_fraction ? lo : hi) = mid;
    }
    k = 0.5 * (lo + hi);
  }
  for (int j = 0; j <= n; ++j) s[std::size_t(j)] = shape(k, j);
  return s;
}

Geometry algebraic_grid(const GridSpec& spec) {
  if (spec.nx < 4 || spec.ny < 2) throw std::invalid_argument("the grid needs at least 4 x 2 nodes");
  if (!(spec.te_clustering >= 0 && spec.te_clustering < 1))
    throw std::invalid_argument("te_clustering must be in [0, 1)");
  Geometry geo;
  geo.spec = spec;
  geo.grid = Grid{spec.nx, spec.ny, 1, 1.0, 1.0, 1.0};
  const Grid& g = geo.grid;
  geo.x.assign(g.padded_points(), 0.0);
  geo.y.assign(g.padded_points(), 0.0);
  const int rows = g.ny + 1;  // eta runs over rows 0..ny + 1
  if (spec.body == Body::airfoil) {
    const double centre = 0.5;
    geo.eta_frac = exponential_stretching(rows, spec.wall_spacing / (spec.far_radius - 0.5));
    for (int i = 1; i <= g.nx; ++i) {
      const double t = double(i - 1) / g.nx;              // clockwise from the trailing edge
      const double xc = 0.5 * (1 + std::cos(2 * std::numbers::pi * t));
      const double side = t < 0.5 ? -1.0 : 1.0;             // lower surface first
      const double xb = xc, yb = naca_camber(spec.naca, xc) + side * naca_thickness(spec.naca, xc);
      // The far-field angle, clustered towards the wake line (t = 0) by te_clustering a: d(angle)/dt is
      // 2 pi (1 - a) there and 2 pi (1 + a) upstream; odd about t = 1/2, so the grid stays symmetric.
      const double tau = t - spec.te_clustering * std::sin(2 * std::numbers::pi * t) / (2 * std::numbers::pi);
      const double angle = -2 * std::numbers::pi * tau;
      const double xo = centre + spec.far_radius * std::cos(angle), yo = spec.far_radius * std::sin(angle);
      for (int j = 0; j <= rows; ++j) {
        const double s = geo.eta_frac[std::size_t(j)];
        geo.x[sv_node(g, i, j)] = xb + s * (xo - xb);
        geo.y[sv_node(g, i, j)] = yb + s * (yo - yb);
      }
    }
    wrap_columns(g, geo.x);
    wrap_columns(g, geo.y);
    geo.ends = XiEnds::periodic;
    geo.wall_begin = 1;
  } else {
    geo.eta_frac = exponential_stretching(rows, spec.wall_spacing / spec.plate_height);
    const double span = spec.plate_upstream + spec.plate_length;
    geo.wall_begin = g.nx + 1;
    for (int i = 0; i <= g.nx + 1; ++i) {
      const double x = -spec.plate_upstream + span * i / (g.nx + 1);
      if (x >= -1e-12 && i < geo.wall_begin) geo.wall_begin = std::max(i, 1);
      for (int j = 0; j <= rows; ++j) {
        geo.x[sv_node(g, i, j)] = x;
        geo.y[sv_node(g, i, j)] = spec.plate_height * geo.eta_frac[std::size_t(j)];
      }
    }
    geo.ends = XiEnds::fixed;
  }
  return geo;
}

void grid_controls(const Geometry& geo, std::vector<double>& phi, std::vector<double>& psi_c) {
  const Grid& g = geo.grid;
  phi.assign(g.padded_points(), 0.0);
  psi_c.assign(g.padded_points(), 0.0);
  const auto& x = geo.x;
  const auto& y = geo.y;
  const std::ptrdiff_t row = g.sy();
  // -(r . r'') / |r|^2 along a direction of stride d at node n.
  const auto control = [&](std::size_t n, std::ptrdiff_t d) {
    const double xd = 0.5 * (x[n + d] - x[n - d]), yd = 0.5 * (y[n + d] - y[n - d]);
    const double xdd = x[n + d] - 2 * x[n] + x[n - d], ydd = y[n + d] - 2 * y[n] + y[n - d];
    return -(xd * xdd + yd * ydd) / (xd * xd + yd * yd);
  };
  for (int i = 1; i <= g.nx; ++i) {
    const double wall = control(sv_node(g, i, 0), 1), far = control(sv_node(g, i, g.ny + 1), 1);
    for (int j = 1; j <= g.ny; ++j) {
      const double f = double(j) / (g.ny + 1);
      phi[sv_node(g, i, j)] = (1 - f) * wall + f * far;
      psi_c[sv_node(g, i, j)] = control(sv_node(g, i, j), row);
    }
  }
  if (geo.ends == XiEnds::periodic) {
    wrap_columns(g, phi);
    wrap_columns(g, psi_c);
  }
}

Metrics grid_metrics(const Grid& g, const std::vector<double>& x, const std::vector<double>& y, XiEnds ends) {
  Metrics m;
  for (auto* f : {&m.ca, &m.cb, &m.cg, &m.p, &m.q, &m.ij}) f->assign(g.padded_points(), 0.0);
  const std::ptrdiff_t row = g.sy();
  for (int j = 0; j <= g.ny + 1; ++j)
    for (int i = 1; i <= g.nx; ++i) {
      const std::size_t n = sv_node(g, i, j);
      const auto eta = [&](const std::vector<double>& f) {  // central inside, second-order one-sided at the ends
        if (j == 0) return 0.5 * (-3 * f[n] + 4 * f[n + row] - f[n + 2 * row]);
        if (j == g.ny + 1) return 0.5 * (3 * f[n] - 4 * f[n - row] + f[n - 2 * row]);
        return 0.5 * (f[n + row] - f[n - row]);
      };
      const double x_xi = 0.5 * (x[n + 1] - x[n - 1]), y_xi = 0.5 * (y[n + 1] - y[n - 1]);
      const double x_eta = eta(x), y_eta = eta(y);
      const double jac = x_xi * y_eta - y_xi * x_eta;
      // A sharp trailing edge is a singular point of any O-grid: there J -> 0 on the body row, so only
      // the rows of unknowns must have cells of positive area.
      if (!(jac > 0) && j >= 1 && j <= g.ny) throw std::runtime_error("grid folds: Jacobian " + std::to_string(jac) + " at node (" +
                                               std::to_string(i) + ", " + std::to_string(j) + ")");
      const double alpha = x_eta * x_eta + y_eta * y_eta, beta = x_xi * x_eta + y_xi * y_eta,
                   gamma = x_xi * x_xi + y_xi * y_xi, j2 = jac * jac;
      m.ca[n] = alpha / j2, m.cb[n] = beta / j2, m.cg[n] = gamma / j2, m.ij[n] = 1 / jac;
      if (j == 0 || j == g.ny + 1) continue;
      const auto second = [&](const std::vector<double>& f) {
        const double f_xixi = f[n + 1] - 2 * f[n] + f[n - 1], f_etaeta = f[n + row] - 2 * f[n] + f[n - row];
        const double f_xieta = 0.25 * ((f[n + row + 1] - f[n - row + 1]) - (f[n + row - 1] - f[n - row - 1]));
        return alpha * f_xixi - 2 * beta * f_xieta + gamma * f_etaeta;
      };
      const double rx = second(x), ry = second(y), j3 = j2 * jac;
      m.p[n] = -(y_eta * rx - x_eta * ry) / j3;
      m.q[n] = -(x_xi * ry - y_xi * rx) / j3;
    }
  if (ends == XiEnds::periodic)
    for (auto* f : {&m.ca, &m.cb, &m.cg, &m.p, &m.q, &m.ij}) wrap_columns(g, *f);
  return m;
}

std::vector<double> initial_stream_function(const Geometry& geo) {
  const Grid& g = geo.grid;
  std::vector<double> psi(g.padded_points(), 0.0);
  for (int j = 0; j <= g.ny + 1; ++j)
    for (int i = 0; i <= g.nx + 1; ++i) {
      const double wall = geo.y[sv_node(g, i, 0)];
      psi[sv_node(g, i, j)] = geo.y[sv_node(g, i, j)] - wall * (1 - geo.eta_frac[std::size_t(j)]);
    }
  return psi;
}

double stable_time_step(const Geometry& geo, const Metrics& m, const std::vector<double>& psi, double nu,
                        double safety) {
  const Grid& g = geo.grid;
  const std::ptrdiff_t row = g.sy();
  double rate = 0;
  for (int j = 1; j <= g.ny; ++j)
    for (int i = 1; i <= g.nx; ++i) {
      const std::size_t n = sv_node(g, i, j);
      const double u = 0.5 * (psi[n + row] - psi[n - row]) * m.ij[n], v = -0.5 * (psi[n + 1] - psi[n - 1]) * m.ij[n];
      rate = std::max(rate, 2 * (std::abs(u) + std::abs(v)) + 2 * nu * (m.ca[n] + m.cg[n]));
    }
  return safety / rate;
}

std::vector<double> wall_distance(const Geometry& geo) {
  const Grid& g = geo.grid;
  std::vector<double> d(g.padded_points(), 0.0);
  for (int j = 0; j <= g.ny + 1; ++j)
    for (int i = 0; i <= g.nx + 1; ++i) {
      const std::size_t n = sv_node(g, i, j), w = sv_node(g, i, 0);
      d[n] = std::hypot(geo.x[n] - geo.x[w], geo.y[n] - geo.y[w]);
    }
  return d;
}

Forces wall_forces(const Geometry& geo, const Metrics& m, const std::vector<double>& omega, double nu) {
  const Grid& g = geo.grid;
  const std::ptrdiff_t row = g.sy();
  Forces f;
  std::vector<double> dp(std::size_t(g.nx) + 1);
  for (int i = 1; i <= g.nx; ++i) {
    const std::size_t n = sv_node(g, i, 0);
    const double w_xi = 0.5 * (omega[n + 1] - omega[n - 1]);
    const double w_eta = 0.5 * (-3 * omega[n] + 4 * omega[n + row] - omega[n + 2 * row]);
    dp[std::size_t(i)] = nu * (m.cb[n] * w_xi - m.cg[n] * w_eta) / m.ij[n];  // (beta w_xi - gamma w_eta) / J
  }
  f.cp.assign(std::size_t(g.nx), 0.0);
  f.cf.assign(std::size_t(g.nx), 0.0);
  for (int i = 2; i <= g.nx; ++i)
    f.cp[std::size_t(i - 1)] = f.cp[std::size_t(i - 2)] + 0.5 * (dp[std::size_t(i - 1)] + dp[std::size_t(i)]);
  double fx_p = 0, fy_p = 0, fx_v = 0, fy_v = 0;
  for (int i = 1; i <= g.nx; ++i) {
    const std::size_t n = sv_node(g, i, 0);
    const double x_xi = 0.5 * (geo.x[n + 1] - geo.x[n - 1]), y_xi = 0.5 * (geo.y[n + 1] - geo.y[n - 1]);
    const double p = f.cp[std::size_t(i - 1)], w = omega[n];
    f.cp[std::size_t(i - 1)] = 2 * p;
    f.cf[std::size_t(i - 1)] = 2 * nu * w;
    fx_p += -p * -y_xi, fy_p += -p * x_xi;      // -p n ds, n ds = (-y_xi, x_xi) into the fluid
    fx_v += nu * w * -x_xi, fy_v += nu * w * -y_xi;  // nu omega (k x n) ds
  }
  f.cd_pressure = 2 * fx_p, f.cd_friction = 2 * fx_v;
  f.cd = 2 * (fx_p + fx_v);
  f.cl = 2 * (fy_p + fy_v);
  return f;
}

double vortical_impulse_x(const Geometry& geo, const Metrics& m, const std::vector<double>& omega, double r_min) {
  const Grid& g = geo.grid;
  double sum = 0;
  for (int j = 0; j <= g.ny + 1; ++j) {
    const double weight = j == 0 || j == g.ny + 1 ? 0.5 : 1.0;
    for (int i = 1; i <= g.nx; ++i) {
      const std::size_t n = sv_node(g, i, j);
      if (r_min > 0 && std::hypot(geo.x[n] - 0.5, geo.y[n]) < r_min) continue;  // a distance is never below 0
      sum += weight * geo.y[n] * omega[n] / m.ij[n];
    }
  }
  return sum;
}

double blasius_fprime(double eta) {
  static const std::vector<double> table = [] {  // f' at eta = k h
    const double h = 1e-3;
    std::vector<double> out;
    double f = 0, fp = 0, fpp = 0.332057336;
    const auto rhs = [](double a, double b, double c, double& da, double& db, double& dc) { da = b, db = c, dc = -0.5 * a * c; };
    for (int k = 0; k <= 12000; ++k) {
      out.push_back(fp);
      double k1[3], k2[3], k3[3], k4[3];
      rhs(f, fp, fpp, k1[0], k1[1], k1[2]);
      rhs(f + 0.5 * h * k1[0], fp + 0.5 * h * k1[1], fpp + 0.5 * h * k1[2], k2[0], k2[1], k2[2]);
      rhs(f + 0.5 * h * k2[0], fp + 0.5 * h * k2[1], fpp + 0.5 * h * k2[2], k3[0], k3[1], k3[2]);
      rhs(f + h * k3[0], fp + h * k3[1], fpp + h * k3[2], k4[0], k4[1], k4[2]);
      f += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]);
      fp += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]);
      fpp += h / 6 * (k1[2] + 2 * k2[2] + 2 * k3[2] + k4[2]);
    }
    return out;
  }();
  if (eta <= 0) return 0;
  const double pos = eta / 1e-3;
  const std::size_t k = std::size_t(pos);
  if (k + 1 >= table.size()) return 1;
  return table[k] + (pos - double(k)) * (table[k + 1] - table[k]);
}

// The plate's C_f = 2 nu u_y = -2 omega_wall / Re against a law C_f(Re_x) on x in [0.2, 0.8] (away from the
// leading-edge singularity and the outflow): relative errors' maximum, RMS and count.
struct FrictionError {
  double max_rel = 0, rms = 0;
  int count = 0;
};
template <class Law>
static FrictionError friction_error(const Geometry& geo, const std::vector<double>& omega, double re, const Law& law) {
  const Grid& g = geo.grid;
  FrictionError r;
  double sum_sq = 0;
  for (int i = geo.wall_begin; i <= g.nx; ++i) {
    const double x = geo.x[sv_node(g, i, 0)];
    if (x < 0.2 || x > 0.8) continue;
    const double cf = -2 * omega[sv_node(g, i, 0)] / re;  // 2 nu u_y, u_y = -omega
    const double exact = law(re * x);
    const double e = (cf - exact) / exact;
    r.max_rel = std::max(r.max_rel, std::abs(e));
    sum_sq += e * e;
    ++r.count;
  }
  r.rms = r.count ? std::sqrt(sum_sq / r.count) : 0.0;
  return r;
}

nlohmann::json turbulent_plate_check(const Geometry& geo, const std::vector<double>& omega, double re) {
  const FrictionError e = friction_error(geo, omega, re, [](double re_x) { return 0.0592 * std::pow(re_x, -0.2); });
  return {{"kind", "turbulent_plate"},
          {"detail", "C_f = 0.0592 Re_x^-0.2 on x in [0.2, 0.8] (relative error; Baldwin-Lomax from the leading edge)"},
          {"max_error", e.max_rel},
          {"rms_error", e.rms},
          {"stations", e.count}};
}

nlohmann::json blasius_check(const Geometry& geo, const std::vector<double>& psi, const std::vector<double>& omega,
                             double re) {
  const Grid& g = geo.grid;
  const std::ptrdiff_t row = g.sy();
  const FrictionError e = friction_error(geo, omega, re, [](double re_x) { return 0.664 / std::sqrt(re_x); });
  // Velocity profile at the column nearest x = 0.5: u = psi_y = psi_eta / y_eta (Cartesian plate grid).
  int column = geo.wall_begin;
  for (int i = geo.wall_begin; i <= g.nx; ++i)
    if (std::abs(geo.x[sv_node(g, i, 0)] - 0.5) < std::abs(geo.x[sv_node(g, column, 0)] - 0.5)) column = i;
  const double xs = geo.x[sv_node(g, column, 0)];
  double profile_max = 0;
  for (int j = 1; j <= g.ny; ++j) {
    const std::size_t n = sv_node(g, column, j);
    const double eta = geo.y[n] * std::sqrt(re / xs);
    if (eta > 8) break;
    const double u = (psi[n + row] - psi[n - row]) / (geo.y[n + row] - geo.y[n - row]);
    profile_max = std::max(profile_max, std::abs(u - blasius_fprime(eta)));
  }
  return {{"kind", "blasius"},
          {"detail", "C_f = 0.664 / sqrt(Re_x) on x in [0.2, 0.8] (relative error); u / U against f'(eta) at x = " +
                         std::to_string(xs) + " (absolute)"},
          {"max_error", e.max_rel},
          {"rms_error", e.rms},
          {"profile_max_error", profile_max},
          {"stations", e.count}};
}

}  // namespace nsb
