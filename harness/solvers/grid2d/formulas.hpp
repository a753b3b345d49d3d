// The numerics of Gohari, Esfahanian & Moqtaderi (2012), written once: the per-node operations that the
// CPU reference and every GPU variant of the grid generator (ogrid/sweep) and of the stream-function /
// vorticity solver (streamvort/vorticity, streamvort/stream, streamvort/boundary) call. Variants differ
// only in where the 3 x 3 neighbourhood of a field comes from (global memory, a shared-memory row
// segment, a shared tile): a "stencil" hands an op an accessor f(di, dj) of each of its 9-point fields.
// Notation of docs/solvers/streamvort.md and ../shared/papers/notes/seed_004.md Sec. 1.
//
// Layout. A body-fitted 2D grid is an nsbench Grid{nx, ny, 1}: i = xi (x, fastest), j = eta (y), one
// z level (k = 1); node (i, j) is g.idx(i, j, 1), rows of NX = nx + 2 values, contiguous. The planes
// k = 0 and 2 are never read or written (memory, not traffic; the Grid has no ghost-width field).
//   i = 1..nx   the xi nodes; columns 0 and nx + 1 are ghosts: copies of nx and 1 on a periodic O-grid,
//               the inflow and outflow columns of the flat plate.
//   j = 0       the body (airfoil surface, or the plate and the symmetry line ahead of it);
//   j = 1..ny   the unknowns; j = ny + 1 the far field.
// Computational spacing d(xi) = d(eta) = 1 (the paper's Eq. 3 and 7 as written for index space).
#pragma once

#include <cmath>
#include <cstddef>

#include "grid.hpp"

namespace nsb {

NSB_HD inline std::size_t sv_node(const Grid& g, int i, int j) { return g.idx(i, j, 1); }

// What the xi-ends of a field are, for the op that writes it (every op writes the ghost columns of
// the rows it updates itself, "write-through", so no kernel of its own refreshes them).
enum class XiEnds : int {
  periodic = 0,  // O-grid: column 0 holds node nx, column nx + 1 node 1
  fixed = 1,     // Dirichlet columns (the plate's grid lines, its inflow stream function)
  outflow = 2,   // column nx + 1 copies column nx (zero xi-gradient); column 0 fixed (inflow)
};

template <class T>
NSB_HD inline T sv_abs(T v) {
  return v < T(0) ? -v : v;
}
template <class T>
NSB_HD inline T sv_max(T a, T b) {
  return a < b ? b : a;
}

// Stores v at node (i, j) (padded index n) and at the ghost column that copies it.
template <class T>
NSB_HD inline void store_node(T* f, const Grid& g, int i, std::size_t n, T v, XiEnds ends) {
  f[n] = v;
  if (ends == XiEnds::periodic) {
    if (i == 1) f[n + std::size_t(g.nx)] = v;
    if (i == g.nx) f[n - std::size_t(g.nx)] = v;
  } else if (ends == XiEnds::outflow && i == g.nx) {
    f[n + 1] = v;
  }
}

// Central differences of a 9-point field in index space.
template <class T, class F>
NSB_HD inline T d_xi(const F& f) { return T(0.5) * (f(1, 0) - f(-1, 0)); }
template <class T, class F>
NSB_HD inline T d_eta(const F& f) { return T(0.5) * (f(0, 1) - f(0, -1)); }
template <class T, class F>
NSB_HD inline T d_xi_eta(const F& f) { return T(0.25) * ((f(1, 1) - f(1, -1)) - (f(-1, 1) - f(-1, -1))); }

// ---- Grid generation (paper Sec. 2.1, Eq. 1-3) -------------------------------------------------
// The elliptic system grad^2 xi = P, grad^2 eta = Q in its transformed form (Eq. 3, the paper's typo
// x_xi-eta corrected),
//   alpha x_xixi - 2 beta x_xieta + gamma x_etaeta = -J^2 (P x_xi + Q x_eta)   (and y alike),
//   alpha = x_eta^2 + y_eta^2, beta = x_xi x_eta + y_xi y_eta, gamma = x_xi^2 + y_xi^2,
// with the control functions in Thomas-Middlecoff form, J^2 P = alpha phi, J^2 Q = gamma psi_c
// (phi from the boundary point distributions, psi_c from the algebraic grid's eta stretching,
// geometry.cpp), so that
//   alpha (x_xixi + phi x_xi) - 2 beta x_xieta + gamma (x_etaeta + psi_c x_eta) = 0.
// Over-relaxed Jacobi (the paper's solver): x* solves the node's equation with its neighbours fixed,
//   x* = [alpha (x_E + x_W + phi x_xi) - 2 beta x_xieta + gamma (x_N + x_S + psi_c x_eta)] / (2 (alpha + gamma)),
//   x_new = x + w (x* - x).
// Returns max(|x_new - x|, |y_new - y|) for the residual.
template <class T, class F>
NSB_HD inline T grid_point(const F& x, const F& y, T phi, T psi_c, T relax, T& x_new, T& y_new) {
  const T x_xi = d_xi<T>(x), x_eta = d_eta<T>(x), y_xi = d_xi<T>(y), y_eta = d_eta<T>(y);
  const T alpha = x_eta * x_eta + y_eta * y_eta;
  const T beta = x_xi * x_eta + y_xi * y_eta;
  const T gamma = x_xi * x_xi + y_xi * y_xi;
  const T inv_diag = T(1) / (T(2) * (alpha + gamma));
  const T x_star = (alpha * (x(1, 0) + x(-1, 0) + phi * x_xi) - T(2) * beta * d_xi_eta<T>(x) +
                    gamma * (x(0, 1) + x(0, -1) + psi_c * x_eta)) * inv_diag;
  const T y_star = (alpha * (y(1, 0) + y(-1, 0) + phi * y_xi) - T(2) * beta * d_xi_eta<T>(y) +
                    gamma * (y(0, 1) + y(0, -1) + psi_c * y_eta)) * inv_diag;
  const T dx = relax * (x_star - x(0, 0)), dy = relax * (y_star - y(0, 0));
  x_new = x(0, 0) + dx;
  y_new = y(0, 0) + dy;
  return sv_max(sv_abs(dx), sv_abs(dy));
}

// ---- Flow (paper Sec. 2.2, Eq. 6-7) -------------------------------------------------------------
// The metric coefficients of a node, formed once from the grid (geometry.cpp):
//   ca = alpha / J^2, cb = beta / J^2, cg = gamma / J^2, P = grad^2 xi, Q = grad^2 eta, ij = 1 / J,
// P and Q taken from the discrete grid itself (P = -(y_eta R_x - x_eta R_y) / J^3, Q = -(x_xi R_y -
// y_xi R_x) / J^3 with R = alpha r_xixi - 2 beta r_xieta + gamma r_etaeta), so that the discrete
// Laplacian below is exactly zero on x and y: a uniform stream is a discrete solution.
//
// Laplacian in curvilinear form: L f = ca f_xixi - 2 cb f_xieta + cg f_etaeta + P f_xi + Q f_eta.

// Stream function, grad^2 psi = -omega, over-relaxed Jacobi:
//   psi* = [ca (psi_E + psi_W) + cg (psi_N + psi_S) - 2 cb psi_xieta + P psi_xi + Q psi_eta + omega]
//          / (2 (ca + cg)),   psi_new = psi + w (psi* - psi).
// Returns |psi_new - psi|.
template <class T, class F>
NSB_HD inline T stream_point(const F& psi, T omega, T ca, T cb, T cg, T p, T q, T relax, T& psi_new) {
  const T star = (ca * (psi(1, 0) + psi(-1, 0)) + cg * (psi(0, 1) + psi(0, -1)) - T(2) * cb * d_xi_eta<T>(psi) +
                  p * d_xi<T>(psi) + q * d_eta<T>(psi) + omega) /
                 (T(2) * (ca + cg));
  const T d = relax * (star - psi(0, 0));
  psi_new = psi(0, 0) + d;
  return sv_abs(d);
}

// The convection schemes of the vorticity transport (--case-param convection=hybrid|upwind2).
enum class Convection : int {
  hybrid = 0,   // central at cell Peclet <= 2, 1st-order upwind elsewhere (the default)
  upwind2 = 1,  // central at cell Peclet <= 2, limited 2nd-order upwind elsewhere
};

// The nodes two away along an axis, which 2nd-order upwinding reaches beyond the 3 x 3 stencil. Every
// traversal reads them from global memory (one value a node and axis; the shared-memory ones stage only
// the 3 x 3 neighbourhood), wrapping across the periodic cut (one ghost column holds only i = 0 and
// nx + 1). has() is false where the node is not in the grid: two rows into the body or past the far
// field, past the plate's inflow or outflow column.
template <class T>
struct Reach2 {
  const T* f;  // the field at the node
  std::ptrdiff_t row;
  int i, j, nx, ny;
  XiEnds ends;
  NSB_HD bool has(int di, int dj) const {
    if (dj != 0) return j + dj >= 0 && j + dj <= ny + 1;
    return ends == XiEnds::periodic || (i + di >= 0 && i + di <= nx + 1);
  }
  NSB_HD T operator()(int di, int dj) const {
    if (ends == XiEnds::periodic && (i + di < 0 || i + di > nx + 1)) di += i + di < 0 ? nx : -nx;
    return f[di + dj * row];
  }
};

// Van Leer's limited slope of two successive differences: their harmonic mean where they agree in sign,
// 0 at an extremum (so the scheme adds no new extrema: with forward Euler it is TVD for a Courant number
// up to 1/2, which the time step's 0.8 / (2 (|U| + |V|) + ...) keeps).
template <class T>
NSB_HD inline T van_leer(T a, T b) {
  return a * b > T(0) ? T(2) * a * b / (a + b) : T(0);
}

// Convection c f_axis along xi (axis 0) or eta (axis 1), c the contravariant velocity, d = nu ca (xi)
// or nu cg (eta) the diffusion coefficient of that axis.
//
// hybrid (Spalding): central where the cell Peclet number |c| / d is at most 2, 1st-order upwind
// elsewhere, within the 3 x 3 stencil (the paper's "at least eight neighbouring data"). 1st-order
// upwinding alone adds |c| / 2 of numerical diffusion, comparable to nu across a boundary layer
// (measured: the flat plate's C_f 20-30% off Blasius) and hundreds of times nu in NACA0012's wake.
//
// upwind2: the paper's 2nd-order upwind option where the hybrid is 1st order (central where it is
// central). In MUSCL form along the line ..., a = f(-2s), b = f(-s), m = f(0), p = f(+s) (s the
// upwind sign), the faces m + slope(m - b, p - m) / 2 and b + slope(b - a, m - b) / 2 give
//   f_axis ~ s [ (m - b) + (slope(m - b, p - m) - slope(b - a, m - b)) / 2 ],
// which is (3 m - 4 b + a) / 2 with the unlimited slope (the backward difference) and is 2nd order where
// f is smooth with van Leer's. Unlimited, 2nd-order upwinding with forward Euler amplifies long waves
// unless dt c^2 <= 2 d (about dt <= 2 nu / |u|^2: 1e-5 for the plate at Re 1e5, 500 times below its
// convective step), hence the limiter. Where a is outside the grid (rows 1 and ny, the plate's end
// columns) the hybrid's upwind branch.
template <class T, class F>
NSB_HD inline T convection(const F& f, T c, T d, int axis) {
  const int di = axis == 0 ? 1 : 0, dj = axis == 0 ? 0 : 1;
  if (sv_abs(c) <= T(2) * d) return c * T(0.5) * (f(di, dj) - f(-di, -dj));
  return c * (c > T(0) ? f(0, 0) - f(-di, -dj) : f(di, dj) - f(0, 0));
}
template <class T, class F, class R>
NSB_HD inline T convection(const F& f, const R& far, T c, T d, int axis, Convection scheme) {
  const int s = c > T(0) ? 1 : -1, di = axis == 0 ? s : 0, dj = axis == 0 ? 0 : s;
  if (scheme == Convection::hybrid || sv_abs(c) <= T(2) * d || !far.has(-2 * di, -2 * dj)) return convection(f, c, d, axis);
  const T a = far(-2 * di, -2 * dj), b = f(-di, -dj), m = f(0, 0), p = f(di, dj);
  return c * T(s) * ((m - b) + T(0.5) * (van_leer(m - b, p - m) - van_leer(b - a, m - b)));
}

// The curvilinear Laplacian L f = ca f_xixi - 2 cb f_xieta + cg f_etaeta + P f_xi + Q f_eta.
template <class T, class F>
NSB_HD inline T curvilinear_laplacian(const F& f, T ca, T cb, T cg, T p, T q) {
  return ca * (f(1, 0) - T(2) * f(0, 0) + f(-1, 0)) - T(2) * cb * d_xi_eta<T>(f) +
         cg * (f(0, 1) - T(2) * f(0, 0) + f(0, -1)) + p * d_xi<T>(f) + q * d_eta<T>(f);
}

// Vorticity transport, explicit Euler (paper Eq. 6-7: nu stays inside the Laplacian, L(nu omega)):
//   omega_new = omega + dt [ diffusion - U omega_xi - V omega_eta ],
// U = psi_eta / J, V = -psi_xi / J (contravariant velocities: u = psi_y, v = -psi_x), convection by
// `convection` above (far: omega two nodes away, Reach2) with the node's viscosity nu_node in its cell
// Peclet number. Laminar: diffusion = nu L omega (nu = 1/Re constant); turbulent: diffusion = L(nu_eff
// omega), nu_eff = nu + nu_t.
template <class T, class F, class G, class R>
NSB_HD inline T vorticity_update(const F& omega, const G& psi, const R& far, Convection scheme, T diffusion, T ca, T cg,
                                 T ij, T nu_node, T dt) {
  const T u = d_eta<T>(psi) * ij, v = -d_xi<T>(psi) * ij;
  return omega(0, 0) + dt * (diffusion - convection<T>(omega, far, u, nu_node * ca, 0, scheme) -
                             convection<T>(omega, far, v, nu_node * cg, 1, scheme));
}
template <class T, class F, class G, class R>
NSB_HD inline T vorticity_point(const F& omega, const G& psi, const R& far, Convection scheme, T ca, T cb, T cg, T p,
                                T q, T ij, T nu, T dt) {
  return vorticity_update(omega, psi, far, scheme, nu * curvilinear_laplacian(omega, ca, cb, cg, p, q), ca, cg, ij, nu,
                          dt);
}
// The product a(di, dj) b(di, dj) of two 9-point fields (nu_eff omega).
template <class A, class B>
struct ProductOf {
  A a;
  B b;
  NSB_HD auto operator()(int di, int dj) const { return a(di, dj) * b(di, dj); }
};
template <class T, class F, class G, class N, class R>
NSB_HD inline T turbulent_vorticity_point(const F& omega, const G& psi, const N& nu_eff, const R& far,
                                          Convection scheme, T ca, T cb, T cg, T p, T q, T ij, T dt) {
  const T diffusion = curvilinear_laplacian(ProductOf<F, N>{omega, nu_eff}, ca, cb, cg, p, q);
  return vorticity_update(omega, psi, far, scheme, diffusion, ca, cg, ij, nu_eff(0, 0), dt);
}

// Wall vorticity, no-slip (paper Sec. 2.2, ref. [27]): psi = const on the wall and psi_eta = 0 there
// (both velocity components vanish), so Taylor's expansion one node up gives psi_etaeta = 2 (psi_1 -
// psi_0) and omega = -L psi = -2 cg (psi_1 - psi_0), cg = gamma / J^2 at the wall. The paper prints
// +2 gamma (...) / J^2; with its own convention grad^2 psi = -omega the sign is minus (notes Sec. 1.3),
// which the flat plate's positive skin friction checks.
template <class T>
NSB_HD inline T wall_vorticity(T psi_wall, T psi_above, T cg_wall) {
  return T(-2) * cg_wall * (psi_above - psi_wall);
}

// ---- Baldwin-Lomax (paper Sec. 2.2, its ref. [32]; constants notes Sec. 6.6) --------------------------
// The algebraic eddy viscosity of Baldwin & Lomax (1978), evaluated along each wall-normal grid line
// (a xi column, eta outward) with y the distance from the column's wall node and |omega| the vorticity:
//   inner  nu_t = l^2 |omega|,  l = kappa y D,  D = 1 - exp(-y+ / A+),  y+ = y u_tau / nu, u_tau = sqrt(nu |omega_w|)
//   outer  nu_t = K C_cp F_wake F_kleb(y),  F(y) = y |omega| D,  F_max = F(y_max) its column maximum,
//          F_wake = min(y_max F_max, C_wk y_max U_dif^2 / F_max),  F_kleb = 1 / (1 + 5.5 (C_kleb y / y_max)^6),
//          U_dif the largest speed of the column (0 at the wall)
//   nu_t = inner from the wall up to the first node where inner > outer, outer from there on.
struct BaldwinLomax {
  static constexpr double a_plus = 26, c_cp = 1.6, c_kleb = 0.3, c_wk = 0.25, kappa = 0.4, clauser_k = 0.0168;
};

// Speed |grad psi| from the metric coefficients: |grad psi|^2 = ca psi_xi^2 - 2 cb psi_xi psi_eta + cg psi_eta^2
// (|grad xi|^2 = alpha / J^2, grad xi . grad eta = -beta / J^2, |grad eta|^2 = gamma / J^2).
template <class T, class F>
NSB_HD inline T speed(const F& psi, T ca, T cb, T cg) {
  const T a = d_xi<T>(psi), b = d_eta<T>(psi);
  const T s2 = ca * a * a - T(2) * cb * a * b + cg * b * b;
  using std::sqrt;
  return s2 > T(0) ? sqrt(s2) : T(0);
}

// Van Driest's damping D and the two branches at one node (y its wall distance, w = |omega|).
template <class T>
NSB_HD inline T van_driest(T y, T u_tau, T nu) {
  using std::exp;
  return T(1) - exp(-y * u_tau / (nu * T(BaldwinLomax::a_plus)));
}
template <class T>
NSB_HD inline T bl_inner(T y, T w, T damping) {
  const T l = T(BaldwinLomax::kappa) * y * damping;
  return l * l * w;
}
template <class T>
NSB_HD inline T bl_outer(T y, T y_max, T f_wake) {
  const T r = T(BaldwinLomax::c_kleb) * y / y_max;
  const T r2 = r * r;
  return T(BaldwinLomax::clauser_k * BaldwinLomax::c_cp) * f_wake / (T(1) + T(5.5) * r2 * r2 * r2);
}
// F_wake from the column's F_max at y_max and its speed difference.
template <class T>
NSB_HD inline T bl_wake(T f_max, T y_max, T u_dif) {
  if (!(f_max > T(0))) return T(0);
  const T a = y_max * f_max, b = T(BaldwinLomax::c_wk) * y_max * u_dif * u_dif / f_max;
  return a < b ? a : b;
}

}  // namespace nsb
