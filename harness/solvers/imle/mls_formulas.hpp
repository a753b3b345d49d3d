// MLS: the moving-least-squares interpolation of the IMLE solver (Liu, Wu, Kao & Sheu 2019, Eqs. 9-10,
// Sec. 3.3; notes Sec. 1.5), written once: the weight, the quadratic basis, the normal equations of one
// target cell and their Gaussian elimination, which the CPU reference and every GPU variant of imle/mls
// call. Variants differ only in where the 10x10 system lives (registers, global memory: a Store).
//
// Particles. One per cell; at the start of a step particle n sits on cell centre n (reinitialisation)
// and has moved by disp_n = r*_n - x_n (Eq. 8) when MLS runs. The ghost layer of the padded grid holds
// the paper's boundary and corner points: fixed points on the faces (their displacement is ignored),
// holding the wall values. So every interior cell has the same 3x3x3 neighbourhood of 27 data points
// (padded indices i-1..i+1, ...), which needs no search, and >= 10 of them for the 10 unknowns.
//
// Coordinates are local and scaled: s = (r_p - x_target) / h per axis, so the interpolated value is
// the constant coefficient a0 and the matrix is of order one whatever h. A point of padded index q
// (origin of its particle) lies at clamp(q - 1/2, 0, n) cells (cell centres at q - 1/2, walls at 0, n).
//
// Basis (3D quadratic, the paper's 10 terms; its order is not printed, this is the notes'):
//   P(s) = [1, sx, sy, sz, sx^2, sx sy, sx sz, sy^2, sy sz, sz^2]
// Normal equations (Eq. 10, squared weights): M = sum_p w_p^2 P_p P_p^T, R = sum_p w_p^2 P_p f_p^T, with
// f_p = (u*, v*, w*) of point p (R is 10x3).
//
// Weight (open in the paper, which defers to its ref. [8]; chosen here and documented in
// docs/solvers/imle.md): Wendland's C2 function w(q) = (1 - q)^4 (4 q + 1) for q = |s| / R_s < 1, else 0,
// with support radius R_s = kMlsSupport = 2 cells: the 27 points of a still grid all weigh (the corner
// ones, at sqrt(3), least), and a particle that moved more than about a quarter cell away still counts.
//
// Solve: M is symmetric positive definite, so Gaussian elimination needs no pivoting and keeps the
// trailing matrix symmetric: only the upper triangle (55 of 100 entries) is stored and eliminated on
// (the paper's elimination on its full 10x10, same arithmetic on the entries used).
#pragma once

#include <cmath>
#include <cstddef>

#include "grid.hpp"
#include "unroll.hpp"  // NSB_UNROLL: the fixed-size loops below fully unrolled (nvcc's host pass runs no MLS)

namespace nsb {

inline constexpr int kMlsBasis = 10;
inline constexpr int kMlsPacked = kMlsBasis * (kMlsBasis + 1) / 2;  // 55
inline constexpr int kMlsRhs = 3;                                   // u, v, w
inline constexpr int kMlsWords = kMlsPacked + kMlsBasis * kMlsRhs;  // 85 words a system
inline constexpr double kMlsSupport = 2.0;                          // support radius, in cells

// Index of (a, b), a <= b, in the row-major packed upper triangle.
NSB_HD constexpr int mls_packed(int a, int b) { return a * kMlsBasis - a * (a - 1) / 2 + (b - a); }

template <class T>
NSB_HD inline void mls_basis(T sx, T sy, T sz, T p[kMlsBasis]) {
  p[0] = T(1), p[1] = sx, p[2] = sy, p[3] = sz;
  p[4] = sx * sx, p[5] = sx * sy, p[6] = sx * sz, p[7] = sy * sy, p[8] = sy * sz, p[9] = sz * sz;
}

// The squared weight w(q)^2 of a point at squared scaled distance r2 (q = sqrt(r2) / R_s).
template <class T>
NSB_HD inline T mls_weight2(T r2, T inv_support) {
  using std::sqrt;
  const T q = sqrt(r2) * inv_support;
  if (!(q < T(1))) return T(0);
  const T one_minus = T(1) - q;
  const T sq = one_minus * one_minus;
  const T w = sq * sq * (T(4) * q + T(1));
  return w * w;
}

// Scaled position along one axis of the point of padded index q, relative to target cell c (both
// padded indices, c interior), on a line of n cells; `disp` (in cells) is added for particles only.
template <class T>
NSB_HD inline T mls_offset(int q, int c, int n, T disp_cells) {
  if (q == 0) return T(0.5) - T(c);          // the wall at 0: (0) - (c - 1/2)
  if (q == n + 1) return T(n) - (T(c) - T(0.5));  // the wall at n
  return T(q - c) + disp_cells;
}

// The data an MLS build reads: the moved particles and the boundary points around a target cell.
template <class T>
struct MlsArgs {
  Grid g;
  int k_begin, k_end;  // target z-levels
  const T* disp[3];    // particle displacement r* - x (physical units), per cell
  const T* value[3];   // u*, v*, w* at the particles; ghosts: the boundary points' values
  T* out[3];           // interpolated u*, v*, w* at the target cell centres
  T inv_h[3];          // 1 / h per axis
  T inv_support;       // 1 / R_s
};

// Accumulate the normal equations of target cell (i, j, k) into a zeroed store s (s.m(a, b) for
// a <= b, s.r(a, c)): the 27 points of padded indices i-1..i+1, j-1..j+1, k-1..k+1.
template <class T, class Store>
NSB_HD inline void mls_build(const MlsArgs<T>& a, int i, int j, int k, Store& s) {
  for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
      for (int di = -1; di <= 1; ++di) {
        const int qi = i + di, qj = j + dj, qk = k + dk;
        const std::size_t n = a.g.idx(qi, qj, qk);
        const bool particle = qi >= 1 && qi <= a.g.nx && qj >= 1 && qj <= a.g.ny && qk >= 1 && qk <= a.g.nz;
        const T sx = mls_offset(qi, i, a.g.nx, particle ? a.disp[0][n] * a.inv_h[0] : T(0));
        const T sy = mls_offset(qj, j, a.g.ny, particle ? a.disp[1][n] * a.inv_h[1] : T(0));
        const T sz = mls_offset(qk, k, a.g.nz, particle ? a.disp[2][n] * a.inv_h[2] : T(0));
        const T w2 = mls_weight2(sx * sx + sy * sy + sz * sz, a.inv_support);
        if (w2 == T(0)) continue;
        T p[kMlsBasis];
        mls_basis(sx, sy, sz, p);
        const T f[kMlsRhs] = {a.value[0][n], a.value[1][n], a.value[2][n]};
NSB_UNROLL
        for (int r = 0; r < kMlsBasis; ++r) {
          const T wp = w2 * p[r];
NSB_UNROLL
          for (int c = r; c < kMlsBasis; ++c) s.m(r, c) += wp * p[c];
NSB_UNROLL
          for (int c = 0; c < kMlsRhs; ++c) s.r(r, c) += wp * f[c];
        }
      }
}

// Gaussian elimination without pivoting on the upper triangle, then back substitution: on return
// s.r(a, c) holds the coefficients, s.r(0, c) the interpolated value of component c.
template <class T, class Store>
NSB_HD inline void mls_solve(Store& s) {
NSB_UNROLL
  for (int k = 0; k < kMlsBasis; ++k) {
    const T inv_pivot = T(1) / s.m(k, k);
NSB_UNROLL
    for (int i = k + 1; i < kMlsBasis; ++i) {
      const T f = s.m(k, i) * inv_pivot;
NSB_UNROLL
      for (int j = i; j < kMlsBasis; ++j) s.m(i, j) -= f * s.m(k, j);
NSB_UNROLL
      for (int c = 0; c < kMlsRhs; ++c) s.r(i, c) -= f * s.r(k, c);
    }
  }
NSB_UNROLL
  for (int i = kMlsBasis - 1; i >= 0; --i) {
    const T inv_pivot = T(1) / s.m(i, i);
NSB_UNROLL
    for (int c = 0; c < kMlsRhs; ++c) {
      T x = s.r(i, c);
NSB_UNROLL
      for (int j = i + 1; j < kMlsBasis; ++j) x -= s.m(i, j) * s.r(j, c);
      s.r(i, c) = x * inv_pivot;
    }
  }
}

// A system in registers (or, on the host, on the stack): fully unrolled loops index it with constants.
template <class T>
struct MlsRegisterStore {
  T mm[kMlsPacked];
  T rr[kMlsBasis * kMlsRhs];
  NSB_HD void zero() {
NSB_UNROLL
    for (int e = 0; e < kMlsPacked; ++e) mm[e] = T(0);
NSB_UNROLL
    for (int e = 0; e < kMlsBasis * kMlsRhs; ++e) rr[e] = T(0);
  }
  NSB_HD T& m(int a, int b) { return mm[mls_packed(a, b)]; }
  NSB_HD T& r(int a, int c) { return rr[a * kMlsRhs + c]; }
};

// The whole interpolation of one target cell in a register store: build, solve, write (the CPU
// reference and the fused GPU variant).
template <class T>
NSB_HD inline void mls_cell(const MlsArgs<T>& a, int i, int j, int k) {
  MlsRegisterStore<T> s;
  s.zero();
  mls_build(a, i, j, k, s);
  mls_solve<T>(s);
  const std::size_t n = a.g.idx(i, j, k);
  for (int c = 0; c < kMlsRhs; ++c) a.out[c][n] = s.r(0, c);
}

// Flops of one target cell with all 27 points inside the support (the most), counted on mls_build's
// and mls_solve's arithmetic (imle/models.cpp).
double mls_flops_per_point();

}  // namespace nsb
