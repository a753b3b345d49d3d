// The parallel diagonal dominant (PDD) algorithm of Sun (1995) as Ha, Park & You use it for ADI-Y (their
// Sec. 3.2, Eqs. 5-8, Algorithm 1), written once for the CPU reference and the GPU variant.
//
// A system of n unknowns is split into p blocks of rows (rank r holds rows [start_r, start_{r+1})).
// Each block solves, with its corner couplings cut (a at its first row, c at its last set to 0):
//   Eq. (5)  A_r x~ = d_r
//   Eq. (6)  A_r v = a_first e_1 (the coupling to the block above), A_r w = c_last e_m (to the block below)
// PDD keeps, of the reduced system Z y = E^T x~ (Eq. 7), only the 2x2 block of each interface r|r+1:
//   [ 1          w_m^(r) ] [ y_{2r+1} ]   [ x~_m^(r)   ]
//   [ v_1^(r+1)  1       ] [ y_{2r+2} ] = [ x~_1^(r+1) ]
// (what it drops, v_m^(r) and w_1^(r+1), decays across a block when A is diagonally dominant), and
// corrects, Eq. (8):  x^(r) = x~^(r) - v^(r) y_{2r-1} - w^(r) y_{2r+2}, with y_{-1} = y_{2p} = 0.
// PPT keeps all of Z (tridiag/pdd.hpp, the CPU reference): exact, at the price of an all-gather.
#pragma once

#include "tridiag/formulas.hpp"

namespace nsb {

// First row of block r of p over n rows (uneven remainders spread over the blocks).
NSB_TRIDIAG_HD int pdd_block_start(int n, int p, int r) {
  return int((long long)(r) * n / p);
}

// Eqs. (5)-(6) on rows [j0, j1) of system s: x~ over x, v and w in their arrays, c' in cp. One forward
// sweep for the three right-hand sides (they share the matrix, as in the paper's batched gtsv call).
template <class T>
NSB_TRIDIAG_HD void pdd_local_solve(const TridiagLayout& l, int s, int j0, int j1, const T* a, const T* b, const T* c,
                                    T* x, T* v, T* w, T* cp) {
  const std::size_t first = l.index(s, j0), last = l.index(s, j1 - 1);
  const T a_first = j0 > 0 ? a[first] : T(0), c_last = j1 < l.n ? c[last] : T(0);
  ThomasRow<T> rx{T(0), T(0)}, rv{T(0), T(0)}, rw{T(0), T(0)};
  std::size_t p = first;
  for (int j = j0; j < j1; ++j, p += l.stride()) {
    const T aj = j == j0 ? T(0) : a[p], cj = j == j1 - 1 ? T(0) : c[p];
    rx = thomas_forward(aj, b[p], cj, x[p], rx);
    rv = thomas_forward(aj, b[p], cj, j == j0 ? a_first : T(0), rv);
    rw = thomas_forward(aj, b[p], cj, j == j1 - 1 ? c_last : T(0), rw);
    cp[p] = rx.cp, x[p] = rx.dp, v[p] = rv.dp, w[p] = rw.dp;
  }
  T nx = x[last], nv = v[last], nw = w[last];
  p = last;
  for (int j = j1 - 2; j >= j0; --j) {
    p -= l.stride();
    nx = x[p] = thomas_back(ThomasRow<T>{cp[p], x[p]}, nx);
    nv = v[p] = thomas_back(ThomasRow<T>{cp[p], v[p]}, nv);
    nw = w[p] = thomas_back(ThomasRow<T>{cp[p], w[p]}, nw);
  }
}

// Eq. (7) with PDD's 2x2 block of interface r|r+1, by the closed-form inverse (Algorithm 1, Step 5):
// from x~_m^(r), w_m^(r) (rank r) and x~_1^(r+1), v_1^(r+1) (received from rank r+1). 9 flops.
template <class T>
struct PddPair {
  T lo, hi;  // y_{2r+1} (multiplies v of block r+1), y_{2r+2} (multiplies w of block r)
};
template <class T>
NSB_TRIDIAG_HD PddPair<T> pdd_interface(T xt_m, T w_m, T xt_1, T v_1) {
  const T inv = T(1) / (T(1) - w_m * v_1);
  return {(xt_m - w_m * xt_1) * inv, (xt_1 - v_1 * xt_m) * inv};
}

// Eq. (8), one unknown of block r: y_above = y_{2r-1} (0 on the first block), y_below = y_{2r+2}
// (0 on the last). 4 flops.
template <class T>
NSB_TRIDIAG_HD T pdd_correct(T xt, T v, T w, T y_above, T y_below) {
  return xt - v * y_above - w * y_below;
}

// Flops per unknown: the three-right-hand-side Thomas (pivot 3, c' 1, three d' 9; three back 6) and
// the correction (4); the interface solves are O(p) a system.
inline constexpr double kPddFlopsPerPoint = 23;

}  // namespace nsb
