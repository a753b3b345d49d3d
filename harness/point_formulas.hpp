// The per-point arithmetic of the projection solver (Thibault 2009, App. B.2 and C.3-C.6), written
// once. The CPU reference and every GPU variant call these functions; variants differ only in how
// they traverse the grid and where the neighbour values come from (global memory, a shared-memory
// tile, registers). A value source is an "accessor": a callable a(di, dj, dk) returning the field at
// that offset from the point being computed.
//
// The thesis's code listing has typos (dxi where dzi belongs in the z terms of C.3, "dzi" spelt with
// Cyrillic letters); these formulas follow the equations of App. B.2 instead.
#pragma once

#include "grid.hpp"

namespace nsb {

template <class T>
NSB_HD inline T absval(T x) {
  return x < T(0) ? -x : x;
}

// Momentum is written once for a generic component a in its own "local frame": local direction 0 is
// the component's own direction, 1 and 2 are the next two directions cyclically (for u: x, y, z; for
// v: y, z, x; for w: z, x, y). q1 and q2 are the velocity components along local directions 1 and 2.
// Framed<axis> turns a local-frame offset into a grid offset for any accessor.
template <int axis, class Accessor>
struct Framed {
  Accessor a;
  NSB_HD auto operator()(int d0, int d1, int d2) const {
    if constexpr (axis == 0) return a(d0, d1, d2);
    else if constexpr (axis == 1) return a(d2, d0, d1);
    else return a(d1, d2, d0);
  }
};
template <int axis, class Accessor>
NSB_HD inline Framed<axis, Accessor> framed(const Accessor& a) {
  return Framed<axis, Accessor>{a};
}

template <class T>
struct MomentumCoef {
  T inv_h[3];  // 1/dx along local directions 0, 1, 2
  T nu;        // kinematic viscosity
  T gamma;     // upwind blend weight (0: pure central, thesis GAMMA)
  T force;     // body force along the component's direction
};

// Right-hand side of the momentum equation for one component without the pressure gradient:
// -div(a u) + div(nu (grad a + grad u^T)) + f, flux-form central advection with optional upwind
// blend and full stress-form diffusion (App. B.2, Eq. B.3-B.8). With Upwind = false the blend terms
// (weight gamma) are left out at compile time: the thesis's listing computes them even at GAMMA = 0,
// where they cost a fifth of the arithmetic and change nothing.
template <bool Upwind, class T, class A, class Q1, class Q2>
NSB_HD inline T momentum_rhs(const A& a, const Q1& q1, const Q2& q2, const MomentumCoef<T>& c) {
  const T quarter = T(0.25);
  const T a0 = a(0, 0, 0);
  const T ap0 = a(1, 0, 0), am0 = a(-1, 0, 0);
  const T ap1 = a(0, 1, 0), am1 = a(0, -1, 0);
  const T ap2 = a(0, 0, 1), am2 = a(0, 0, -1);

  // Own direction: d(aa)/dx0 and d/dx0 (2 nu da/dx0).
  const T sp = a0 + ap0, sm = am0 + a0;
  T adv = c.inv_h[0] * quarter * (sp * sp - sm * sm);
  if constexpr (Upwind) adv += c.gamma * c.inv_h[0] * quarter * (absval(sp) * (a0 - ap0) - absval(sm) * (am0 - a0));
  T diff = c.inv_h[0] * T(2) * c.nu * ((ap0 - a0) * c.inv_h[0] - (a0 - am0) * c.inv_h[0]);

  // Direction 1: d(a q1)/dx1 and d/dx1 (nu (da/dx1 + dq1/dx0)).
  {
    const T qp = q1(0, 0, 0) + q1(1, 0, 0), qm = q1(0, -1, 0) + q1(1, -1, 0);
    adv += c.inv_h[1] * quarter * (qp * (a0 + ap1) - qm * (am1 + a0));
    if constexpr (Upwind)
      adv += c.gamma * c.inv_h[1] * quarter * (absval(qp) * (a0 - ap1) - absval(qm) * (am1 - a0));
    diff += c.inv_h[1] * c.nu *
            ((ap1 - a0) * c.inv_h[1] + (q1(1, 0, 0) - q1(0, 0, 0)) * c.inv_h[0] -
             ((a0 - am1) * c.inv_h[1] + (q1(1, -1, 0) - q1(0, -1, 0)) * c.inv_h[0]));
  }
  // Direction 2: d(a q2)/dx2 and d/dx2 (nu (da/dx2 + dq2/dx0)).
  {
    const T qp = q2(0, 0, 0) + q2(1, 0, 0), qm = q2(0, 0, -1) + q2(1, 0, -1);
    adv += c.inv_h[2] * quarter * (qp * (a0 + ap2) - qm * (am2 + a0));
    if constexpr (Upwind)
      adv += c.gamma * c.inv_h[2] * quarter * (absval(qp) * (a0 - ap2) - absval(qm) * (am2 - a0));
    diff += c.inv_h[2] * c.nu *
            ((ap2 - a0) * c.inv_h[2] + (q2(1, 0, 0) - q2(0, 0, 0)) * c.inv_h[0] -
             ((a0 - am2) * c.inv_h[2] + (q2(1, 0, -1) - q2(0, 0, -1)) * c.inv_h[0]));
  }
  return diff - adv + c.force;
}

enum class TimeScheme : int { euler = 0, adams_bashforth2 = 1 };

// Predictor time update (Eq. 2.9 / 2.10). For Adams-Bashforth the previous right-hand side is
// needed; the very first step has none and falls back to Euler (first_step).
template <class T>
NSB_HD inline T predictor_update(T a0, T rhs, T rhs_old, T dt, TimeScheme scheme, bool first_step) {
  if (scheme == TimeScheme::euler || first_step) return a0 + dt * rhs;
  return a0 + dt * (T(1.5) * rhs - T(0.5) * rhs_old);
}

template <class T>
struct GridCoef {
  T dxi, dyi, dzi;     // 1/dx, 1/dy, 1/dz
  T dxi2, dyi2, dzi2;  // squares
  T jacobi_b;          // B = 0.5 / (1/dx^2 + 1/dy^2 + 1/dz^2) (App. C.5.1)
};

// Divergence of the predicted velocity at a cell centre (App. C.4).
template <class T, class U, class V, class W>
NSB_HD inline T divergence_point(const U& u, const V& v, const W& w, const GridCoef<T>& g) {
  return (u(0, 0, 0) - u(-1, 0, 0)) * g.dxi + (v(0, 0, 0) - v(0, -1, 0)) * g.dyi +
         (w(0, 0, 0) - w(0, 0, -1)) * g.dzi;
}

// One Jacobi update of lap(p) = div / dt (App. C.5): p_new = -B (div/dt - sum of neighbours / h^2).
// The centre value is not read: a variant that keeps a z column in registers needs only p(0,0,+-1).
template <class T, class P>
NSB_HD inline T jacobi_point(const P& p, T div, T dti, const GridCoef<T>& g) {
  const T a = (p(1, 0, 0) + p(-1, 0, 0)) * g.dxi2 + (p(0, 1, 0) + p(0, -1, 0)) * g.dyi2 +
              (p(0, 0, 1) + p(0, 0, -1)) * g.dzi2;
  return -g.jacobi_b * (dti * div - a);
}

// Projection (App. C.6): a_new = a* - dt dp/dx_axis, at the face between cell (0) and cell (+1).
template <class T>
NSB_HD inline T correction_point(T a_star, T p0, T p_plus, T dt, T inv_h) {
  return a_star - dt * inv_h * (p_plus - p0);
}

// Residual contribution of the reduce stage: (a - b)^2 accumulated in double.
template <class T>
NSB_HD inline double squared_difference(T a, T b) {
  const double d = double(a) - double(b);
  return d * d;
}

}  // namespace nsb
