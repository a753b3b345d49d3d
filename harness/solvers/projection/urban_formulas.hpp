// The per-point arithmetic of the urban additions of Thibault (2009), written once for the CPU
// reference and every GPU variant: the obstacle logic of Sec. 3.3.2 (Eqs. 3.3-3.11) and the
// Smagorinsky eddy viscosity of Sec. 2.2.3 / App. B.3 (Eqs. 2.4-2.7, B.9).
//
// Obstacles are a flag field F at the pressure points (cell centres): 1 = solid, 0 = fluid, stored in
// the solver's precision like the thesis's float flag. Accessors are as in point_formulas.hpp:
// a(di, dj, dk) is the field at that offset from the point computed.
//
// Where each rule applies. The thesis applies its kernels to the interior; here every sub-step is
// defined on the whole padded array, wherever its stencil lies inside it:
//  - the zero mask (Eq. 3.4) of component c at a point whose +c neighbour cell exists;
//  - a sweep along direction d (Eqs. 3.6-3.8) at a point whose index along d is 1 .. N_d - 2;
//  - the corner rule (Eqs. 3.9-3.11) and the final value at interior points only.
// So a ghost plane filled by the domain decomposition is treated as the neighbour's interior is,
// and a decomposed run equals the undecomposed one. Ghost values leave the stage masked; the ghost
// rules (velocity_bc) overwrite the physical ones afterwards.
//
// The thesis's four kernels are the composition mask -> sweep "kii" -> sweep "jkj" -> corners, each
// reading the previous one's output (two buffers). obstacle_final() is the same composition for one
// point from the unmasked input, so one kernel can apply all four (no value is read before the step
// that writes it in the thesis's order, so results are equal).
#pragma once

#include <cmath>

#include "grid.hpp"

namespace nsb {

template <class T>
NSB_HD inline T square_root(T x) {
#if defined(__CUDA_ARCH__)
  return sqrt(x);  // CUDA's float and double overloads
#else
  return std::sqrt(x);
#endif
}

// A point's padded position and the padded extents, for the "stencil inside the array" tests.
struct ObstacleSite {
  int pos[3];
  int N[3];
  NSB_HD static ObstacleSite at(const Grid& g, int i, int j, int k) { return {{i, j, k}, {g.NX(), g.NY(), g.NZ()}}; }
  NSB_HD bool interior() const {
    return pos[0] >= 1 && pos[0] <= N[0] - 2 && pos[1] >= 1 && pos[1] <= N[1] - 2 && pos[2] >= 1 && pos[2] <= N[2] - 2;
  }
};

// Direction of each component's first ("kii") and second ("jkj") sweep, thesis Sec. 3.3.2:
// kii sweeps U, V, W along z, x, x; jkj along y, z, y.
NSB_HD inline int obstacle_sweep_dir_kii(int c) { return c == 0 ? 2 : 0; }
NSB_HD inline int obstacle_sweep_dir_jkj(int c) { return c == 1 ? 2 : 1; }

// An offset (o0, o1, o2) moved by s along axis d.
struct Offset {
  int o[3];
  NSB_HD Offset moved(int d, int s) const {
    Offset r = *this;
    r.o[d] += s;
    return r;
  }
};
template <class A>
NSB_HD inline auto value_at(const A& a, const Offset& o) {
  return a(o.o[0], o.o[1], o.o[2]);
}

// Eq. 3.4: component c at offset o is zeroed where either cell of its face is solid:
// Q = (F - 1) (F_{+c} - 1) Q.
template <class T, class Fl, class Q>
NSB_HD inline T obstacle_masked(const Fl& F, const Q& q, int c, const Offset& o, const ObstacleSite& s) {
  const T v = value_at(q, o);
  if (s.pos[c] + o.o[c] + 1 > s.N[c] - 1) return v;  // the face's second cell lies outside the array
  return (T(value_at(F, o)) - T(1)) * (T(value_at(F, o.moved(c, 1))) - T(1)) * v;
}

// Eqs. 3.6-3.8: the sweep along d at offset o of a value source `val` (the previous sub-step): inside
// a solid cell the value becomes minus the fluid neighbours' (so the wall value, their mean, is zero);
// in a fluid cell it is unchanged.
//   Q = F [(F_{+d} - 1) Q_{+d} + (F_{-d} - 1) Q_{-d} + (F_{+d} + F + F_{-d} - 2) Q] + (1 - F) Q
template <class T, class Fl, class V>
NSB_HD inline T obstacle_swept(const Fl& F, const V& val, int d, const Offset& o, const ObstacleSite& s) {
  const T q0 = val(o);
  const int at = s.pos[d] + o.o[d];
  if (at < 1 || at > s.N[d] - 2) return q0;
  const Offset up = o.moved(d, 1), dn = o.moved(d, -1);
  const T f0 = T(value_at(F, o)), fp = T(value_at(F, up)), fm = T(value_at(F, dn));
  return f0 * ((fp - T(1)) * val(up) + (fm - T(1)) * val(dn) + (fp + f0 + fm - T(2)) * q0) + (T(1) - f0) * q0;
}

// Eqs. 3.9-3.11: G of component c, summed over its two sweep directions a and b; G = 6 or 7 marks a
// building corner, where the component is set to zero. Interior points only.
template <class T, class Fl>
NSB_HD inline bool obstacle_corner(const Fl& F, int c) {
  const Offset o0{{0, 0, 0}};
  const Offset e = o0.moved(c, 1), w = o0.moved(c, -1);
  T g = T(0);
  const int dirs[2] = {obstacle_sweep_dir_kii(c), obstacle_sweep_dir_jkj(c)};
  for (int d : dirs) {
    g = g + T(value_at(F, o0)) + T(value_at(F, o0.moved(d, 1))) + T(value_at(F, o0.moved(d, -1))) +
        T(value_at(F, e)) + T(value_at(F, e.moved(d, 1))) + T(value_at(F, e.moved(d, -1))) + T(value_at(F, w));
  }
  return g == T(6) || g == T(7);
}

// The thesis's sub-steps as value sources, each reading the one before: masked, then swept along kii.
template <class T, class Fl, class Q>
struct MaskedSource {
  const Fl& F;
  const Q& q;
  int c;
  const ObstacleSite& s;
  NSB_HD T operator()(const Offset& o) const { return obstacle_masked<T>(F, q, c, o, s); }
};
template <class T, class Fl, class V>
struct SweptSource {
  const Fl& F;
  const V& val;
  int d;
  const ObstacleSite& s;
  NSB_HD T operator()(const Offset& o) const { return obstacle_swept<T>(F, val, d, o, s); }
};
// A field read as a value source (the multi-kernel variants: the previous kernel's output buffer).
template <class A>
struct FieldSource {
  const A& a;
  NSB_HD auto operator()(const Offset& o) const { return value_at(a, o); }
};

// The obstacle logic's result for component c at the point: at an interior point the four kernels'
// composition (corner ? 0 : jkj(kii(mask(q)))), elsewhere the masked value.
template <class T, class Fl, class Q>
NSB_HD inline T obstacle_final(const Fl& F, const Q& q, int c, const ObstacleSite& s) {
  const Offset o0{{0, 0, 0}};
  const MaskedSource<T, Fl, Q> masked{F, q, c, s};
  if (!s.interior()) return masked(o0);
  if (obstacle_corner<T>(F, c)) return T(0);
  const SweptSource<T, Fl, MaskedSource<T, Fl, Q>> kii{F, masked, obstacle_sweep_dir_kii(c), s};
  return obstacle_swept<T>(F, kii, obstacle_sweep_dir_jkj(c), o0, s);
}

// Eq. 3.3: the Jacobi update of lap(p) = div / dt with solid neighbours masked out (their pressure
// gradient across the wall is zero: Neumann on every building face).
//   B = sum_d (F_{+d} + F_{-d} - 2) / h_d^2,  A = sum_d ((F_{+d} - 1) p_{+d} + (F_{-d} - 1) p_{-d}) / h_d^2
//   p_new = (div / dt + A) / B
// Without solid neighbours this is jacobi_point. The thesis leaves a solid cell's own value open (its
// B may be zero, inside a building); here a solid cell's pressure is 0, so it never enters a fluid
// cell's equation (masked) nor a residual.
template <class T, class P, class Fl>
NSB_HD inline T masked_jacobi_point(const P& p, const Fl& F, T div, T dti, const T (&inv_h2)[3]) {
  if (T(F(0, 0, 0)) != T(0)) return T(0);
  T a = T(0), b = T(0);
  for (int d = 0; d < 3; ++d) {
    const Offset o0{{0, 0, 0}};
    const Offset up = o0.moved(d, 1), dn = o0.moved(d, -1);
    const T fp = T(value_at(F, up)), fm = T(value_at(F, dn));
    b = b + (fp + fm - T(2)) * inv_h2[d];
    a = a + ((fp - T(1)) * value_at(p, up) + (fm - T(1)) * value_at(p, dn)) * inv_h2[d];
  }
  if (b == T(0)) return T(0);  // a fluid cell closed on all six sides: no equation to solve
  return (dti * div + a) / b;
}

// Smagorinsky eddy viscosity at a cell centre (Eqs. 2.4-2.7), nu_t = (Cs Delta)^2 sqrt(SS), with SS
// the discretisation of App. B.9: four times the squared normal strains, and for each pair of
// directions half the sum of the squared shear rates (du_p/dx_q + du_q/dx_p) on the four cell edges
// around the centre. (B.9 is 4 S_ij S_ij, so nu_t = 2 (Cs Delta)^2 sqrt(S_ij S_ij), as the thesis's
// code computes; B.9 prints dy for some dz and the reverse, the spacings here are the right ones.)
// vel[c] is component c's accessor, inv_h[d] = 1/h_d, cs_delta2 = (Cs Delta)^2.
template <class T, class A>
NSB_HD inline T smagorinsky_nu_t(const A (&vel)[3], const T (&inv_h)[3], T cs_delta2) {
  T ss = T(0);
  const Offset o0{{0, 0, 0}};
  for (int d = 0; d < 3; ++d) {
    const T s = (value_at(vel[d], o0) - value_at(vel[d], o0.moved(d, -1))) * inv_h[d];
    ss = ss + T(4) * s * s;
  }
  const int pairs[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (const auto& pq : pairs) {
    const int p = pq[0], q = pq[1];
    T edges = T(0);
    for (int a = 0; a >= -1; --a)
      for (int b = 0; b >= -1; --b) {
        const Offset e = o0.moved(p, a).moved(q, b);
        const T g = (value_at(vel[p], e.moved(q, 1)) - value_at(vel[p], e)) * inv_h[q] +
                    (value_at(vel[q], e.moved(p, 1)) - value_at(vel[q], e)) * inv_h[p];
        edges = edges + g * g;
      }
    ss = ss + T(0.5) * edges;
  }
  return cs_delta2 * square_root(ss);
}

}  // namespace nsb
