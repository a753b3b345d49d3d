#include "projection/cases.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nsb {

const std::vector<std::string>& case_names() {
  static const std::vector<std::string> names = {"cavity", "channel", "taylor_green"};
  return names;
}

double stable_dt(const Grid& g, double nu, double u_ref) {
  const double sum_inv_h2 = 1 / (g.dx() * g.dx()) + 1 / (g.dy() * g.dy()) + 1 / (g.dz() * g.dz());
  const double sum_inv_h = 1 / g.dx() + 1 / g.dy() + 1 / g.dz();
  double dt = 1 / (2 * nu * sum_inv_h2);
  if (u_ref > 0) dt = std::min({dt, 1 / (u_ref * sum_inv_h), 2 * nu / (u_ref * u_ref)});
  return dt;
}

static void set_all(BoundarySpec& s, int axis, FaceType t) {
  s.face[axis][0].type = t;
  s.face[axis][1].type = t;
}

Case make_case(const CaseOptions& o) {
  if (o.nx < 2 || o.ny < 1 || o.nz < 2)
    throw std::invalid_argument("impossible grid " + std::to_string(o.nx) + "x" + std::to_string(o.ny) + "x" +
                                std::to_string(o.nz) + ": need nx >= 2, ny >= 1, nz >= 2 interior cells");
  const double padded = double(o.nx + 2) * (o.ny + 2) * (o.nz + 2);
  if (padded > 4.0e9)
    throw std::invalid_argument("grid too large: " + std::to_string(padded) + " padded points per field");
  if (!(o.re > 0)) throw std::invalid_argument("Reynolds number must be positive (got " + std::to_string(o.re) + ")");
  if (o.dt < 0) throw std::invalid_argument("time step must be positive (got " + std::to_string(o.dt) + ")");
  if (!(o.safety > 0 && o.safety <= 1)) throw std::invalid_argument("--safety must lie in (0, 1]");
  if (o.gamma < 0 || o.gamma > 1) throw std::invalid_argument("upwind weight gamma must lie in [0, 1]");

  Case c;
  c.name = o.name;
  c.gamma = o.gamma;
  Grid& g = c.grid;
  g.nx = o.nx;
  g.ny = o.ny;
  g.nz = o.nz;
  if (o.name == "cavity") {
    // Thesis Fig. 3.4: unit cavity in x-z, lid on the top (z = 1) plane moving with u = U, no-slip on
    // the x walls and the bottom, free-slip on the y (front/back) planes so the flow stays 2D and can be
    // compared with Ghia et al. (1982). The span gets the same spacing as x.
    if (o.nx != o.nz)
      throw std::invalid_argument("cavity needs a square x-z section (nx == nz) to compare with Ghia et al.");
    g.lx = g.lz = 1.0;
    g.ly = double(o.ny) / o.nx;
    set_all(c.bc, 0, FaceType::wall);
    set_all(c.bc, 1, FaceType::free_slip);
    set_all(c.bc, 2, FaceType::wall);
    c.bc.face[2][1].wall_velocity[0] = 1.0;
    c.u_ref = 1.0;
    c.nu = c.u_ref * 1.0 / o.re;
    c.validation = "ghia";
  } else if (o.name == "channel") {
    // Plane Poiseuille flow: periodic in x and y, walls at z = 0 and z = H = 1, driven by a body force
    // f = 8 nu Uc / H^2 so the steady centre-line speed is Uc = 1; Re = Uc H / nu.
    g.lx = 2.0;
    g.lz = 1.0;
    g.ly = double(o.ny) * (g.lx / o.nx);
    set_all(c.bc, 0, FaceType::periodic);
    set_all(c.bc, 1, FaceType::periodic);
    set_all(c.bc, 2, FaceType::wall);
    c.u_ref = 1.0;
    c.nu = c.u_ref * 1.0 / o.re;
    c.force[0] = 8 * c.nu * c.u_ref;
    c.validation = "poiseuille";
  } else if (o.name == "taylor_green") {
    // 2D Taylor-Green vortex in the x-z plane, periodic on [0, 2 pi]^2 (and in y): u = U sin x cos z,
    // w = -U cos x sin z, decaying as exp(-2 nu t); Re = U * 1 / nu.
    const double two_pi = 2 * M_PI;
    g.lx = g.lz = two_pi;
    g.ly = double(o.ny) * (two_pi / o.nx);
    for (int a = 0; a < 3; ++a) set_all(c.bc, a, FaceType::periodic);
    c.u_ref = 1.0;
    c.nu = c.u_ref * 1.0 / o.re;
    c.validation = "taylor_green";
  } else {
    std::string known;
    for (const auto& n : case_names()) known += " " + n;
    throw std::invalid_argument("unknown case '" + o.name + "'; known cases:" + known);
  }
  c.dt = o.dt > 0 ? o.dt : o.safety * stable_dt(g, c.nu, c.u_ref);
  return c;
}

double Case::initial_velocity(int comp, double x, double y, double z) const {
  (void)y;
  if (validation == "taylor_green") return exact_velocity(comp, x, y, z, 0.0);
  return 0.0;  // cavity and channel start from rest
}

double Case::initial_pressure(double x, double y, double z) const {
  (void)y;
  if (validation == "taylor_green") return u_ref * u_ref / 4 * (std::cos(2 * x) + std::cos(2 * z));
  return 0.0;
}

double Case::exact_velocity(int comp, double x, double y, double z, double t) const {
  (void)y;
  if (validation == "taylor_green") {
    const double decay = u_ref * std::exp(-2 * nu * t);
    if (comp == 0) return decay * std::sin(x) * std::cos(z);
    if (comp == 2) return -decay * std::cos(x) * std::sin(z);
    return 0.0;
  }
  if (validation == "poiseuille") {
    const double h = grid.lz;
    return comp == 0 ? force[0] / (2 * nu) * z * (h - z) : 0.0;
  }
  return 0.0;
}

}  // namespace nsb
