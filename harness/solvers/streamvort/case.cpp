#include "streamvort/case.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>

namespace nsb {

GridSpec flow_grid_spec(const std::string& case_name, int nx, int ny, double re) {
  GridSpec spec;
  spec.body = case_name == "flat_plate" ? Body::plate : Body::airfoil;
  spec.nx = nx, spec.ny = ny;
  spec.wall_spacing = 0.25 / std::sqrt(re);
  return spec;
}

FlowCase make_flow_case(const std::string& name, const GridSpec& spec, double re, double dt, double safety) {
  if (!(re > 0)) throw std::invalid_argument("--re must be positive");
  if (!(safety > 0 && safety <= 1)) throw std::invalid_argument("--safety must be in (0, 1]");
  FlowCase c;
  c.name = name;
  c.geo = algebraic_grid(spec);
  c.metrics = grid_metrics(c.geo.grid, c.geo.x, c.geo.y, c.geo.ends);
  c.psi0 = initial_stream_function(c.geo);
  c.re = re, c.nu = 1 / re;
  c.psi_ends = spec.body == Body::plate ? XiEnds::outflow : XiEnds::periodic;
  c.dt = dt > 0 ? dt : stable_time_step(c.geo, c.metrics, c.psi0, c.nu, safety);
  return c;
}

// --case-param KEY=VALUE of the flow cases: turbulence (none | baldwin_lomax), wall_spacing (chords), sor_omega,
// convection (hybrid | upwind2), te_clustering (geometry.hpp, [0, 1)).
static std::map<std::string, std::string> flow_params(const CaseOptions& o) {
  std::map<std::string, std::string> out;
  for (const std::string& p : o.params) {
    const auto eq = p.find('=');
    const std::string key = p.substr(0, eq);
    if (eq == std::string::npos ||
        (key != "turbulence" && key != "wall_spacing" && key != "sor_omega" && key != "convection" &&
         key != "te_clustering"))
      throw std::invalid_argument("streamvort case setting '" + p + "': known keys are turbulence=none|baldwin_lomax, "
                                  "wall_spacing=CHORDS, sor_omega=W, convection=hybrid|upwind2 and te_clustering=A");
    out[key] = p.substr(eq + 1);
  }
  if (out.count("turbulence") && out["turbulence"] != "none" && out["turbulence"] != "baldwin_lomax")
    throw std::invalid_argument("turbulence=" + out["turbulence"] + ": known models are none and baldwin_lomax");
  if (out.count("convection") && out["convection"] != "hybrid" && out["convection"] != "upwind2")
    throw std::invalid_argument("convection=" + out["convection"] + ": known schemes are hybrid and upwind2");
  return out;
}

FlowCase make_flow_case(const CaseOptions& o) {
  const std::string name = o.name.empty() ? "naca0012" : o.name;
  if (name != "naca0012" && name != "flat_plate")
    throw std::invalid_argument("unknown case '" + name + "' for the streamvort solver; known cases: naca0012, flat_plate");
  if (o.nz != 1)
    throw std::invalid_argument("the stream-function/vorticity solver is 2D: give --grid NXxNYx1 (xi nodes x eta "
                                "unknowns), not " + std::to_string(o.nx) + "x" + std::to_string(o.ny) + "x" +
                                std::to_string(o.nz));
  if (o.gamma != CaseOptions{}.gamma)
    throw std::invalid_argument("--gamma has no meaning here: convection is the hybrid of formulas.hpp (central "
                                "where the cell Peclet number is at most 2, 1st-order upwind elsewhere) or, with "
                                "--case-param convection=upwind2, limited 2nd-order upwind in place of the 1st order");
  if (o.dt < 0) throw std::invalid_argument("--dt must be positive");
  const auto params = flow_params(o);
  GridSpec spec = flow_grid_spec(name, o.nx, o.ny, o.re);
  if (params.count("wall_spacing")) {
    spec.wall_spacing = std::atof(params.at("wall_spacing").c_str());
    if (!(spec.wall_spacing > 0 && spec.wall_spacing < 0.1))
      throw std::invalid_argument("wall_spacing=" + params.at("wall_spacing") + ": give a first spacing in (0, 0.1) chords");
  }
  if (params.count("te_clustering")) spec.te_clustering = std::atof(params.at("te_clustering").c_str());
  FlowCase c = make_flow_case(name, spec, o.re, o.dt, o.safety);
  c.turbulent = params.count("turbulence") && params.at("turbulence") == "baldwin_lomax";
  if (c.turbulent) c.wall_dist = wall_distance(c.geo);
  if (params.count("convection") && params.at("convection") == "upwind2") c.convection = Convection::upwind2;
  if (params.count("sor_omega")) {
    c.sor_omega = std::atof(params.at("sor_omega").c_str());
    if (!(c.sor_omega > 0 && c.sor_omega < 2)) throw std::invalid_argument("sor_omega must be in (0, 2)");
  }
  return c;
}

void check_flow_options(const FlowCase& c, const SolverOptions& o) {
  const SolverOptions defaults;
  if (o.scheme != defaults.scheme) throw std::runtime_error("--scheme: vorticity transport is forward Euler (paper Sec. 2.2)");
  if (o.poisson_method != "jacobi" && o.poisson_method != "sor")
    throw std::runtime_error("--poisson " + o.poisson_method + ": the stream function is solved by over-relaxed Jacobi "
                             "(jacobi, stage streamvort/stream) or four-colour SOR (sor, stage streamvort/stream_sor)");
  if (o.poisson_method == "sor" && c.psi_ends == XiEnds::periodic && c.geo.grid.nx % 2 != 0)
    throw std::runtime_error("--poisson sor on the O-grid needs an even number of xi nodes (nodes 1 and nx are "
                             "neighbours across the cut and would share a colour)");
  if (o.jacobi_tol != defaults.jacobi_tol)
    throw std::runtime_error("--jacobi-tol: the stream function takes a fixed number of sweeps a step "
                             "(--iterations), equal on every backend as in the paper");
  if (o.jacobi_iterations < 1) throw std::runtime_error("--iterations must be at least 1");
}

template <class T>
HostState<T> flow_initial_state(const FlowCase& c) {
  const std::size_t n = c.geo.grid.padded_points();
  return HostState<T>{c.geo.grid, {{"psi", std::vector<T>(c.psi0.begin(), c.psi0.end())}, {"omega", std::vector<T>(n, T(0))}}};
}

template <class T>
nlohmann::json flow_validation(const FlowCase& c, const HostState<T>& s) {
  const std::vector<double> psi(s.field("psi").begin(), s.field("psi").end());
  const std::vector<double> omega(s.field("omega").begin(), s.field("omega").end());
  nlohmann::json out;
  if (c.geo.spec.body == Body::plate) {
    out = c.turbulent ? turbulent_plate_check(c.geo, omega, c.re) : blasius_check(c.geo, psi, omega, c.re);
  } else {
    const Forces f = wall_forces(c.geo, c.metrics, omega, c.nu);
    out = {{"kind", "symmetry"},
           {"detail", "NACA " + c.geo.spec.naca + " at angle of attack 0: C_L = 0 by symmetry (max_error = |C_L|)"},
           {"max_error", std::abs(f.cl)},
           {"rms_error", std::abs(f.cl)},
           {"cl", f.cl},
           {"cd", f.cd},
           {"cd_pressure", f.cd_pressure},
           {"cd_friction", f.cd_friction}};
  }
  out["time"] = s.time;
  out["steps"] = s.step;
  return out;
}

template HostState<float> flow_initial_state<float>(const FlowCase&);
template HostState<double> flow_initial_state<double>(const FlowCase&);
template nlohmann::json flow_validation<float>(const FlowCase&, const HostState<float>&);
template nlohmann::json flow_validation<double>(const FlowCase&, const HostState<double>&);

}  // namespace nsb
