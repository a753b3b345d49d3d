// The flow solver's cases (Gohari et al. 2012, Sec. 6): naca0012 (Fig. 11: Re 5000, angle of attack 0)
// and flat_plate (Fig. 10: laminar, against Blasius), each on its body-fitted grid, with the metric
// coefficients, the initial state (uniform stream started impulsively: psi of geometry.hpp, omega = 0)
// and the time step.
//
// Command line: --case naca0012 | flat_plate, --grid NXxNYx1 (NX xi nodes, NY eta unknowns between the
// body row and the far-field row), --re (default 100 is the core's; the paper's cases are --re 5000
// and --re 100000), --dt or --safety; --case-param turbulence=baldwin_lomax (default none: laminar) adds the
// streamvort/turbulence stage and the eddy viscosity; --case-param wall_spacing=H sets the first eta
// spacing at the body in chords (default 0.25 / sqrt(Re)); --case-param sor_omega=W the over-relaxation of
// --poisson sor (default 1.5); --case-param convection=upwind2 the vorticity's limited 2nd-order upwinding
// (default hybrid: central / 1st-order upwind, formulas.hpp); --case-param te_clustering=A the far-field xi
// nodes drawn towards the wake line (airfoil; default 0, uniform in angle: geometry.hpp). The flow runs on the algebraic grid (geometry.hpp); the elliptic
// generator is the ogrid solver, timed on its own as in the paper's Table 3.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver.hpp"
#include "grid2d/geometry.hpp"

namespace nsb {

struct FlowCase {
  std::string name;
  Geometry geo;
  Metrics metrics;
  std::vector<double> psi0;  // the initial stream function (its boundary values are the conditions)
  double re = 0, nu = 0, dt = 0;
  double relax = 1;  // Jacobi relaxation of the stream function (the paper's "over-relaxed" factor is not
                     // given; weighted Jacobi is only sure to converge for 0 < w <= 1, notes Sec. 1.3)
  XiEnds psi_ends = XiEnds::periodic;  // of psi and omega: periodic (O-grid) or outflow (plate)
  double sor_omega = 1.5;              // --poisson sor: SOR's over-relaxation (--case-param sor_omega, (0, 2))
  bool turbulent = false;              // Baldwin-Lomax (nu_eff = nu + nu_t) or laminar nu
  Convection convection = Convection::hybrid;  // --case-param convection=hybrid|upwind2
  std::vector<double> wall_dist;       // turbulent: each node's distance from its column's wall node
};

// The grid of a case: GridSpec defaults, the wall spacing 0.25 / sqrt(Re) chords.
GridSpec flow_grid_spec(const std::string& case_name, int nx, int ny, double re);

// Throws std::invalid_argument naming the option it cannot use.
FlowCase make_flow_case(const CaseOptions& o);
FlowCase make_flow_case(const std::string& name, const GridSpec& spec, double re, double dt, double safety);

// Refuses what the time loop cannot honour: a Poisson method other than jacobi or sor (four-colour SOR,
// stage streamvort/stream_sor; on the O-grid an even nx), a residual tolerance (fixed sweep counts, the
// paper's fair comparison), --scheme.
void check_flow_options(const FlowCase& c, const SolverOptions& o);

template <class T>
HostState<T> flow_initial_state(const FlowCase& c);

// naca0012: {"kind": "symmetry", "max_error": |C_L|, "cl", "cd", ...}; flat_plate: blasius_check, or when
// turbulent the skin friction against the turbulent flat plate's C_f = 0.0592 Re_x^-0.2.
template <class T>
nlohmann::json flow_validation(const FlowCase& c, const HostState<T>& s);

}  // namespace nsb
