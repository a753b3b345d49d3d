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
#include "stage.hpp"  // TimeScheme

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

// The scale factors of each direction's terms are products of these constants; they are formed once
// here (with the operations and order the formula had when it multiplied them per point, so results
// are unchanged bit for bit) rather than per point, where they cost a register each on the GPU.
template <class T>
struct MomentumCoef {
  T inv_h[3];  // 1/dx along local directions 0, 1, 2
  T nu;        // kinematic viscosity
  T gamma;     // upwind blend weight (0: pure central, thesis GAMMA)
  T force;     // body force along the component's direction
  T adv[3];    // inv_h[d] / 4: advective flux difference (faces hold 4x the flux)
  T upw[3];    // gamma inv_h[d] / 4: upwind blend difference
  T visc[3];   // 2 nu inv_h[0] along the own direction, nu inv_h[d] along the others
};
// The three components' factors are the same numbers in three orders, so they are kept once, by grid
// direction, and each component's MomentumCoef is a permutation of them formed where a point is
// computed: the GPU then reads 15 distinct values a point instead of 30 (the three components' copies
// of one value are one load), which the walks keep in uniform registers instead of reloading.
template <class T>
struct MomentumCoefTable {
  T inv_h[3];     // 1/dx, 1/dy, 1/dz
  T nu, gamma;
  T force[3];     // body force per component
  T adv[3];       // inv_h / 4
  T upw[3];       // gamma inv_h / 4
  T visc_own[3];  // 2 nu inv_h: the component's own direction
  T visc[3];      // nu inv_h: the two others

  // Component `axis` (0: u, 1: v, 2: w) in its local frame: local direction d is grid direction
  // (axis + d) % 3.
  NSB_HD MomentumCoef<T> component(int axis) const {
    MomentumCoef<T> c{};
    for (int d = 0; d < 3; ++d) {
      const int g = (axis + d) % 3;
      c.inv_h[d] = inv_h[g];
      c.adv[d] = adv[g];
      c.upw[d] = upw[g];
      c.visc[d] = d == 0 ? visc_own[g] : visc[g];
    }
    c.nu = nu;
    c.gamma = gamma;
    c.force = force[axis];
    return c;
  }
};
template <class T>
NSB_HD inline MomentumCoefTable<T> momentum_coef_table(const T (&inv_h)[3], T nu, T gamma, const T (&force)[3]) {
  MomentumCoefTable<T> t{};
  const T quarter = T(0.25);
  for (int g = 0; g < 3; ++g) {
    t.inv_h[g] = inv_h[g];
    t.force[g] = force[g];
    t.adv[g] = inv_h[g] * quarter;
    t.upw[g] = gamma * inv_h[g] * quarter;
    t.visc_own[g] = inv_h[g] * T(2) * nu;
    t.visc[g] = inv_h[g] * nu;
  }
  t.nu = nu;
  t.gamma = gamma;
  return t;
}

// Right-hand side of the momentum equation for one component without the pressure gradient:
// -div(a u) + div(nu (grad a + grad u^T)) + f, flux-form central advection with optional upwind
// blend and full stress-form diffusion (App. B.2, Eq. B.3-B.8). With Upwind = false the blend terms
// (weight gamma) are left out at compile time: the thesis's listing computes them even at GAMMA = 0,
// where they cost a fifth of the arithmetic and change nothing.
//
// Written in flux form: along each local direction d the terms are (upper face - lower face), each
// face a function of the values on its two sides. So a walk along a direction can carry the upper
// face of one point to the next point as its lower face (momentum/register_zmarch_flux) instead of computing
// it again. The operations and their order are the thesis's formula, term by term.
template <class T>
struct MomentumFace {
  T adv{};   // advective flux at the face, times 4: (sum of the two a) x (sum of the two transporting values)
  T upw{};   // upwind blend: |sum of the transporting values| x (jump of a across the face); only with Upwind
  T diff{};  // viscous stress at the face: da/dx_d, plus dq/dx_0 along directions 1 and 2
};

// The accessor at offset s along local direction d, plus s0 along direction 0.
template <int d, class A>
NSB_HD inline auto along(const A& a, int s, int s0 = 0) {
  if constexpr (d == 0) return a(s0 + s, 0, 0);
  else if constexpr (d == 1) return a(s0, s, 0);
  else return a(s0, 0, s);
}

// The face between offsets `at` and `at + 1` along local direction d (at = 0: upper, -1: lower). Along
// direction 0 the transported and transporting component are both a; along 1 and 2 the transporting
// one is q (q1 or q2), averaged over the two points of the face (0 and +1 along direction 0).
template <bool Upwind, int d, class T, class A, class Q>
NSB_HD inline MomentumFace<T> momentum_face(const A& a, const Q& q, const MomentumCoef<T>& c, int at) {
  const T lo = along<d>(a, at), hi = along<d>(a, at + 1);
  MomentumFace<T> f;
  if constexpr (d == 0) {
    const T s = lo + hi;
    f.adv = s * s;
    if constexpr (Upwind) f.upw = absval(s) * (lo - hi);
    f.diff = (hi - lo) * c.inv_h[0];
  } else {
    const T q0 = along<d>(q, at), q1 = along<d>(q, at, 1);
    const T s = q0 + q1;
    f.adv = s * (lo + hi);
    if constexpr (Upwind) f.upw = absval(s) * (lo - hi);
    f.diff = (hi - lo) * c.inv_h[d] + (q1 - q0) * c.inv_h[0];
  }
  return f;
}

// The three directions' terms from their faces.
template <bool Upwind, class T>
NSB_HD inline T momentum_from_faces(const MomentumFace<T> (&up)[3], const MomentumFace<T> (&lo)[3],
                                    const MomentumCoef<T>& c) {
  // Own direction: d(aa)/dx0 and d/dx0 (2 nu da/dx0).
  T adv = c.adv[0] * (up[0].adv - lo[0].adv);
  if constexpr (Upwind) adv += c.upw[0] * (up[0].upw - lo[0].upw);
  T diff = c.visc[0] * (up[0].diff - lo[0].diff);
  // Directions 1 and 2: d(a q)/dx_d and d/dx_d (nu (da/dx_d + dq/dx0)).
  for (int d = 1; d < 3; ++d) {
    adv += c.adv[d] * (up[d].adv - lo[d].adv);
    if constexpr (Upwind) adv += c.upw[d] * (up[d].upw - lo[d].upw);
    diff += c.visc[d] * (up[d].diff - lo[d].diff);
  }
  return diff - adv + c.force;
}

template <bool Upwind, int d, class T, class A, class Q1, class Q2>
NSB_HD inline MomentumFace<T> momentum_face_of(const A& a, const Q1& q1, const Q2& q2, const MomentumCoef<T>& c,
                                               int at) {
  if constexpr (d == 0) return momentum_face<Upwind, 0>(a, a, c, at);
  else if constexpr (d == 1) return momentum_face<Upwind, 1>(a, q1, c, at);
  else return momentum_face<Upwind, 2>(a, q2, c, at);
}

// The three directions' faces at `at` (0: upper, -1: lower); Skip (0-2) leaves that direction out.
template <bool Upwind, int Skip = -1, class T, class A, class Q1, class Q2>
NSB_HD inline void momentum_faces(const A& a, const Q1& q1, const Q2& q2, const MomentumCoef<T>& c, int at,
                                  MomentumFace<T> (&f)[3]) {
  if constexpr (Skip != 0) f[0] = momentum_face_of<Upwind, 0>(a, q1, q2, c, at);
  if constexpr (Skip != 1) f[1] = momentum_face_of<Upwind, 1>(a, q1, q2, c, at);
  if constexpr (Skip != 2) f[2] = momentum_face_of<Upwind, 2>(a, q1, q2, c, at);
}

template <bool Upwind, class T, class A, class Q1, class Q2>
NSB_HD inline T momentum_rhs(const A& a, const Q1& q1, const Q2& q2, const MomentumCoef<T>& c) {
  MomentumFace<T> up[3], lo[3];
  momentum_faces<Upwind>(a, q1, q2, c, 0, up);
  momentum_faces<Upwind>(a, q1, q2, c, -1, lo);
  return momentum_from_faces<Upwind>(up, lo, c);
}

// The eddy viscosity of the urban runs (Sec. 2.3.3): the diffusion becomes div((nu + nu_t)(grad a +
// grad a^T)) with nu_t at cell centres, taken where each face's stress lives. Along local direction 0
// the face between a(at) and a(at + 1) is the cell centre at + 1; along d = 1, 2 it is a cell edge, and
// nu_t there is the mean of its four cells (0 and +1 along direction 0, at and at + 1 along d).
template <int d, class T, class N>
NSB_HD inline T eddy_face_viscosity(const N& nut, int at) {
  if constexpr (d == 0) return along<0>(nut, at + 1);
  else return T(0.25) * ((along<d>(nut, at) + along<d>(nut, at, 1)) + (along<d>(nut, at + 1) + along<d>(nut, at + 1, 1)));
}

// momentum_rhs with nu + nu_t: the laminar right-hand side (unchanged, so nu_t = 0 gives it bit for
// bit) plus div(nu_t (grad a + grad a^T)) from the same faces' stresses. nut is framed like a.
template <bool Upwind, class T, class A, class Q1, class Q2, class N>
NSB_HD inline T momentum_rhs_eddy(const A& a, const Q1& q1, const Q2& q2, const N& nut, const MomentumCoef<T>& c) {
  MomentumFace<T> up[3], lo[3];
  momentum_faces<Upwind>(a, q1, q2, c, 0, up);
  momentum_faces<Upwind>(a, q1, q2, c, -1, lo);
  T eddy = T(2) * c.inv_h[0] *
           (eddy_face_viscosity<0, T>(nut, 0) * up[0].diff - eddy_face_viscosity<0, T>(nut, -1) * lo[0].diff);
  eddy += c.inv_h[1] * (eddy_face_viscosity<1, T>(nut, 0) * up[1].diff - eddy_face_viscosity<1, T>(nut, -1) * lo[1].diff);
  eddy += c.inv_h[2] * (eddy_face_viscosity<2, T>(nut, 0) * up[2].diff - eddy_face_viscosity<2, T>(nut, -1) * lo[2].diff);
  return momentum_from_faces<Upwind>(up, lo, c) + eddy;
}

// momentum_rhs for a walk along local direction Carried: `face` holds the lower face there (the upper
// face of the previous point of the walk) and receives this point's upper face for the next one.
template <bool Upwind, int Carried, class T, class A, class Q1, class Q2>
NSB_HD inline T momentum_rhs_carried(const A& a, const Q1& q1, const Q2& q2, const MomentumCoef<T>& c,
                                     MomentumFace<T>& face) {
  MomentumFace<T> up[3], lo[3];
  momentum_faces<Upwind>(a, q1, q2, c, 0, up);
  momentum_faces<Upwind, Carried>(a, q1, q2, c, -1, lo);
  lo[Carried] = face;
  face = up[Carried];
  return momentum_from_faces<Upwind>(up, lo, c);
}


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
