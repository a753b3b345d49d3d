#include "projection/validation.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "ghia_data.hpp"  // generated: kGhiaU, kGhiaV (CSV text)

namespace nsb {

static GhiaTable parse_ghia(const char* csv) {
  GhiaTable t;
  std::istringstream in(csv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // the column names
      header = false;
      continue;
    }
    double a, b, c;
    char comma1, comma2;
    std::istringstream row(line);
    if (!(row >> a >> comma1 >> b >> comma2 >> c)) throw std::runtime_error("bad Ghia row: " + line);
    t.position.push_back(a), t.re100.push_back(b), t.re1000.push_back(c);
  }
  return t;
}

const GhiaTable& ghia_u_vertical() {
  static const GhiaTable t = parse_ghia(kGhiaU);
  return t;
}
const GhiaTable& ghia_v_horizontal() {
  static const GhiaTable t = parse_ghia(kGhiaV);
  return t;
}

// Linear interpolation in a profile given at increasing positions.
static double interpolate(const std::vector<double>& x, const std::vector<double>& y, double at) {
  for (std::size_t i = 1; i < x.size(); ++i)
    if (at <= x[i]) {
      const double t = (at - x[i - 1]) / (x[i] - x[i - 1]);
      return y[i - 1] + t * (y[i] - y[i - 1]);
    }
  return y.back();
}

template <class T>
Validation validate(const Case& c, const HostState<T>& state) {
  const ProjectionFields<T> s(state);
  const Grid& g = c.grid;
  Validation v;
  v.kind = c.validation;
  const double dx = g.dx(), dz = g.dz();
  if (c.validation == "ghia") {
    const double re = c.u_ref * 1.0 / c.nu;
    const bool r100 = std::abs(re - 100) < 1e-9, r1000 = std::abs(re - 1000) < 1e-9;
    if ((!r100 && !r1000) || g.nx % 2) {
      v.kind = "none";
      v.detail = "Ghia et al. give Re = 100 and 1000 only, on centre lines an even nx = nz grid reaches";
      return v;
    }
    // u on the vertical centre line x = 1/2: u-points i = nx/2 sit on it; z at (k - 1/2) dz, the ghost
    // rows included so the wall and lid values (face averages) are reached exactly.
    const int jm = (g.ny + 1) / 2;  // the flow is uniform in y; any interior plane will do
    std::vector<double> zs, us, xs, ws;
    for (int k = 0; k <= g.nz + 1; ++k) {
      zs.push_back((k - 0.5) * dz);
      us.push_back(double(s.u[g.idx(g.nx / 2, jm, k)]) / c.u_ref);
    }
    for (int i = 0; i <= g.nx + 1; ++i) {
      xs.push_back((i - 0.5) * dx);
      ws.push_back(double(s.w[g.idx(i, jm, g.nz / 2)]) / c.u_ref);
    }
    double sum2 = 0;
    int count = 0;
    auto compare = [&](const GhiaTable& t, const std::vector<double>& pos, const std::vector<double>& val,
                       std::vector<ProfilePoint>& out) {
      for (std::size_t m = 0; m < t.position.size(); ++m) {
        const double ref = r100 ? t.re100[m] : t.re1000[m];
        const double got = interpolate(pos, val, t.position[m]);
        out.push_back({t.position[m], ref, got});
        v.max_error = std::max(v.max_error, std::abs(got - ref));
        sum2 += (got - ref) * (got - ref);
        ++count;
      }
    };
    compare(ghia_u_vertical(), zs, us, v.u_profile);
    compare(ghia_v_horizontal(), xs, ws, v.w_profile);
    v.rms_error = std::sqrt(sum2 / count);
    v.detail = std::string("u on x = 1/2 and w on z = 1/2 against Ghia et al. (1982) at Re = ") +
               (r100 ? "100" : "1000");
  } else if (c.validation == "poiseuille") {
    double sum2 = 0;
    for (int k = 1; k <= g.nz; ++k) {
      const double exact = c.exact_velocity(0, 0, 0, (k - 0.5) * dz, 0) / c.u_ref;
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
          const double e = double(s.u[g.idx(i, j, k)]) / c.u_ref - exact;
          v.max_error = std::max(v.max_error, std::abs(e));
          sum2 += e * e;
        }
    }
    v.rms_error = std::sqrt(sum2 / double(g.interior_points()));
    v.detail = "u(z) against the exact parabola f z (H - z) / (2 nu)";
    for (int k = 1; k <= g.nz; ++k) {  // the profile of one column (the flow is uniform in x and y)
      const double z = (k - 0.5) * dz;
      v.u_profile.push_back({z / g.lz, c.exact_velocity(0, 0, 0, z, 0) / c.u_ref,
                             double(s.u[g.idx(g.nx / 2, (g.ny + 1) / 2, k)]) / c.u_ref});
    }
  } else if (c.validation == "taylor_green") {
    double sum2 = 0, e_now = 0, e_0 = 0;
    const double dy = g.dy();
    for (int k = 1; k <= g.nz; ++k)
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
          const std::size_t m = g.idx(i, j, k);
          const double xc = (i - 0.5) * dx, yc = (j - 0.5) * dy, zc = (k - 0.5) * dz;
          const double eu = double(s.u[m]) - c.exact_velocity(0, i * dx, yc, zc, s.time);
          const double ew = double(s.w[m]) - c.exact_velocity(2, xc, yc, k * dz, s.time);
          v.max_error = std::max({v.max_error, std::abs(eu), std::abs(ew)});
          sum2 += eu * eu + ew * ew;
          e_now += double(s.u[m]) * s.u[m] + double(s.v[m]) * s.v[m] + double(s.w[m]) * s.w[m];
          const double u0 = c.exact_velocity(0, i * dx, yc, zc, 0), w0 = c.exact_velocity(2, xc, yc, k * dz, 0);
          e_0 += u0 * u0 + w0 * w0;
        }
    v.rms_error = std::sqrt(sum2 / (2.0 * double(g.interior_points()))) / c.u_ref;
    v.max_error /= c.u_ref;
    v.energy_ratio = e_now / e_0;
    v.energy_ratio_exact = std::exp(-4 * c.nu * s.time);  // velocity decays as exp(-2 nu t), k^2 = 2
    v.detail = "velocity against the exact vortex u0 exp(-2 nu t); kinetic energy E/E0 against exp(-4 nu t)";
  } else {
    v.kind = "none";
  }
  return v;
}

template <class T>
FlowSlice centre_slice(const Case& c, const HostState<T>& state, int max_points) {
  const ProjectionFields<T> s(state);
  const Grid& g = c.grid;
  FlowSlice out;
  const int step_x = (g.nx + max_points - 1) / max_points, step_z = (g.nz + max_points - 1) / max_points;
  const int j = (g.ny + 1) / 2;
  for (int k = 1; k <= g.nz; k += step_z) {
    out.z.push_back((k - 0.5) * g.dz());
    for (int i = 1; i <= g.nx; i += step_x) {
      if (k == 1) out.x.push_back((i - 0.5) * g.dx());
      // Face values averaged to the cell centre (u at the +x face, w at the +z face).
      out.u.push_back(0.5 * (double(s.u[g.idx(i - 1, j, k)]) + s.u[g.idx(i, j, k)]) / c.u_ref);
      out.w.push_back(0.5 * (double(s.w[g.idx(i, j, k - 1)]) + s.w[g.idx(i, j, k)]) / c.u_ref);
    }
  }
  return out;
}

template Validation validate<float>(const Case&, const HostState<float>&);
template FlowSlice centre_slice<float>(const Case&, const HostState<float>&, int);
template FlowSlice centre_slice<double>(const Case&, const HostState<double>&, int);
template Validation validate<double>(const Case&, const HostState<double>&);

}  // namespace nsb
