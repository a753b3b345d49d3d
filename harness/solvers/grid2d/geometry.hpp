// The bodies, grids and post-processing of Gohari et al. (2012), on the host in double: the algebraic
// initial grid the paper's CPU builds (Sec. 4, Fig. 13 step 1), the control functions of the elliptic
// generator, the metric coefficients of the flow equations, the flow's initial state and time step,
// and what a final state is judged by (forces, Blasius). Layout and formulas: formulas.hpp.
//
// Defaults the paper leaves open (notes Sec. 6.6), documented in docs/solvers/streamvort.md:
//   far-field radius 20 chords from mid-chord; wall spacing 0.25 / sqrt(Re) chords (about 1/20 of the
//   Blasius thickness at x = 1) unless set; eta stretched exponentially to that first spacing; xi of
//   the airfoil cosine-clustered towards both edges (x = (1 + cos 2 pi t) / 2), clockwise from the
//   trailing edge, the far field's uniform in angle unless te_clustering (default 0) draws them
//   towards the wake line behind the trailing edge; NACA 4-digit with the closed trailing edge (coefficient -0.1036), so the cut is a
//   single point; the flat plate from x = -0.5 (inflow, symmetry line ahead of the leading edge at
//   x = 0) to x = 1 (outflow), height 1; uniform stream along +x (angle of attack 0).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "grid.hpp"
#include "grid2d/formulas.hpp"

namespace nsb {

enum class Body { airfoil, plate };

struct GridSpec {
  Body body = Body::airfoil;
  std::string naca = "0012";     // NACA 4-digit designation (airfoil)
  int nx = 128, ny = 64;         // xi nodes, eta unknowns (rows 0 and ny + 1 are the boundaries)
  double far_radius = 20;        // airfoil: outer circle's radius, chords, about mid-chord
  double te_clustering = 0;      // airfoil: far-field xi nodes clustered towards the wake line, [0, 1):
                                 // the angular spacing there is (1 - a) times the uniform one (0: uniform)
  double wall_spacing = 2e-3;    // first eta spacing at the body, chords
  double plate_upstream = 0.5;   // plate: inflow at x = -plate_upstream
  double plate_length = 1;       // plate: outflow at x = plate_length
  double plate_height = 1;       // plate: far field at y = plate_height
};

// A grid of nodes (x, y) in the layout of formulas.hpp, every column and row filled (ghost columns of
// an O-grid are the periodic copies).
struct Geometry {
  GridSpec spec;
  Grid grid;
  std::vector<double> x, y;      // padded arrays of grid.padded_points()
  std::vector<double> eta_frac;  // s_j in [0, 1], j = 0..ny + 1: the algebraic grid's eta stretching
  XiEnds ends = XiEnds::periodic;
  int wall_begin = 1;            // first column of the no-slip wall (the plate's leading edge); airfoil 1
};

// Half-thickness and camber line of a NACA 4-digit section at chord fraction xc (closed trailing edge).
double naca_thickness(const std::string& digits, double xc);
double naca_camber(const std::string& digits, double xc);

// The first eta spacing s(1) of s(j) = (e^{k j / n} - 1) / (e^k - 1) solved for k (bisection); k -> 0
// is uniform.
std::vector<double> exponential_stretching(int n, double first_fraction);

// The paper's step 1: the algebraic grid (radial lines from body to far field for the airfoil, a
// Cartesian stretched grid for the plate).
Geometry algebraic_grid(const GridSpec& spec);

// Thomas-Middlecoff control functions of the elliptic generator (formulas.hpp grid_point): phi from
// the xi point distributions of the body and far-field rows, linear in eta between them; psi_c =
// -(r_eta . r_etaeta) / |r_eta|^2 of the algebraic grid at each node (its eta stretching). The
// algebraic plate grid is then a fixed point of the generator.
void grid_controls(const Geometry& geo, std::vector<double>& phi, std::vector<double>& psi_c);

// Metric coefficients (formulas.hpp): ca, cb, cg, P, Q, ij at every node of columns 1..nx, rows
// 0..ny + 1 (eta one-sided at the two boundary rows, where P, Q are 0: no equation is solved there),
// ghost columns copied as the grid's ends say. Throws std::runtime_error naming the node where a row of
// unknowns has a cell of zero or negative area (a folded grid).
struct Metrics {
  std::vector<double> ca, cb, cg, p, q, ij;
};
Metrics grid_metrics(const Grid& g, const std::vector<double>& x, const std::vector<double>& y, XiEnds ends);

// The uniform stream's stream function psi = y (angle of attack 0), and the initial field
// psi = psi_inf - psi_inf(wall node of the column) (1 - s_j): 0 on the body, the free stream far away.
std::vector<double> initial_stream_function(const Geometry& geo);

// The explicit step's limit with `safety` (0, 1]: dt = safety / max over nodes of
// (2 (|U| + |V|) + 2 nu (ca + cg)), U, V of the initial stream function (doubled for the speed-up
// near the body).
double stable_time_step(const Geometry& geo, const Metrics& m, const std::vector<double>& psi, double nu,
                        double safety);

// Each node's distance from the wall node of its column (Baldwin-Lomax's y; the grid lines leave the
// body about normal to it), every column including the ghosts.
std::vector<double> wall_distance(const Geometry& geo);

// Wall pressure by the paper's line integral (Eq. 8) and the forces on the body (rho = 1, U = 1, chord 1).
// Derivation (written here because the sign conventions are where it goes wrong):
//   At a no-slip wall u = 0, so the momentum equation leaves grad p = nu lap u = -nu curl(omega z) =
//   nu (-omega_y, omega_x). Along the wall, dp/dxi = grad p . r_xi = nu (-omega_y x_xi + omega_x y_xi), and
//   with omega_x = (y_eta omega_xi - y_xi omega_eta) / J, omega_y = (x_xi omega_eta - x_eta omega_xi) / J:
//     dp/dxi = nu (beta omega_xi - gamma omega_eta) / J      (the paper's Eq. 8, beta, gamma as in Eq. 3)
//   integrated from the trailing edge (p_TE = 0: a constant adds nothing around a closed body).
//   xi runs clockwise, eta outward, J > 0, so n ds = (-y_xi, x_xi) dxi is the body's normal into the fluid.
//   Pressure force on the body: -sum p n ds. Viscous traction on the body: mu (grad u + grad u^T) n, which
//   at a no-slip wall is nu omega (z x n) = nu omega (-n_y, n_x): sum nu omega (-x_xi, -y_xi) dxi
//   (flat-plate check: n = (0, 1), traction nu u_y = -nu omega along x).
//   C = F / (rho U^2 c / 2) = 2 F. cp[i - 1] = 2 p, cf[i - 1] = 2 nu omega_wall for i = 1..nx.
// omega_eta at the wall is one-sided (-3 w_0 + 4 w_1 - w_2) / 2 and w_0 is Thom's (first order), so the
// pressure inherits the wall vorticity's error, amplified by gamma / J = |r_xi| / |r_eta| (about 14 at
// the default spacing): the reason to keep an independent drag estimate (vortical_impulse_x).
struct Forces {
  double cl = 0, cd = 0, cd_pressure = 0, cd_friction = 0;
  std::vector<double> cp, cf;
};
Forces wall_forces(const Geometry& geo, const Metrics& m, const std::vector<double>& omega, double nu);

// The x-component of the vortical impulse, I_x = integral of y omega dA over the fluid (trapezoidal in
// eta: the wall row and the far-field row weigh 1/2; dA = J dxi deta). In an unbounded fluid at rest
// at infinity the force on a body moving at constant velocity is F = -rho dI/dt (Wu 1981; I = integral
// of r x omega dA, whose x-component y omega is unchanged by translating the flow along x, so it holds in
// the body's frame too): D = -dI_x/dt, C_D = 2 D, as long as no vorticity reaches the far field.
// r_min: only nodes at least that far from mid-chord (0.5, 0) (to split the body's layers from the wake).
double vortical_impulse_x(const Geometry& geo, const Metrics& m, const std::vector<double>& omega, double r_min = 0);

// Blasius: f''' + f f'' / 2 = 0, f(0) = f'(0) = 0, f'(inf) = 1, by RK4 from f''(0) = 0.332057336;
// f'(eta) at eta = y sqrt(U / (nu x)).
double blasius_fprime(double eta);

// The plate's skin friction and velocity profile against Blasius: C_f = 0.664 / sqrt(Re_x) on
// x in [0.2, 0.8] (away from the leading-edge singularity and the outflow), u / U at x = 0.5 against
// f'(eta) for eta <= 8. {"kind": "blasius", "max_error" (relative, C_f), "rms_error", "profile_max_error", ...}
nlohmann::json blasius_check(const Geometry& geo, const std::vector<double>& psi, const std::vector<double>& omega,
                             double re);

// The turbulent plate (Baldwin-Lomax from the leading edge): C_f against the 1/7-power law's
// C_f = 0.0592 Re_x^-0.2 on x in [0.2, 0.8]. {"kind": "turbulent_plate", "max_error", "rms_error", "stations"}.
nlohmann::json turbulent_plate_check(const Geometry& geo, const std::vector<double>& omega, double re);

}  // namespace nsb
