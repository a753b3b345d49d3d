// CC-CCD line solves in chunks (issue 22: CC-CCD at a larger fraction of the copy bandwidth): the same
// rows as ccd_solve_line (ccd_formulas.hpp: ccd_rhs, ccd_forward, ccd_backward, in the same order, so
// the same numbers), reorganised for a GPU thread that owns a line. phi is loaded kCcdChunk cells at a
// time, independent loads, where ccd_solve_line stores d1, d2 between two loads of phi (which may alias
// them), so that each of its steps waits a full memory latency (Nsight Compute, 201^3 double: 96% of the
// cycles between two instructions stalled on L1TEX; docs/solvers/imle.md). And the forward sweep's y does
// not go through d1, d2 in global memory (7 words a cell of traffic against the work model's 3):
//   ccd_solve_line_shared_y    keeps y, 2 words a row, in a store the caller gives (shared memory): 3 words
//   ccd_solve_line_recompute   keeps only y entering each chunk (2 words a chunk); the backward sweep
//                              reloads a chunk's phi and recomputes its y into registers: 4 words (phi
//                              twice), 3 where the second read hits a cache, and the forward flops twice.
// The arrays do not overlap (__restrict__: the factor's loads may move ahead of the stores). A store is
// addressed as `ys[2 r * ys_stride]`, `ys[(2 r + 1) * ys_stride]` (r: a row or a chunk), so
// that a block's threads interleave their lines in shared memory (stride: the block's threads) and a host
// test passes a plain array (stride 1). tests/test_imle.cpp checks both against ccd_solve_line.
#pragma once

#include <cstddef>

#include "grid.hpp"
#include "imle/ccd_formulas.hpp"
#include "unroll.hpp"

namespace nsb {

// Cells of a line loaded at once (registers: a word each, two more a cell where a chunk is recomputed).
inline constexpr int kCcdChunk = 16;

inline constexpr int ccd_chunks(int n) { return (n + kCcdChunk - 1) / kCcdChunk; }

// phi_p of rows row0 .. row0 + K - 1 (padded positions row0 + 2, ...) into v; rows past the line's end
// left alone.
template <class T, int K>
NSB_HD inline void ccd_load_chunk(const T* phi, std::ptrdiff_t stride, int row0, int n, T (&v)[K]) {
  NSB_UNROLL
  for (int k = 0; k < K; ++k)
    if (row0 + k < n) v[k] = phi[std::ptrdiff_t(row0 + k + 2) * stride];
}

// The forward sweep over rows row0 .. row0 + K - 1 (those < n) from the state entering the chunk (phi_m,
// phi_0: padded positions row0, row0 + 1; y0, y1: y of row row0 - 1), phi_p from v; keep(k, row, y0, y1)
// takes each row's y (k is a constant once unrolled, so a register array may take it).
template <class T, int K, class Keep>
NSB_HD inline void ccd_forward_chunk(int row0, int n, CcdBc bc, const T* factor, const T (&v)[K], T& phi_m, T& phi_0,
                                     T& y0, T& y1, Keep keep) {
  NSB_UNROLL
  for (int k = 0; k < K; ++k) {
    const int row = row0 + k;
    if (row < n) {
      T r0, r1;
      ccd_rhs(row, n, bc, phi_m, phi_0, v[k], r0, r1);
      ccd_forward(factor + row * kCcdFactorWords, r0, r1, y0, y1);
      keep(k, row, y0, y1);
      phi_m = phi_0, phi_0 = v[k];
    }
  }
}

// Row `row`'s derivatives from its scaled unknowns: phi' = a / h, phi'' = b / h^2.
template <class T>
NSB_HD inline void ccd_store_row(T* d1, T* d2, std::ptrdiff_t stride, int row, T x0, T x1, T inv_h, T inv_h2) {
  const std::ptrdiff_t at = std::ptrdiff_t(row + 1) * stride;
  d1[at] = x0 * inv_h, d2[at] = x1 * inv_h2;
}

// ccd_solve_line with y kept in ys (2 n words, ys_stride apart): phi read once, d1 and d2 written once.
template <class T>
NSB_HD inline void ccd_solve_line_shared_y(const T* __restrict__ phi, T* __restrict__ d1, T* __restrict__ d2,
                                           std::ptrdiff_t stride, int n, CcdBc bc, const T* __restrict__ factor, T h,
                                           T* __restrict__ ys, int ys_stride) {
  T y0 = 0, y1 = 0, phi_m = phi[0], phi_0 = phi[stride];
  for (int row0 = 0; row0 < n; row0 += kCcdChunk) {
    T v[kCcdChunk] = {};
    ccd_load_chunk(phi, stride, row0, n, v);
    ccd_forward_chunk(row0, n, bc, factor, v, phi_m, phi_0, y0, y1, [&](int, int row, T q0, T q1) {
      ys[2 * row * ys_stride] = q0, ys[(2 * row + 1) * ys_stride] = q1;
    });
  }
  const T inv_h = T(1) / h, inv_h2 = inv_h * inv_h;
  T x0 = 0, x1 = 0;
  for (int row = n - 1; row >= 0; --row) {
    ccd_backward(factor + row * kCcdFactorWords, ys[2 * row * ys_stride], ys[(2 * row + 1) * ys_stride], x0, x1);
    ccd_store_row(d1, d2, stride, row, x0, x1, inv_h, inv_h2);
  }
}

// ccd_solve_line with only y entering each chunk kept in cp (2 ccd_chunks(n) words, cp_stride apart);
// the backward sweep recomputes each chunk's y from its checkpoint, last chunk first.
template <class T>
NSB_HD inline void ccd_solve_line_recompute(const T* __restrict__ phi, T* __restrict__ d1, T* __restrict__ d2,
                                            std::ptrdiff_t stride, int n, CcdBc bc, const T* __restrict__ factor, T h,
                                            T* __restrict__ cp, int cp_stride) {
  const int chunks = ccd_chunks(n);
  const auto drop = [](int, int, T, T) {};
  T y0 = 0, y1 = 0, phi_m = phi[0], phi_0 = phi[stride];
  for (int c = 0; c < chunks; ++c) {
    cp[2 * c * cp_stride] = y0, cp[(2 * c + 1) * cp_stride] = y1;
    T v[kCcdChunk] = {};
    ccd_load_chunk(phi, stride, c * kCcdChunk, n, v);
    ccd_forward_chunk(c * kCcdChunk, n, bc, factor, v, phi_m, phi_0, y0, y1, drop);
  }
  const T inv_h = T(1) / h, inv_h2 = inv_h * inv_h;
  T x0 = 0, x1 = 0;
  for (int c = chunks - 1; c >= 0; --c) {
    const int row0 = c * kCcdChunk;
    T v[kCcdChunk] = {}, ya[kCcdChunk] = {}, yb[kCcdChunk] = {};  // (rows past the end: never read)
    ccd_load_chunk(phi, stride, row0, n, v);
    phi_m = phi[std::ptrdiff_t(row0) * stride], phi_0 = phi[std::ptrdiff_t(row0 + 1) * stride];
    y0 = cp[2 * c * cp_stride], y1 = cp[(2 * c + 1) * cp_stride];
    ccd_forward_chunk(row0, n, bc, factor, v, phi_m, phi_0, y0, y1, [&](int k, int, T q0, T q1) { ya[k] = q0, yb[k] = q1; });
    NSB_UNROLL
    for (int k = kCcdChunk - 1; k >= 0; --k) {
      const int row = row0 + k;
      if (row >= n) continue;
      ccd_backward(factor + row * kCcdFactorWords, ya[k], yb[k], x0, x1);
      ccd_store_row(d1, d2, stride, row, x0, x1, inv_h, inv_h2);
    }
  }
}

}  // namespace nsb
