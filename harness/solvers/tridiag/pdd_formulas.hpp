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

#include <cstddef>

#include "tridiag/formulas.hpp"
#include "unroll.hpp"

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

// ------------------------------------------------------------------------ the partition method
//
// One system on one GPU block with nothing but a, b, c, d read and x written (the model's 5 words):
// the system is cut into K chunks of at most M consecutive rows, a thread a chunk holding its rows in
// registers (variants/tridiag/partition_registers.cuh). Unlike PDD's spikes (which couple a block to its
// neighbours' unknowns and whose reduced system needs pivoting, PPT), a chunk eliminates its interior
// rows (all but its first and last) against its OWN first and last unknowns:
//   Eq. P1   x_r = y_r - v_r x_first - w_r x_last,   r = 1..m-2,
// the interior solved by Thomas for three right-hand sides (d, a_1 e_1, c_{m-2} e_{m-2}: PDD's local
// solve, Eqs. 5-6, on the interior). Put into the chunk's first and last rows, P1 leaves two rows in the
// interface unknowns alone:
//   first:  a_0 x_last(k-1) + (b_0 - c_0 v_1) x_first + (-c_0 w_1) x_last = d_0 - c_0 y_1
//   last:   (-a_{m-1} v_{m-2}) x_first + (b_{m-1} - a_{m-1} w_{m-2}) x_last + c_{m-1} x_first(k+1)
//                                                                     = d_{m-1} - a_{m-1} y_{m-2}
// In the order first_0, last_0, first_1, last_1, ... these 2K rows are tridiagonal: the Schur complement
// of the interiors, diagonally dominant where A is, so it needs no pivoting. It is solved by the same
// elimination once more (chunks of kPartitionReducedRows of its rows) and Thomas on the 2 K' rows left;
// P1 (pdd_correct) then gives each level's interior. Exact: nothing is dropped (PDD drops couplings).
// Not PCR on the 2K rows: on the paper's Poisson y-systems (|b| = |a| + |c| + 1e-10) PCR's cancellations
// leave a backward error of 7.5e-4 where Thomas's is 1.4e-16; the two levels keep Thomas's
// (tests/test_tridiag.cpp, TridiagPartition.SolvesThePapersYSystemsAsThomasDoes).
inline constexpr int kPartitionReducedRows = 8;

// Chunks of a system of n unknowns for chunks of at most M rows; chunk k holds rows
// [pdd_block_start(n, K, k), pdd_block_start(n, K, k + 1)): at most M rows, and (M >= 4) at least 2
// unless n = 1, so every chunk has a first and a last row of its own.
NSB_TRIDIAG_HD int partition_chunks(int n, int max_rows) {
  return n <= 1 ? 1 : (n + max_rows - 1) / max_rows;
}

// A chunk after its local elimination: P1's coefficients of the interior rows 1..m-2 (other entries
// unused) and the chunk's two rows of the reduced system.
template <class T, int M>
struct PartitionLocal {
  T y[M], v[M], w[M];
  TridiagRow<T> first, last;
};

// The local elimination of a chunk of m rows (1 <= m <= M; m = 1 only for a system of one unknown,
// whose couplings are outside the matrix). Every loop runs to the constant M, guarded by m, so that a
// GPU thread's arrays stay in registers. a[0] couples the previous chunk, c[m-1] the next one.
template <class T, int M>
NSB_TRIDIAG_HD PartitionLocal<T, M> partition_eliminate(const T (&a)[M], const T (&b)[M], const T (&c)[M],
                                                        const T (&d)[M], int m) {
  static_assert(M >= 4, "chunks of at least 2 rows need M >= 4 (partition_chunks)");
  PartitionLocal<T, M> out{};
  T cp[M] = {};
  ThomasRow<T> ry{T(0), T(0)};
  T v_dp = T(0);  // v's d' (its c' is y's: the same matrix)
  // Row m-1, and y, v, w of row m-2 (the interior's last): the last values the loop leaves in them. m is
  // known at run time only, and an array indexed by it would leave registers for (local) memory.
  TridiagRow<T> last{a[0], b[0], c[0], d[0]};
  T y_above = T(0), v_above = T(0), w_above = T(0);
  NSB_UNROLL
  for (int r = 1; r < M; ++r) {  // forward over the interior, its cut couplings as right-hand sides
    if (r < m - 1) {
      const bool top = r == 1, bottom = r == m - 2;
      const T ar = top ? T(0) : a[r], cr = bottom ? T(0) : c[r];
      // The three right-hand sides share the pivot: v's and w's d' from y's c' of the row above, so that
      // the one pivot expression is formed (and inverted) once a row, not once a right-hand side.
      const T cp_above = ry.cp;
      ry = thomas_forward(ar, b[r], cr, d[r], ry);
      v_dp = thomas_forward_known_cp(ar, b[r], cp_above, top ? a[r] : T(0), v_dp);
      const T w_bottom = thomas_forward_known_cp(ar, b[r], cp_above, c[r], T(0));  // if r is m-2
      cp[r] = ry.cp, out.y[r] = ry.dp, out.v[r] = v_dp, out.w[r] = bottom ? w_bottom : T(0);
      y_above = ry.dp, v_above = v_dp, w_above = w_bottom;
    }
    if (r < m) last = TridiagRow<T>{a[r], b[r], c[r], d[r]};
  }
  NSB_UNROLL
  for (int r = M - 3; r >= 1; --r) {  // back substitution from the interior's last row, m - 2
    if (r < m - 2) {
      out.y[r] = thomas_back(ThomasRow<T>{cp[r], out.y[r]}, out.y[r + 1]);
      out.v[r] = thomas_back(ThomasRow<T>{cp[r], out.v[r]}, out.v[r + 1]);
      out.w[r] = thomas_back(ThomasRow<T>{cp[r], out.w[r]}, out.w[r + 1]);
    }
  }
  out.first = TridiagRow<T>{a[0], b[0], c[0], d[0]};
  if (m >= 3) {
    out.first = TridiagRow<T>{a[0], b[0] - c[0] * out.v[1], -c[0] * out.w[1], d[0] - c[0] * out.y[1]};
    last = TridiagRow<T>{-last.a * v_above, last.b - last.a * w_above, last.c, last.d - last.a * y_above};
  }
  out.last = last;  // m = 2: the chunk's two rows as they are; m = 1: its one row twice
  return out;
}

// Row r of the chunk from the reduced system's solution (its first and last unknowns), Eq. P1.
template <class T, int M>
NSB_TRIDIAG_HD T partition_unknown(const PartitionLocal<T, M>& p, int r, int m, T x_first, T x_last) {
  return r == 0 ? x_first : r == m - 1 ? x_last : pdd_correct(p.y[r], p.v[r], p.w[r], x_first, x_last);
}

// PPT (Eqs. 9-11): the whole reduced system Z y = E^T x~ of one line, 2(p-1) unknowns (what the
// all-gather hands every rank). Row 2i picks the last unknown of block i, row 2i+1 the first of block
// i+1 (0-based; y[k] is the paper's y_{k+1}):
//   row 2i:   v_m^(i) y[2i-2] + y[2i] + w_m^(i) y[2i+1]          = x~_m^(i)
//   row 2i+1: v_1^(i+1) y[2i] + y[2i+1] + w_1^(i+1) y[2i+3]      = x~_1^(i+1)
// Its permuted form Zbar is tridiagonal but not diagonally dominant (tiny entries on the diagonal), so
// it is solved densely with partial pivoting: q <= 2 (kPptMaxRanks - 1) unknowns, on the stack.
inline constexpr int kPptMaxRanks = 8;
inline constexpr int kPptMaxUnknowns = 2 * (kPptMaxRanks - 1);

template <class T>
struct PptReduced {
  T z[kPptMaxUnknowns][kPptMaxUnknowns];
  T y[kPptMaxUnknowns];  // the right-hand side E^T x~, then the solution
  int q;
};

// Interface i's four couplings and two right-hand sides (from block i's last row m, block i+1's first f).
template <class T>
NSB_TRIDIAG_HD void ppt_set_interface(PptReduced<T>& r, int i, int p, T v_m, T w_m, T xt_m, T v_1, T w_1, T xt_1) {
  const int r0 = 2 * i, r1 = r0 + 1;
  r.z[r0][r0] = T(1), r.z[r1][r1] = T(1);
  if (i > 0) r.z[r0][r0 - 2] = v_m;
  r.z[r0][r0 + 1] = w_m;
  r.z[r1][r0] = v_1;
  if (i + 2 < p) r.z[r1][r1 + 2] = w_1;
  r.y[r0] = xt_m, r.y[r1] = xt_1;
}

// Gaussian elimination with partial pivoting, in place (y becomes the solution).
template <class T>
NSB_TRIDIAG_HD void ppt_solve_reduced(PptReduced<T>& r) {
  const int q = r.q;
  for (int k = 0; k < q; ++k) {
    int piv = k;
    for (int i = k + 1; i < q; ++i)
      if ((r.z[i][k] < T(0) ? -r.z[i][k] : r.z[i][k]) > (r.z[piv][k] < T(0) ? -r.z[piv][k] : r.z[piv][k])) piv = i;
    if (piv != k) {
      for (int cc = 0; cc < q; ++cc) {
        const T t = r.z[k][cc];
        r.z[k][cc] = r.z[piv][cc], r.z[piv][cc] = t;
      }
      const T t = r.y[k];
      r.y[k] = r.y[piv], r.y[piv] = t;
    }
    for (int i = k + 1; i < q; ++i) {
      const T f = r.z[i][k] / r.z[k][k];
      for (int cc = k; cc < q; ++cc) r.z[i][cc] -= f * r.z[k][cc];
      r.y[i] -= f * r.y[k];
    }
  }
  for (int k = q - 1; k >= 0; --k) {
    T sum = r.y[k];
    for (int cc = k + 1; cc < q; ++cc) sum -= r.z[k][cc] * r.y[cc];
    r.y[k] = sum / r.z[k][k];
  }
}

// The reduced system of line s: blocks' boundary values read in place, zeros elsewhere.
template <class T>
NSB_TRIDIAG_HD void ppt_build_reduced(PptReduced<T>& r, const TridiagLayout& l, int s, int p, const T* x, const T* v,
                                      const T* w) {
  r.q = 2 * (p - 1);
  for (int i = 0; i < r.q; ++i) {
    r.y[i] = T(0);
    for (int cc = 0; cc < r.q; ++cc) r.z[i][cc] = T(0);
  }
  for (int i = 0; i + 1 < p; ++i) {
    const int boundary = pdd_block_start(l.n, p, i + 1);
    const std::size_t m = l.index(s, boundary - 1), f = l.index(s, boundary);
    ppt_set_interface(r, i, p, v[m], w[m], x[m], v[f], w[f], x[f]);
  }
}

// One strided line cut over p y-ranks (rank r holds rows [pdd_block_start(n, p, r), ..(r+1))):
// `row(j)` gives row j (.lower, .diag, .upper: any type with those members, e.g. the Poisson family's
// TridiagonalRow); x[(j - first) * sx] holds d in and the solution out; v, w, cp are scratch at stride
// ss. first = 0 where the whole line is in memory (one device, virtual ranks); a real rank holds its
// block only, from its first row (first = block_start(p, r)), and touches no other row. cells > 0: the
// line's rows are the faces above `cells` cells, the wall face excluded (n = cells - 1: v's y lines), and
// the blocks are cut where the cells' are (a y-slab owns the faces above its cells), the last block one
// row shorter; cells = 0: the n rows are cut evenly (pdd_block_start).
template <class T, class Rows>
struct SplitLine {
  Rows row;
  int n;
  T* x;
  std::ptrdiff_t sx;
  T* v;
  T* w;
  T* cp;
  std::ptrdiff_t ss;
  int first = 0;
  int cells = 0;
  NSB_TRIDIAG_HD int block_start(int p, int r) const { return r >= p ? n : pdd_block_start(cells > 0 ? cells : n, p, r); }
  NSB_TRIDIAG_HD T& xj(int j) const { return x[(j - first) * sx]; }
  NSB_TRIDIAG_HD T& vj(int j) const { return v[(j - first) * ss]; }
  NSB_TRIDIAG_HD T& wj(int j) const { return w[(j - first) * ss]; }
  NSB_TRIDIAG_HD T& cpj(int j) const { return cp[(j - first) * ss]; }
};

// Eqs. (5)-(6) on rank r's block of the line: x~ over x, v and w (one forward sweep for the three
// right-hand sides, as the paper's batched gtsv call), c' in cp.
template <class T, class Rows>
NSB_TRIDIAG_HD void split_local(const SplitLine<T, Rows>& l, int p, int r) {
  const int j0 = l.block_start(p, r), j1 = l.block_start(p, r + 1);
  const T a_first = j0 > 0 ? T(l.row(j0).lower) : T(0), c_last = j1 < l.n ? T(l.row(j1 - 1).upper) : T(0);
  ThomasRow<T> rx{T(0), T(0)}, rv{T(0), T(0)}, rw{T(0), T(0)};
  for (int j = j0; j < j1; ++j) {
    const auto rr = l.row(j);
    const T aj = j == j0 ? T(0) : T(rr.lower), bj = T(rr.diag), cj = j == j1 - 1 ? T(0) : T(rr.upper);
    rx = thomas_forward(aj, bj, cj, l.xj(j), rx);
    rv = thomas_forward(aj, bj, cj, j == j0 ? a_first : T(0), rv);
    rw = thomas_forward(aj, bj, cj, j == j1 - 1 ? c_last : T(0), rw);
    l.cpj(j) = rx.cp, l.xj(j) = rx.dp, l.vj(j) = rv.dp, l.wj(j) = rw.dp;
  }
  T nx = l.xj(j1 - 1), nv = l.vj(j1 - 1), nw = l.wj(j1 - 1);
  for (int j = j1 - 2; j >= j0; --j) {
    nx = l.xj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.xj(j)}, nx);
    nv = l.vj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.vj(j)}, nv);
    nw = l.wj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.wj(j)}, nw);
  }
}

// The same local phase with the matrix's part done once (notes [A] of Sec. 6.4: the Poisson and ADI
// matrices are constant in time, so v, w and c' can be precomputed). split_factor: Eq. (6) and c' of
// rank r's block, exactly split_local's operations on v, w (rv's c' is rx's: the same recurrence on the
// same rows), for a line whose matrix many lines share (ADI-Y: one a component and sub-step) or that
// stays the same from step to step. split_local_factored: Eq. (5) alone, x~ swept against the stored
// c' (thomas_forward_known_cp) with split_local's operations on x. Together they give split_local's x~,
// v, w, c' bit for bit; a line's local phase then reads and writes x only (and reads the factors).
template <class T, class Rows>
NSB_TRIDIAG_HD void split_factor(const SplitLine<T, Rows>& l, int p, int r) {
  const int j0 = l.block_start(p, r), j1 = l.block_start(p, r + 1);
  const T a_first = j0 > 0 ? T(l.row(j0).lower) : T(0), c_last = j1 < l.n ? T(l.row(j1 - 1).upper) : T(0);
  ThomasRow<T> rv{T(0), T(0)}, rw{T(0), T(0)};
  for (int j = j0; j < j1; ++j) {
    const auto rr = l.row(j);
    const T aj = j == j0 ? T(0) : T(rr.lower), bj = T(rr.diag), cj = j == j1 - 1 ? T(0) : T(rr.upper);
    rv = thomas_forward(aj, bj, cj, j == j0 ? a_first : T(0), rv);
    rw = thomas_forward(aj, bj, cj, j == j1 - 1 ? c_last : T(0), rw);
    l.cpj(j) = rv.cp, l.vj(j) = rv.dp, l.wj(j) = rw.dp;
  }
  T nv = l.vj(j1 - 1), nw = l.wj(j1 - 1);
  for (int j = j1 - 2; j >= j0; --j) {
    nv = l.vj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.vj(j)}, nv);
    nw = l.wj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.wj(j)}, nw);
  }
}
template <class T, class Rows>
NSB_TRIDIAG_HD void split_local_factored(const SplitLine<T, Rows>& l, int p, int r) {
  const int j0 = l.block_start(p, r), j1 = l.block_start(p, r + 1);
  T dp = T(0);
  for (int j = j0; j < j1; ++j) {
    const auto rr = l.row(j);
    const T aj = j == j0 ? T(0) : T(rr.lower);
    dp = l.xj(j) = thomas_forward_known_cp(aj, T(rr.diag), j == j0 ? T(0) : l.cpj(j - 1), l.xj(j), dp);
  }
  T nx = l.xj(j1 - 1);
  for (int j = j1 - 2; j >= j0; --j) nx = l.xj(j) = thomas_back(ThomasRow<T>{l.cpj(j), l.xj(j)}, nx);
}

// What rank r contributes to the reduced system (its message): x~, v, w at its first row (1) and its
// last row (m), in this order. PDD sends the first two to rank r - 1; PPT all-gathers all six.
enum SplitBoundary : int { kSbX1 = 0, kSbV1, kSbW1, kSbXm, kSbVm, kSbWm, kSbCount };
template <class T, class Rows>
NSB_TRIDIAG_HD T split_boundary(const SplitLine<T, Rows>& l, int p, int r, int q) {
  const int j = q < kSbXm ? l.block_start(p, r) : l.block_start(p, r + 1) - 1;
  const int which = q % 3;
  return which == 0 ? l.xj(j) : which == 1 ? l.vj(j) : l.wj(j);
}

// PPT: the whole reduced system from every rank's boundary values (bound(i, q): rank i's value q), what
// each rank solves after the all-gather; ppt_rank_pair reads rank r's (y_{2r-1}, y_{2r+2}) from it, what
// multiplies v^(r) and w^(r) in Eq. (8) (0 beyond the first and last blocks).
template <class T, class Bound>
NSB_TRIDIAG_HD void ppt_reduced_solve(PptReduced<T>& z, const Bound& bound, int p) {
  z.q = 2 * (p - 1);
  for (int i = 0; i < z.q; ++i) {
    z.y[i] = T(0);
    for (int cc = 0; cc < z.q; ++cc) z.z[i][cc] = T(0);
  }
  for (int i = 0; i + 1 < p; ++i)
    ppt_set_interface(z, i, p, bound(i, kSbVm), bound(i, kSbWm), bound(i, kSbXm), bound(i + 1, kSbV1),
                      bound(i + 1, kSbW1), bound(i + 1, kSbX1));
  ppt_solve_reduced(z);
}
template <class T>
NSB_TRIDIAG_HD PddPair<T> ppt_rank_pair(const PptReduced<T>& z, int p, int r) {
  return {r > 0 ? z.y[2 * r - 2] : T(0), r + 1 < p ? z.y[2 * r + 1] : T(0)};
}

// Eq. (8) on rank r's block.
template <class T, class Rows>
NSB_TRIDIAG_HD void split_correct(const SplitLine<T, Rows>& l, int p, int r, T y_above, T y_below) {
  for (int j = l.block_start(p, r); j < l.block_start(p, r + 1); ++j)
    l.xj(j) = pdd_correct(l.xj(j), l.vj(j), l.wj(j), y_above, y_below);
}

// The whole split solve of one line in one thread, as the ranks would do it: every block's Eqs.
// (5)-(6), then the interfaces by PDD's 2x2 blocks (exact = false) or PPT's whole reduced system (exact =
// true), then Eq. (8); the boundary values another rank would send are read in place. p = 1 is Thomas.
// split_phases.hpp runs the same steps phase by phase over all lines, rank after rank. p <= kPptMaxRanks.
// cells: SplitLine's (0: even blocks of the n rows).
template <class T, class Rows>
NSB_TRIDIAG_HD void split_line_solve(const Rows& row, int n, int p, bool exact, T* x, std::ptrdiff_t sx, T* v, T* w, T* cp,
                                     std::ptrdiff_t ss, int cells = 0) {
  const SplitLine<T, Rows> l{row, n, x, sx, v, w, cp, ss, 0, cells};
  for (int r = 0; r < p; ++r) split_local(l, p, r);
  if (p == 1) return;
  T above[kPptMaxRanks], below[kPptMaxRanks];  // what multiplies v^(r) and w^(r) in Eq. (8)
  above[0] = below[p - 1] = T(0);
  const auto bound = [&](int i, int q) { return split_boundary(l, p, i, q); };
  if (exact) {
    PptReduced<T> z{};
    ppt_reduced_solve(z, bound, p);
    for (int r = 0; r < p; ++r) {
      const PddPair<T> y = ppt_rank_pair(z, p, r);
      above[r] = y.lo, below[r] = y.hi;
    }
  } else {
    for (int r = 0; r + 1 < p; ++r) {  // interface r | r+1: rank r's last row m, rank r+1's first row
      const PddPair<T> y = pdd_interface(bound(r, kSbXm), bound(r, kSbWm), bound(r + 1, kSbX1), bound(r + 1, kSbV1));
      above[r + 1] = y.lo, below[r] = y.hi;
    }
  }
  for (int r = 0; r < p; ++r) split_correct(l, p, r, above[r], below[r]);
}

}  // namespace nsb
