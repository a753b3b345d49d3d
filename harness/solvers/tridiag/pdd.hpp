// PDD and PPT on the host: one system split over p (virtual) ranks. pdd_system is the CPU reference of
// tridiag/pdd; ppt_system keeps the whole reduced system (Ha, Park & You Eqs. 9-11) and is exact, the
// reference PDD's error is measured against besides Thomas. Formulas: tridiag/pdd_formulas.hpp.
#pragma once

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "tridiag/pdd_formulas.hpp"

namespace nsb {

// What both need: v, w and c' of the local solves, each at the unknowns' own indices.
template <class T>
struct PddScratch {
  T* v;
  T* w;
  T* cp;
};

template <class T>
void pdd_local_solves(const TridiagLayout& l, int s, int p, const T* a, const T* b, const T* c, T* x, PddScratch<T> t) {
  for (int r = 0; r < p; ++r)
    pdd_local_solve(l, s, pdd_block_start(l.n, p, r), pdd_block_start(l.n, p, r + 1), a, b, c, x, t.v, t.w, t.cp);
}

// y_above, y_below of every block from the reduced solution y (0-based: y[k] is the paper's y_{k+1}).
template <class T>
void correct_blocks(const TridiagLayout& l, int s, int p, const std::vector<T>& y, T* x, PddScratch<T> t) {
  for (int r = 0; r < p; ++r) {
    const T above = r > 0 ? y[std::size_t(2 * r - 2)] : T(0), below = r < p - 1 ? y[std::size_t(2 * r + 1)] : T(0);
    for (int j = pdd_block_start(l.n, p, r); j < pdd_block_start(l.n, p, r + 1); ++j) {
      const std::size_t q = l.index(s, j);
      x[q] = pdd_correct(x[q], t.v[q], t.w[q], above, below);
    }
  }
}

// PDD: the 2x2 interface blocks only (Algorithm 1).
template <class T>
void pdd_system(const TridiagLayout& l, int s, int p, const T* a, const T* b, const T* c, T* x, PddScratch<T> t) {
  pdd_local_solves(l, s, p, a, b, c, x, t);
  std::vector<T> y(std::size_t(2 * (p - 1)));
  for (int r = 0; r + 1 < p; ++r) {
    const std::size_t m = l.index(s, pdd_block_start(l.n, p, r + 1) - 1), f = l.index(s, pdd_block_start(l.n, p, r + 1));
    const PddPair<T> yy = pdd_interface(x[m], t.w[m], x[f], t.v[f]);
    y[std::size_t(2 * r)] = yy.lo, y[std::size_t(2 * r + 1)] = yy.hi;
  }
  correct_blocks(l, s, p, y, x, t);
}

// Dense Gaussian elimination with partial pivoting, in place (the reduced system is 2(p-1) unknowns;
// its permuted form Zbar is tridiagonal but not diagonally dominant, so it needs pivoting).
template <class T>
std::vector<T> dense_solve_pivoting(std::vector<std::vector<T>> A, std::vector<T> rhs) {
  const std::size_t q = rhs.size();
  for (std::size_t k = 0; k < q; ++k) {
    std::size_t piv = k;
    for (std::size_t r = k + 1; r < q; ++r)
      if (std::abs(A[r][k]) > std::abs(A[piv][k])) piv = r;
    std::swap(A[k], A[piv]), std::swap(rhs[k], rhs[piv]);
    for (std::size_t r = k + 1; r < q; ++r) {
      const T f = A[r][k] / A[k][k];
      for (std::size_t cc = k; cc < q; ++cc) A[r][cc] -= f * A[k][cc];
      rhs[r] -= f * rhs[k];
    }
  }
  for (std::size_t k = q; k-- > 0;) {
    T sum = rhs[k];
    for (std::size_t cc = k + 1; cc < q; ++cc) sum -= A[k][cc] * rhs[cc];
    rhs[k] = sum / A[k][k];
  }
  return rhs;
}

// PPT: the whole reduced system Z y = E^T x~ (Eq. 7; what the all-gather gives every rank): row 2i
// picks the last unknown of block i, row 2i+1 the first of block i+1.
template <class T>
void ppt_system(const TridiagLayout& l, int s, int p, const T* a, const T* b, const T* c, T* x, PddScratch<T> t) {
  pdd_local_solves(l, s, p, a, b, c, x, t);
  const std::size_t q = std::size_t(2 * (p - 1));
  std::vector<std::vector<T>> Z(q, std::vector<T>(q, T(0)));
  std::vector<T> rhs(q);
  for (int i = 0; i + 1 < p; ++i) {
    const std::size_t r0 = std::size_t(2 * i), r1 = r0 + 1;
    const std::size_t m = l.index(s, pdd_block_start(l.n, p, i + 1) - 1), f = l.index(s, pdd_block_start(l.n, p, i + 1));
    Z[r0][r0] = 1, Z[r1][r1] = 1;
    if (i > 0) Z[r0][r0 - 2] = t.v[m];  // v_m^(i) y_{2i-1}
    Z[r0][r0 + 1] = t.w[m];             // w_m^(i) y_{2i+2}
    Z[r1][r0] = t.v[f];                 // v_1^(i+1) y_{2i+1}
    if (i + 2 < p) Z[r1][r1 + 2] = t.w[f];  // w_1^(i+1) y_{2i+4}
    rhs[r0] = x[m], rhs[r1] = x[f];
  }
  correct_blocks(l, s, p, dense_solve_pivoting(std::move(Z), std::move(rhs)), x, t);
}

}  // namespace nsb
