// The IMLE solver's pointwise stages (Liu, Wu, Kao & Sheu 2019, Algorithm 1; notes Sec. 1.4), written
// once for the CPU reference and every GPU variant: predict (Eq. 7), move the particles (Eq. 8), the
// PPE's right-hand side (Eq. 13) and correct (Eq. 11). Reinitialisation needs no stage here: a particle
// is stored as its displacement from its cell centre, which move writes afresh every step (so every
// particle starts the step on its centre, the "I" of IMLE).
//
// One call structure serves the four stage kinds (imle/point_call.hpp): inputs in[], outputs out[] and
// one coefficient, by kind:
//   imle/predict  in = {u, u_xx, u_yy, u_zz}, out = {u_star}:   u* = u + (dt nu) (u_xx + u_yy + u_zz)
//   imle/move     in = {u*, v*, w*},          out = {disp_x, disp_y, disp_z}: disp = dt u* (r* - x)
//   imle/ppe_rhs  in = {u, v, w} (interpolated; ghosts: the walls' values), out = {rhs}:
//                 rhs = (u_{i+1} - u_{i-1}) / (2 h_x) + (same in y, z): Eq. 13's wide (2h) central
//                 divergence, so that lap_h p = (rho / dt) rhs. At a wall the missing neighbour is the
//                 boundary point, h/2 away: (u_{i+1} - u_wall) / (3h/2) (the paper does not say; notes
//                 Sec. 1.6).
//   imle/correct  in = {u_interp, dp/dx}, out = {u}: u^{n+1} = u*_interp - (dt / rho) dp/dx (dp/dx from
//                 CC-CCD with the Neumann closure)
// Per component: predict and correct are called once per velocity component (the solver names the
// fields), move and ppe_rhs once for all three.
#pragma once

#include <cstddef>

#include "grid.hpp"

namespace nsb {

enum class ImlePoint : int { predict = 0, move = 1, ppe_rhs = 2, correct = 3 };

// What a pointwise kernel reads: the call without its tuning (trivially copyable).
template <class T>
struct ImlePointArgs {
  Grid g;
  const T* in[4];
  T* out[3];
  T coef;       // dt nu (predict), dt (move), unused (ppe_rhs), dt / rho (correct)
  T inv_h[3];   // 1 / h per axis (ppe_rhs)
};

// One-sided span, in cells, of the wide difference at cell q of n: 2 inside, 3/2 next to one wall.
template <class T>
NSB_HD inline T wide_span(int q, int n) {
  return (q == 1 ? T(0.5) : T(1)) + (q == n ? T(0.5) : T(1));
}

template <ImlePoint S, class T>
NSB_HD inline void imle_point(const ImlePointArgs<T>& a, int i, int j, int k, std::size_t n) {
  if constexpr (S == ImlePoint::predict) {
    a.out[0][n] = a.in[0][n] + a.coef * (a.in[1][n] + a.in[2][n] + a.in[3][n]);
  } else if constexpr (S == ImlePoint::move) {
    for (int c = 0; c < 3; ++c) a.out[c][n] = a.coef * a.in[c][n];
  } else if constexpr (S == ImlePoint::ppe_rhs) {
    const std::ptrdiff_t sy = a.g.sy(), sz = a.g.sz();
    const T dx = (a.in[0][n + 1] - a.in[0][n - 1]) * a.inv_h[0] / wide_span<T>(i, a.g.nx);
    const T dy = (a.in[1][n + sy] - a.in[1][n - sy]) * a.inv_h[1] / wide_span<T>(j, a.g.ny);
    const T dz = (a.in[2][n + sz] - a.in[2][n - sz]) * a.inv_h[2] / wide_span<T>(k, a.g.nz);
    a.out[0][n] = dx + dy + dz;
  } else {
    a.out[0][n] = a.in[0][n] - a.coef * a.in[1][n];
  }
}

// Flops a point (interior, for ppe_rhs), counted on imle_point (imle/models.cpp).
double imle_point_flops(ImlePoint s);

}  // namespace nsb
