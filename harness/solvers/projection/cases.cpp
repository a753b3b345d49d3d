#include "projection/cases.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace nsb {

const std::vector<std::string>& case_names() {
  static const std::vector<std::string> names = {"cavity", "channel", "taylor_green", "urban", "cube"};
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

// The urban boundaries (x wind, y height, z span): inflow on the west face, zero-gradient outflow on the
// east face with p = 0, no-slip ground, free-slip top and sides.
// turbulence=none (default: the thesis's Table 4.2 runs) | smagorinsky (nu + nu_t in the momentum's
// diffusion, nu_t of the nu_turbulent stage computed from u^n each step).
static bool turbulence_param(const std::map<std::string, std::string>& p) {
  const std::string t = p.count("turbulence") ? p.at("turbulence") : "none";
  if (t != "none" && t != "smagorinsky")
    throw std::invalid_argument("turbulence=" + t + ": known models are none and smagorinsky");
  return t == "smagorinsky";
}

// outflow=zero_gradient (default) | convective: du/dt + U_c du/dx = 0 on the east face's ghosts, U_c the
// inflow speed U (boundary.hpp).
static double convective_speed_param(const std::map<std::string, std::string>& p, double u) {
  const std::string t = p.count("outflow") ? p.at("outflow") : "zero_gradient";
  if (t != "zero_gradient" && t != "convective")
    throw std::invalid_argument("outflow=" + t + ": known outflow conditions are zero_gradient and convective");
  return t == "convective" ? u : 0.0;
}

static void open_domain(Case& c, InflowProfile profile, double roughness) {
  BoundarySpec& b = c.bc;
  b.face[0][0].type = FaceType::inflow;
  b.face[0][1].type = FaceType::outflow;
  b.face[1][0].type = FaceType::wall;
  b.face[1][1].type = FaceType::free_slip;
  set_all(b, 2, FaceType::free_slip);
  FaceBC& in = b.face[0][0];
  in.profile = profile;
  in.inflow_speed = c.u_ref;
  in.roughness = roughness;
  in.profile_spacing = c.grid.dy();
  in.profile_height = c.grid.ly;
}

// Thesis Sec. 3.3.5: a city of 5 m cells (256 x 64 x 256 cells = 1.28 km x 320 m x 1.28 km, height
// along y), U = 1 m/s at the inflow, Re = U (H / 4) / nu (155 in the thesis: --re 155). The city is a
// seeded grid of blocks (40 m blocks, 20 m streets, heights 10 m to H / 4, an empty eighth of the
// domain upstream and a quarter downstream) or a city file.
static void make_urban(Case& c, const CaseOptions& o) {
  const auto p = case_params(o, {"seed", "city", "profile", "z0", "cs", "turbulence", "outflow"});
  Grid& g = c.grid;
  if (o.ny < 8) throw std::invalid_argument("urban needs at least 8 cells of height (ny >= 8)");
  const double cell = 5.0;
  g.lx = cell * o.nx, g.ly = cell * o.ny, g.lz = cell * o.nz;
  c.u_ref = 1.0;
  c.re_length = g.ly / 4;
  c.nu = c.u_ref * c.re_length / o.re;
  const std::string profile = p.count("profile") ? p.at("profile") : "uniform";
  if (profile != "uniform" && profile != "log")
    throw std::invalid_argument("urban profile=" + profile + ": known profiles are uniform and log");
  const double z0 = number_param(p, "z0", 1.0);
  if (!(z0 > 0)) throw std::invalid_argument("urban z0 (roughness length, m) must be positive");
  open_domain(c, profile == "log" ? InflowProfile::log_law : InflowProfile::uniform, z0);
  c.smagorinsky_cs = number_param(p, "cs", 0.1);
  c.turbulent = turbulence_param(p);
  c.convective_outflow_speed = convective_speed_param(p, c.u_ref);
  if (p.count("city")) {
    c.buildings = read_city(p.at("city"));
  } else {
    CityPlan plan;
    plan.seed = unsigned(number_param(p, "seed", 1));
    plan.block = 8, plan.street = 4;
    plan.upstream = o.nx / 8, plan.downstream = o.nx / 4;
    plan.min_height = 2, plan.max_height = o.ny / 4;
    c.buildings = generate_city(g, plan);
  }
  c.validation = "urban";
}

// Thesis Fig. 3.21: a surface-mounted cube of side h in laminar flow, Re = U h / nu (42: --re 42),
// cubic cells, h = ny / 4 cells; the cube's upstream face a quarter of the way down the domain and
// centred in the span (nz - h even, so that the mid-plane is a plane of cell faces and the flow
// symmetric about it). Thesis grid 256 x 128 x 64 (x, span, height) is --grid 256x64x128 here.
static void make_cube(Case& c, const CaseOptions& o) {
  const auto p = case_params(o, {"cs", "turbulence", "outflow"});
  const int h = o.ny / 4;
  if (h < 2) throw std::invalid_argument("cube needs ny >= 8 (the cube is ny / 4 cells high)");
  if ((o.nz - h) % 2 != 0 || o.nz < 3 * h)
    throw std::invalid_argument("cube needs nz - ny/4 even and nz >= 3 ny/4 (a symmetric span around the cube)");
  Grid& g = c.grid;
  g.lx = double(o.nx) / h, g.ly = double(o.ny) / h, g.lz = double(o.nz) / h;
  c.u_ref = 1.0;
  c.nu = c.u_ref * 1.0 / o.re;
  open_domain(c, InflowProfile::uniform, 1.0);
  const double x0 = double(o.nx / 4) / h, z0 = double((o.nz - h) / 2) / h;
  c.cube = {x0, x0 + 1.0, z0, z0 + 1.0, 1.0};
  c.cube_cells = h;
  c.smagorinsky_cs = number_param(p, "cs", 0.1);
  c.turbulent = turbulence_param(p);
  c.convective_outflow_speed = convective_speed_param(p, c.u_ref);
  c.buildings = {c.cube};
  c.validation = "cube";
}

Case make_case(const CaseOptions& o) {
  if (o.nx < 2 || o.ny < 1 || o.nz < 2)
    throw std::invalid_argument("impossible grid " + std::to_string(o.nx) + "x" + std::to_string(o.ny) + "x" +
                                std::to_string(o.nz) + ": need nx >= 2, ny >= 1, nz >= 2 interior cells");
  const double padded = (double(o.nx) + 2) * (double(o.ny) + 2) * (double(o.nz) + 2);  // no int overflow
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
    // --case-param span=wall: the 3D cavity (the unit cube, no-slip everywhere: Liu et al. 2019's, to
    // compare with the imle solver; odd ny puts a cell row on y = 1/2 for the centre lines).
    if (o.nx != o.nz)
      throw std::invalid_argument("cavity needs a square x-z section (nx == nz) to compare with Ghia et al.");
    const auto params = case_params(o, {"span"});
    const std::string span = params.count("span") ? params.at("span") : "free_slip";
    if (span != "free_slip" && (span != "wall" || o.ny != o.nx || o.ny % 2 == 0))
      throw std::invalid_argument("cavity: span=free_slip (2D, default) or span=wall with ny == nx odd (the 3D cube)");
    g.lx = g.lz = 1.0;
    g.ly = double(o.ny) / o.nx;
    set_all(c.bc, 0, FaceType::wall);
    set_all(c.bc, 1, span == "wall" ? FaceType::wall : FaceType::free_slip);
    set_all(c.bc, 2, FaceType::wall);
    c.bc.face[2][1].wall_velocity[0] = 1.0;
    c.u_ref = 1.0;
    c.nu = c.u_ref * 1.0 / o.re;
    c.validation = span == "wall" ? "cavity3d" : "ghia";
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
  } else if (o.name == "urban") {
    make_urban(c, o);
  } else if (o.name == "cube") {
    make_cube(c, o);
  } else {
    std::string known;
    for (const auto& n : case_names()) known += " " + n;
    throw std::invalid_argument("unknown case '" + o.name + "'; known cases:" + known);
  }
  if (c.validation != "urban" && c.validation != "cube" && o.name != "cavity") case_params(o, {});
  c.dt = o.dt > 0 ? o.dt : o.safety * stable_dt(g, c.nu, c.u_ref);
  c.bc.face[0][1].convective_courant = c.convective_outflow_speed * c.dt / g.dx();
  return c;
}

double Case::initial_velocity(int comp, double x, double y, double z) const {
  (void)y;
  if (validation == "taylor_green") return exact_velocity(comp, x, y, z, 0.0);
  if (validation == "urban" || validation == "cube") {  // the inflow profile everywhere (masked by the solids)
    if (comp != 0) return 0.0;
    const FaceRule<double> in = BoundaryRules<double>::make(bc).face[0][0];
    return inflow_speed(in, int(std::lround(y / grid.dy() + 0.5)));
  }
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
