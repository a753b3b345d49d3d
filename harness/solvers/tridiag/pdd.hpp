// PDD and PPT on the host: one system split over p (virtual) ranks. pdd_system is the CPU reference of
// tridiag/pdd; ppt_system keeps the whole reduced system (Ha, Park & You Eqs. 9-11) and is exact, the
// reference PDD's error is measured against besides Thomas. Formulas: tridiag/pdd_formulas.hpp.
#pragma once

#include <stdexcept>
#include <string>
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

// PPT: the whole reduced system (pdd_formulas.hpp), solved with partial pivoting, then the correction.
template <class T>
void ppt_system(const TridiagLayout& l, int s, int p, const T* a, const T* b, const T* c, T* x, PddScratch<T> t) {
  if (p > kPptMaxRanks) throw std::invalid_argument("PPT: at most " + std::to_string(kPptMaxRanks) + " blocks");
  pdd_local_solves(l, s, p, a, b, c, x, t);
  PptReduced<T> r;
  ppt_build_reduced(r, l, s, p, x, t.v, t.w);
  ppt_solve_reduced(r);
  correct_blocks(l, s, p, std::vector<T>(r.y, r.y + r.q), x, t);
}

}  // namespace nsb
