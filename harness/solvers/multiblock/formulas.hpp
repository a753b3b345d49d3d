// The multi-block solver's numerics, written once: the per-node and per-cell formulas of the nine
// routines of Kemal, Davis & Owens (2015) that the CPU reference and every GPU variant call.
//
// A REPRESENTATIVE solver (notes seed_003.md Sec. 1.2, 6.1): the paper's MBFLO2 is a production Fortran
// code whose equations it prints (Eqs. 1-10) but whose discrete routines it does not. nsbench implements
// the same routines with the same data movement: a Ni (1982) Lax-Wendroff cell-vertex step in
// non-dimensional variables (rho_inf = 1, c_inf = 1, cylinder diameter 1), Favre-averaged with Wilcox
// k-omega and the DES length-scale limiter (Eqs. 7-9), and explicit heat conduction in the solid (Eq. 10).
// Every constant the paper leaves open is a documented default below.
//
// Unknowns at nodes: rho, rho u, rho v, E, rho k, rho omega (fluid blocks), T (solid blocks). A stage reads
// and writes whole fields (MbArrays: one pointer per named field, SoA); `n` is a padded node index and
// `sj` the stride of j (mesh.hpp).
#pragma once

#include <cmath>
#include <cstddef>

#include "grid.hpp"
#include "unroll.hpp"

namespace nsb {

// Every field of the solver, in the order FieldSet allocates them. Fields from kMbScratch on are scratch
// (the scatter buffers of the buffered flux variants): no state, not compared by verify.
enum MbField : int {
  kRho, kRu, kRv, kE, kRk, kRw,                  // conserved unknowns (fluid)
  kMu, kMut, kDt,                                // lamvis, deltatp
  kTxx, kTxy, kTyy, kQx, kQy,                    // stressp: viscous stresses, heat flux
  kQkx, kQky, kQwx, kQwy, kSk, kSw,              // stresstrb: k and omega diffusion fluxes, sources
  kRes0, kRes1, kRes2, kRes3, kRes4, kRes5,      // accumulated change x node volume, per unknown
  kTs, kResT,                                    // solid temperature and its change
  kX, kY, kXix, kXiy, kEtx, kEty, kHlen, kVol,   // geometry (mesh.hpp)
  kMbScratch,
  kMbFieldCount = kMbScratch + 12,               // 3 corner buffers x 4 unknowns (flux; fluxtrb uses 2)
};
inline constexpr const char* kMbFieldNames[kMbFieldCount] = {
    "rho", "rho_u", "rho_v", "energy", "rho_k", "rho_omega", "mu", "mu_t", "dt",
    "tau_xx", "tau_xy", "tau_yy", "q_x", "q_y", "qk_x", "qk_y", "qw_x", "qw_y", "src_k", "src_omega",
    "res_rho", "res_rho_u", "res_rho_v", "res_energy", "res_rho_k", "res_rho_omega", "temperature", "res_temperature",
    "x", "y", "xi_x", "xi_y", "eta_x", "eta_y", "hlen", "vol",
    "buf0", "buf1", "buf2", "buf3", "buf4", "buf5", "buf6", "buf7", "buf8", "buf9", "buf10", "buf11"};

// The arrays of one solver or fixture, by field (trivially copyable: a kernel argument).
template <class T>
struct MbArrays {
  T* f[kMbFieldCount];
};

// Constants. The paper states Re = 2e5 (on the cylinder diameter) and C_des = 0.65; the rest are
// nsbench's documented defaults (notes Sec. 1.1: Wilcox's k-omega values; air).
namespace mbc {
inline constexpr double gamma = 1.4, prandtl = 0.72, prandtl_t = 0.9;
inline constexpr double mach = 0.2, reynolds = 2e5;         // free stream: rho = 1, |u| = M, c = 1
inline constexpr double t_inf = 1 / gamma;                  // T = p / rho, p_inf = 1 / gamma
inline constexpr double sutherland = 110.4 / 288.15 * t_inf;  // Sutherland's S for air at 288 K
inline constexpr double mu_inf = mach / reynolds;          // rho_inf |u_inf| D / Re, D = 1
inline constexpr double beta_star = 0.09, beta = 0.075, alpha = 5.0 / 9.0, sigma_star = 0.5, sigma_d = 0.125;
inline constexpr double c_des = 0.65;                        // stated (Sec. II)
inline constexpr double cfl = 0.4;                           // local time step
inline constexpr double kappa2 = 0.25, kappa4 = 1.0 / 64;  // smoothing: pressure-switched 2nd, 4th differences
inline constexpr double kappa_trb = 1.0 / 64;               // smthtrb: fourth differences only
inline constexpr double solid_fourier = 0.25;               // conjugatep: explicit step, per direction
inline constexpr double k_inf = 1e-6 * mach * mach, omega_inf = 10 * mach;  // free-stream turbulence
// Floors of k and omega wherever they divide or are divided (and the update's clip): the explicit sources
// are stiff, and an omega near 0 makes sigma_d rho / omega blow up.
inline constexpr double k_floor = 1e-3 * k_inf, omega_floor = 1e-2 * omega_inf;
inline constexpr double omega_wall = 10 * omega_inf;       // wall omega (the paper gives none; kept moderate: the sources are explicit)
inline constexpr double t_solid_initial = 1.2 * t_inf;      // a heated cylinder
}  // namespace mbc

// Elementary functions by argument-dependent name, so the flop counter (models.cpp) can count them.
template <class T> NSB_HD inline T mb_sqrt(T v) {
  using std::sqrt;
  return sqrt(v);
}
template <class T> NSB_HD inline T mb_abs(T v) { return v < T(0) ? -v : v; }
template <class T> NSB_HD inline T mb_min(T a, T b) { return b < a ? b : a; }
template <class T> NSB_HD inline T mb_max(T a, T b) { return a < b ? b : a; }

// Pressure of a node's conserved values: p = (gamma - 1) (E - (rho u^2 + rho v^2) / (2 rho)).
template <class T>
NSB_HD inline T mb_pressure(T rho, T ru, T rv, T e) {
  return T(mbc::gamma - 1) * (e - T(0.5) * (ru * ru + rv * rv) / rho);
}
template <class T>
NSB_HD inline T mb_pressure_at(const MbArrays<T>& a, std::size_t n) {
  return mb_pressure(a.f[kRho][n], a.f[kRu][n], a.f[kRv][n], a.f[kE][n]);
}

// lamvis: Sutherland's law for mu (stated, Sec. II) and the DES eddy viscosity mu_t = rho l sqrt(k),
// l = min(sqrt(k) / omega, beta* C_des Delta) (Eqs. 7-8), Delta = hlen.
template <class T>
NSB_HD inline void lamvis_point(const MbArrays<T>& a, std::size_t n) {
  const T rho = a.f[kRho][n];
  const T temp = mb_pressure_at(a, n) / rho;
  const T ratio = temp / T(mbc::t_inf);
  a.f[kMu][n] = T(mbc::mu_inf) * ratio * mb_sqrt(ratio) * T(mbc::t_inf + mbc::sutherland) / (temp + T(mbc::sutherland));
  const T k = mb_max(a.f[kRk][n] / rho, T(mbc::k_floor)), omega = mb_max(a.f[kRw][n] / rho, T(mbc::omega_floor));
  const T sqrt_k = mb_sqrt(k);
  const T length = mb_min(sqrt_k / omega, T(mbc::beta_star * mbc::c_des) * a.f[kHlen][n]);
  a.f[kMut][n] = rho * length * sqrt_k;
}

// deltatp: the local time step, dt = CFL h / (|u| + |v| + c + 2 (mu + mu_t) / (rho h)).
template <class T>
NSB_HD inline void deltatp_point(const MbArrays<T>& a, std::size_t n) {
  const T rho = a.f[kRho][n], u = a.f[kRu][n] / rho, v = a.f[kRv][n] / rho;
  const T c = mb_sqrt(T(mbc::gamma) * mb_pressure_at(a, n) / rho);
  const T h = a.f[kHlen][n];
  a.f[kDt][n] = T(mbc::cfl) * h / (mb_abs(u) + mb_abs(v) + c + T(2) * (a.f[kMu][n] + a.f[kMut][n]) / (rho * h));
}

// Cartesian gradient at node n of a nodal quantity given at its four neighbours (central differences in
// i and j, chain rule with the node's metrics). The ghosts supply the neighbours at block edges.
template <class T>
struct MbGrad {
  T x, y;
};
template <class T>
NSB_HD inline MbGrad<T> mb_grad(const MbArrays<T>& a, std::size_t n, T east, T west, T north, T south) {
  const T d_xi = T(0.5) * (east - west), d_eta = T(0.5) * (north - south);
  return {d_xi * a.f[kXix][n] + d_eta * a.f[kEtx][n], d_xi * a.f[kXiy][n] + d_eta * a.f[kEty][n]};
}
// The quantity a gradient is taken of, at node m: field num / rho (a velocity, k, omega), or h =
// gamma/(gamma-1) p / rho when num < 0. Written once: the shared-memory tiles (variants/multiblock/
// tile.cuh) store it per node, the global variants compute it at each neighbour.
template <class T>
NSB_HD inline T mb_ratio_at(const MbArrays<T>& a, std::size_t m, int num) {
  if (num < 0) return T(mbc::gamma / (mbc::gamma - 1)) * mb_pressure_at(a, m) / a.f[kRho][m];
  return a.f[num][m] / a.f[kRho][m];
}
// Gradient of quantity q at node n, where `at(q, di, dj)` gives it at node (i + di, j + dj): from the
// arrays (mb_grad_ratio) or a shared-memory tile (variants/multiblock/tile.cuh).
template <class T, class At>
NSB_HD inline MbGrad<T> mb_grad_of(const MbArrays<T>& a, std::size_t n, const At& at, int q) {
  return mb_grad(a, n, at(q, 1, 0), at(q, -1, 0), at(q, 0, 1), at(q, 0, -1));
}
// Gradient of mb_ratio_at(num) from its values at the node's four neighbours in the arrays.
template <class T>
NSB_HD inline MbGrad<T> mb_grad_ratio(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj, int num) {
  const auto at = [&](int, int di, int dj) { return mb_ratio_at(a, n + std::size_t(di + dj * sj), num); };
  return mb_grad_of(a, n, at, 0);
}

// stressp: viscous stresses of the mean flow and the heat flux, at nodes:
//   tau_xx = mu_e (2 u_x - 2/3 div), tau_yy = mu_e (2 v_y - 2/3 div), tau_xy = mu_e (u_y + v_x), mu_e = mu + mu_t
//   q = (mu / Pr + mu_t / Pr_t) grad h   (Eq. 3's diffusion term; h = gamma/(gamma-1) T)
// The quantities stressp takes gradients of (mb_ratio_at's num), q = 0..2: u, v, h.
NSB_HD constexpr int mb_stressp_ratio(int q) { return q == 0 ? kRu : q == 1 ? kRv : -1; }
// stressp from the gradients of u, v, h at node n (the tile variant's entry; stressp_point below takes them
// from the arrays).
template <class T>
NSB_HD inline void stressp_with(const MbArrays<T>& a, std::size_t n, MbGrad<T> gu, MbGrad<T> gv, MbGrad<T> gh) {
  const T mu = a.f[kMu][n], mut = a.f[kMut][n], mu_e = mu + mut;
  const T div = gu.x + gv.y;
  a.f[kTxx][n] = mu_e * (T(2) * gu.x - T(2.0 / 3) * div);
  a.f[kTyy][n] = mu_e * (T(2) * gv.y - T(2.0 / 3) * div);
  a.f[kTxy][n] = mu_e * (gu.y + gv.x);
  const T kappa = mu / T(mbc::prandtl) + mut / T(mbc::prandtl_t);
  a.f[kQx][n] = kappa * gh.x;
  a.f[kQy][n] = kappa * gh.y;
}
template <class T>
NSB_HD inline void stressp_point(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj) {
  stressp_with(a, n, mb_grad_ratio(a, n, sj, mb_stressp_ratio(0)), mb_grad_ratio(a, n, sj, mb_stressp_ratio(1)),
               mb_grad_ratio(a, n, sj, mb_stressp_ratio(2)));
}

// stresstrb: diffusion fluxes (mu + sigma* mu_t) grad k, grad omega and the sources of Eqs. 5-6 with the
// DES-limited dissipation (Eq. 9): production P = tau_ij du_i/dx_j (limited to 20 beta* rho k omega),
//   S_k = P - beta* rho k max(omega, sqrt(k) / (beta* C_des Delta)),
//   S_w = alpha (omega / k) P - beta rho omega^2 + sigma_d (rho / omega) max(grad k . grad omega, 0).
// The quantities stresstrb takes gradients of, q = 0..3: u, v, k, omega.
NSB_HD constexpr int mb_stresstrb_ratio(int q) { return q == 0 ? kRu : q == 1 ? kRv : q == 2 ? kRk : kRw; }
template <class T>
NSB_HD inline void stresstrb_with(const MbArrays<T>& a, std::size_t n, MbGrad<T> gu, MbGrad<T> gv, MbGrad<T> gk, MbGrad<T> gw) {
  const T rho = a.f[kRho][n];
  const T k = mb_max(a.f[kRk][n] / rho, T(mbc::k_floor)), omega = mb_max(a.f[kRw][n] / rho, T(mbc::omega_floor));
  const T diffusivity = a.f[kMu][n] + T(mbc::sigma_star) * a.f[kMut][n];
  a.f[kQkx][n] = diffusivity * gk.x, a.f[kQky][n] = diffusivity * gk.y;
  a.f[kQwx][n] = diffusivity * gw.x, a.f[kQwy][n] = diffusivity * gw.y;
  const T production = mb_min(a.f[kTxx][n] * gu.x + a.f[kTxy][n] * (gu.y + gv.x) + a.f[kTyy][n] * gv.y,
                              T(20 * mbc::beta_star) * rho * k * omega);
  const T omega_des = mb_max(omega, mb_sqrt(k) / (T(mbc::beta_star * mbc::c_des) * a.f[kHlen][n]));
  a.f[kSk][n] = production - T(mbc::beta_star) * rho * k * omega_des;
  const T cross = gk.x * gw.x + gk.y * gw.y;
  a.f[kSw][n] = T(mbc::alpha) * omega / k * production - T(mbc::beta) * rho * omega * omega +
                T(mbc::sigma_d) * rho / omega * mb_max(cross, T(0));
}
template <class T>
NSB_HD inline void stresstrb_point(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj) {
  stresstrb_with(a, n, mb_grad_ratio(a, n, sj, mb_stresstrb_ratio(0)), mb_grad_ratio(a, n, sj, mb_stresstrb_ratio(1)),
                 mb_grad_ratio(a, n, sj, mb_stresstrb_ratio(2)), mb_grad_ratio(a, n, sj, mb_stresstrb_ratio(3)));
}

// ---- flux and fluxtrb: one cell's Ni (1982) Lax-Wendroff change, distributed to its four corners.
//
// Corners k = 0..3: (i, j), (i+1, j), (i+1, j+1), (i, j+1), at (s_i, s_j) = (-,-), (+,-), (+,+), (-,+).
//   dU_c  = -(dt_c / A) sum over the 4 edges of (F dy - G dx) (trapezoidal) + dt_c S_c,  A signed area
//   dF, dG = the change of the (inviscid) fluxes that dU_c makes
//   corner k gets |A| / 4 [dU_c + (dt_c / A) (s_i (dF y_eta - dG x_eta) + s_j (dG x_xi - dF y_xi))]
// (x_xi, y_xi: the cell's mean i edge; x_eta, y_eta: its mean j edge). Summed over the four cells of a
// node and divided by the node's volume this is U_t dt + U_tt dt^2 / 2 (Lax-Wendroff); the second term
// sums to zero over a cell's corners, so the cells' total is conserved.
NSB_HD inline int mb_corner_si(int k) { return k == 1 || k == 2 ? 1 : -1; }
NSB_HD inline int mb_corner_sj(int k) { return k >= 2 ? 1 : -1; }
NSB_HD inline std::size_t mb_corner(std::size_t c00, std::ptrdiff_t sj, int k) {
  return k == 0 ? c00 : k == 1 ? c00 + 1 : k == 2 ? c00 + sj + 1 : c00 + sj;
}

// flux: rho, rho u, rho v, E with inviscid and viscous fluxes.
struct MbMeanFlow {
  static constexpr int kVars = 4;
  static constexpr int kFirst = kRes0;  // the res fields it adds to
  template <class T>
  NSB_HD static void inviscid(const T* U, T* F, T* G) {
    const T u = U[1] / U[0], v = U[2] / U[0], p = mb_pressure(U[0], U[1], U[2], U[3]);
    F[0] = U[1], F[1] = U[1] * u + p, F[2] = U[2] * u, F[3] = (U[3] + p) * u;
    G[0] = U[2], G[1] = U[1] * v, G[2] = U[2] * v + p, G[3] = (U[3] + p) * v;
  }
  template <class T>
  NSB_HD static void node(const MbArrays<T>& a, std::size_t n, T* U, T* F, T* G, T* S) {
    for (int v = 0; v < 4; ++v) U[v] = a.f[kRho + v][n], S[v] = T(0);
    inviscid(U, F, G);
    const T u = U[1] / U[0], v = U[2] / U[0];
    const T txx = a.f[kTxx][n], txy = a.f[kTxy][n], tyy = a.f[kTyy][n];
    F[1] = F[1] - txx, F[2] = F[2] - txy, F[3] = F[3] - (u * txx + v * txy + a.f[kQx][n]);
    G[1] = G[1] - txy, G[2] = G[2] - tyy, G[3] = G[3] - (u * txy + v * tyy + a.f[kQy][n]);
  }
  template <class T>
  NSB_HD static void flux_change(const T* Uc, const T* dU, T* dF, T* dG) {
    T F0[4], G0[4], U1[4], F1[4], G1[4];
    inviscid(Uc, F0, G0);
    for (int v = 0; v < 4; ++v) U1[v] = Uc[v] + dU[v];
    inviscid(U1, F1, G1);
    for (int v = 0; v < 4; ++v) dF[v] = F1[v] - F0[v], dG[v] = G1[v] - G0[v];
  }
};

// fluxtrb: rho k, rho omega, convected with the mean flow, diffused (stresstrb's fluxes), with sources.
struct MbTurbulence {
  static constexpr int kVars = 2;
  static constexpr int kFirst = kRes4;
  template <class T>
  NSB_HD static void node(const MbArrays<T>& a, std::size_t n, T* U, T* F, T* G, T* S) {
    const T u = a.f[kRu][n] / a.f[kRho][n], v = a.f[kRv][n] / a.f[kRho][n];
    U[0] = a.f[kRk][n], U[1] = a.f[kRw][n];
    F[0] = U[0] * u - a.f[kQkx][n], G[0] = U[0] * v - a.f[kQky][n];
    F[1] = U[1] * u - a.f[kQwx][n], G[1] = U[1] * v - a.f[kQwy][n];
    S[0] = a.f[kSk][n], S[1] = a.f[kSw][n];
  }
  // Linearised: the cell's mean velocity carries the change (u_c, v_c kept from node()).
  template <class T>
  NSB_HD static void flux_change(T uc, T vc, const T* dU, T* dF, T* dG) {
    for (int v = 0; v < 2; ++v) dF[v] = uc * dU[v], dG[v] = vc * dU[v];
  }
};

// The four corners' contributions of cell (i, j) whose first corner is c00: out[k][v].
template <class Phys, class T>
NSB_HD inline void ni_cell(const MbArrays<T>& a, std::size_t c00, std::ptrdiff_t sj, T (*out)[Phys::kVars]) {
  constexpr int NV = Phys::kVars;
  T x[4], y[4], U[4][NV], F[4][NV], G[4][NV], S[4][NV];
  T dt_c = 0, uc = 0, vc = 0;
  for (int k = 0; k < 4; ++k) {
    const std::size_t n = mb_corner(c00, sj, k);
    x[k] = a.f[kX][n], y[k] = a.f[kY][n];
    Phys::node(a, n, U[k], F[k], G[k], S[k]);
    dt_c = dt_c + a.f[kDt][n];
    uc = uc + a.f[kRu][n] / a.f[kRho][n], vc = vc + a.f[kRv][n] / a.f[kRho][n];
  }
  dt_c = T(0.25) * dt_c, uc = T(0.25) * uc, vc = T(0.25) * vc;
  const T area = T(0.5) * ((x[2] - x[0]) * (y[3] - y[1]) - (x[3] - x[1]) * (y[2] - y[0]));
  const T scale = dt_c / area;
  T Uc[NV], dU[NV], dF[NV], dG[NV];
  for (int v = 0; v < NV; ++v) {
    T contour = 0;
    for (int k = 0; k < 4; ++k) {
      const int l = (k + 1) & 3;
      contour = contour + T(0.5) * ((F[k][v] + F[l][v]) * (y[l] - y[k]) - (G[k][v] + G[l][v]) * (x[l] - x[k]));
    }
    dU[v] = -scale * contour + dt_c * T(0.25) * (S[0][v] + S[1][v] + S[2][v] + S[3][v]);
    Uc[v] = T(0.25) * (U[0][v] + U[1][v] + U[2][v] + U[3][v]);
  }
  if constexpr (NV == 4) Phys::flux_change(Uc, dU, dF, dG);
  else Phys::flux_change(uc, vc, dU, dF, dG);
  const T x_xi = T(0.5) * ((x[1] - x[0]) + (x[2] - x[3])), y_xi = T(0.5) * ((y[1] - y[0]) + (y[2] - y[3]));
  const T x_eta = T(0.5) * ((x[3] - x[0]) + (x[2] - x[1])), y_eta = T(0.5) * ((y[3] - y[0]) + (y[2] - y[1]));
  const T quarter_area = T(0.25) * mb_abs(area);
  for (int v = 0; v < NV; ++v) {
    const T along_i = scale * (dF[v] * y_eta - dG[v] * x_eta), along_j = scale * (dG[v] * x_xi - dF[v] * y_xi);
    for (int k = 0; k < 4; ++k)
      out[k][v] = quarter_area * (dU[v] + T(mb_corner_si(k)) * along_i + T(mb_corner_sj(k)) * along_j);
  }
}

// ---- smoothing (smthp/smthu, smthtrb): artificial dissipation added to res (x the node volume).
// Per direction: second differences switched by the pressure's (nu = |p+ - 2p + p-| / (p+ + 2p + p-)) and
// fourth differences where both neighbours at distance 2 exist (padded index 2..N-1; the block-edge
// nodes take second differences only, so both copies of a shared node compute the same).
template <class T>
NSB_HD inline T mb_smooth_1d(const T* q, T eps2, T eps4, bool fourth) {
  // q[0..4] = values at -2..+2 (q[0], q[4] unread without the fourth difference)
  T d = eps2 * (q[3] - T(2) * q[2] + q[1]);
  if (fourth) d = d - eps4 * (q[4] - T(4) * q[3] + T(6) * q[2] - T(4) * q[1] + q[0]);
  return d;
}
// smthp's quantities at a node: rho, rho u, rho v, E (q = 0..3) and the pressure (q = 4).
inline constexpr int kMbSmthpValues = 5;
template <class T>
NSB_HD inline T mb_smthp_value(const MbArrays<T>& a, std::size_t m, int q) {
  return q < 4 ? a.f[kRho + q][m] : mb_pressure_at(a, m);
}
// smthp: rho, rho u, rho v, E at node (i, j) of a block of n nodes a side. `at(q, di, dj)` is
// mb_smthp_value(q) at node (i + di, j + dj): from the arrays (smthp_point) or a shared-memory tile
// (variants/multiblock/tile.cuh), the same numbers either way.
template <class T, class At>
NSB_HD inline void smthp_with(const MbArrays<T>& a, std::size_t node, const At& at, int i, int j, int n) {
  T change[4] = {0, 0, 0, 0};
  NSB_UNROLL  // both directions inline, so that at()'s offsets are constants: 48 registers in double, 68 without
  for (int dir = 0; dir < 2; ++dir) {
    const int di = dir == 0 ? 1 : 0, dj = 1 - di;
    const int pos = dir == 0 ? i : j;
    const bool fourth = pos >= 2 && pos <= n - 1;
    const T pm = at(4, -di, -dj), p0 = at(4, 0, 0), pp = at(4, di, dj);
    const T nu = mb_abs(pp - T(2) * p0 + pm) / (pp + T(2) * p0 + pm);
    const T eps2 = T(mbc::kappa2) * mb_min(nu, T(1));
    const T eps4 = mb_max(T(0), T(mbc::kappa4) - eps2);
    for (int v = 0; v < 4; ++v) {
      const T q[5] = {fourth ? at(v, -2 * di, -2 * dj) : T(0), at(v, -di, -dj), at(v, 0, 0), at(v, di, dj),
                      fourth ? at(v, 2 * di, 2 * dj) : T(0)};
      change[v] = change[v] + mb_smooth_1d(q, eps2, eps4, fourth);
    }
  }
  const T vol = a.f[kVol][node];
  for (int v = 0; v < 4; ++v) a.f[kRes0 + v][node] = a.f[kRes0 + v][node] + vol * change[v];
}
template <class T>
NSB_HD inline void smthp_point(const MbArrays<T>& a, std::size_t node, std::ptrdiff_t sj, int i, int j, int n) {
  const auto at = [&](int q, int di, int dj) { return mb_smthp_value(a, node + std::size_t(di + dj * sj), q); };
  smthp_with(a, node, at, i, j, n);
}
// smthtrb's quantities at a node: rho k, rho omega (q = 0, 1).
inline constexpr int kMbSmthtrbValues = 2;
template <class T>
NSB_HD inline T mb_smthtrb_value(const MbArrays<T>& a, std::size_t m, int q) {
  return a.f[kRk + q][m];
}
// smthtrb: rho k, rho omega, fourth differences of constant weight (second at block edges); `at` as smthp's.
template <class T, class At>
NSB_HD inline void smthtrb_with(const MbArrays<T>& a, std::size_t node, const At& at, int i, int j, int n) {
  T change[2] = {0, 0};
  NSB_UNROLL  // as smthp's
  for (int dir = 0; dir < 2; ++dir) {
    const int di = dir == 0 ? 1 : 0, dj = 1 - di;
    const int pos = dir == 0 ? i : j;
    const bool fourth = pos >= 2 && pos <= n - 1;
    for (int v = 0; v < 2; ++v) {
      const T q[5] = {fourth ? at(v, -2 * di, -2 * dj) : T(0), at(v, -di, -dj), at(v, 0, 0), at(v, di, dj),
                      fourth ? at(v, 2 * di, 2 * dj) : T(0)};
      change[v] = change[v] + mb_smooth_1d(q, fourth ? T(0) : T(mbc::kappa_trb), T(mbc::kappa_trb), fourth);
    }
  }
  const T vol = a.f[kVol][node];
  for (int v = 0; v < 2; ++v) a.f[kRes4 + v][node] = a.f[kRes4 + v][node] + vol * change[v];
}
template <class T>
NSB_HD inline void smthtrb_point(const MbArrays<T>& a, std::size_t node, std::ptrdiff_t sj, int i, int j, int n) {
  const auto at = [&](int q, int di, int dj) { return mb_smthtrb_value(a, node + std::size_t(di + dj * sj), q); };
  smthtrb_with(a, node, at, i, j, n);
}

// conjugatep: explicit heat conduction in the solid (Eq. 10), the metric Laplacian without its cross
// and metric-derivative terms (a representative stencil), at the stable local step of the larger term:
//   res_T = Fo (g11 T_xixi + g22 T_etaeta) / (g11 + g22),  g11 = |grad xi|^2, g22 = |grad eta|^2
template <class T>
NSB_HD inline void conjugatep_point(const MbArrays<T>& a, std::size_t n, std::ptrdiff_t sj) {
  const T* t = a.f[kTs];
  const T g11 = a.f[kXix][n] * a.f[kXix][n] + a.f[kXiy][n] * a.f[kXiy][n];
  const T g22 = a.f[kEtx][n] * a.f[kEtx][n] + a.f[kEty][n] * a.f[kEty][n];
  const T t_xixi = t[n + 1] - T(2) * t[n] + t[n - 1], t_etaeta = t[n + sj] - T(2) * t[n] + t[n - sj];
  a.f[kResT][n] = T(mbc::solid_fourier) * (g11 * t_xixi + g22 * t_etaeta) / (g11 + g22);
}

// update: the node's change. Fluid: U += res / vol (each unknown), then rho k and rho omega clipped to
// their floors (the usual positivity clip of explicit two-equation models); solid: T += res_T.
template <class T>
NSB_HD inline void update_point(const MbArrays<T>& a, std::size_t n, bool fluid) {
  if (!fluid) {
    a.f[kTs][n] = a.f[kTs][n] + a.f[kResT][n];
    return;
  }
  const T inv_vol = T(1) / a.f[kVol][n];
  for (int v = 0; v < 6; ++v) a.f[kRho + v][n] = a.f[kRho + v][n] + a.f[kRes0 + v][n] * inv_vol;
  const T rho = a.f[kRho][n];
  a.f[kRk][n] = mb_max(a.f[kRk][n], rho * T(mbc::k_floor));
  a.f[kRw][n] = mb_max(a.f[kRw][n], rho * T(mbc::omega_floor));
}

// The convergence measure of a node (the residual's max-reduction): |change of rho| = |res_rho| / vol.
template <class T>
NSB_HD inline T resmax_point(const MbArrays<T>& a, std::size_t n) {
  return mb_abs(a.f[kRes0][n] / a.f[kVol][n]);
}

}  // namespace nsb
