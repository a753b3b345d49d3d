// CC-CCD: the sixth-order cell-centred combined compact differences of the IMLE solver (Liu, Wu, Kao &
// Sheu 2019, Eqs. 4-6; notes ../shared/papers/notes/seed_001.md Sec. 1.3), written once: the 2x2 blocks
// of the line system, its block LU (host, once per line length and boundary type: the paper's "L and U
// precomputed on the CPU", outside every timing), and the per-row right-hand side and substitution that
// the CPU reference and every GPU variant of imle/ccd call.
//
// A grid line of n cells (positions 1..n of a padded line; 0 and n+1 are its ghosts) has unknowns
// (phi'_i, phi''_i). They are solved scaled, x_i = (a_i, b_i) = (h phi'_i, h^2 phi''_i), which makes the
// matrix independent of h (one factor per n and boundary type) and of order one:
//
//   interior rows (Eq. 6, Chu-Fan CCD):
//     7/16 a_{i-1} + a_i + 7/16 a_{i+1} + 1/16 (b_{i-1} - b_{i+1}) = 15/16 (phi_{i+1} - phi_{i-1})
//    -9/8 (a_{i-1} - a_{i+1}) - 1/8 b_{i-1} + b_i - 1/8 b_{i+1}   = 3 (phi_{i-1} - 2 phi_i + phi_{i+1})
//   first cell, Dirichlet value phi_L on the wall (Eq. 4; velocity):
//     a_1 + 8/9 a_2 - 1/6 b_2 = -16/27 phi_L - phi_1 + 43/27 phi_2
//     b_1 + 2/3 a_2          =  32/9 phi_L - 6 phi_1 + 22/9 phi_2
//   first cell, Neumann value phi'_L on the wall, g = h phi'_L (Eq. 5; pressure):
//     a_1 + 31/27 a_2 - 2/9 b_2 = 4/27 g - 2 (phi_1 - phi_2)
//     b_1 - 8/9 a_2 + 1/3 b_2   = -8/9 g
//   last cell: the paper prints no closure there; it is the first cell's mirrored (odd derivatives change
//   sign: a -> -a, g -> -g), as the notes derive:
//     Dirichlet: a_n + 8/9 a_{n-1} + 1/6 b_{n-1} = 16/27 phi_R + phi_n - 43/27 phi_{n-1}
//                b_n - 2/3 a_{n-1}              = 32/9 phi_R - 6 phi_n + 22/9 phi_{n-1}
//     Neumann:   a_n + 31/27 a_{n-1} + 2/9 b_{n-1} = 4/27 g + 2 (phi_n - phi_{n-1})
//                b_n + 8/9 a_{n-1} + 1/3 b_{n-1}   = 8/9 g
// The boundary closures are exact for polynomials of degree 2 (checked in tests/test_imle.cpp), the
// interior rows to degree 6 (sixth order). The ghost of a line holds what its boundary rule needs: the
// wall value (Dirichlet; the paper's "boundary points" on the faces, h/2 from the first centre), or for
// Neumann a mirror value that gives the wall derivative as g = h phi'_wall = phi_1 - ghost (first cell)
// and ghost - phi_n (last cell): the Poisson family's Neumann ghost rule (ghost = its neighbour) is then
// dp/dn = 0, so the gradient of a pressure a Poisson method returns is taken as it comes.
//
// Solve: block Thomas without pivoting (the paper's block LU). Row i reads A_i x_{i-1} + B_i x_i +
// C_i x_{i+1} = r_i; the factor keeps per row L_i = A_i Bp_{i-1}^-1, Bp_i^-1 (Bp_i = B_i - L_i C_{i-1})
// and C_i, twelve numbers (kCcdFactorWords). Forward: y_i = r_i - L_i y_{i-1}; backward:
// x_i = Bp_i^-1 (y_i - C_i x_{i+1}).
#pragma once

#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid.hpp"

namespace nsb {

enum class CcdBc : int { dirichlet = 0, neumann = 1 };
inline const char* ccd_bc_name(CcdBc b) { return b == CcdBc::dirichlet ? "dirichlet" : "neumann"; }

// Words of the factor per row: L (2x2), Bp^-1 (2x2), C (2x2), each row-major.
inline constexpr int kCcdFactorWords = 12;

using Block2 = std::array<double, 4>;  // row-major 2x2

// The three blocks of row `row` (0-based, of n) of the scaled system, boundary rows by `bc`.
struct CcdRowBlocks {
  Block2 a{}, b{}, c{};  // coefficients of x_{i-1}, x_i, x_{i+1}
};
inline CcdRowBlocks ccd_row_blocks(int row, int n, CcdBc bc) {
  CcdRowBlocks r;
  r.b = {1, 0, 0, 1};
  if (row == 0) {
    r.c = bc == CcdBc::dirichlet ? Block2{8.0 / 9, -1.0 / 6, 2.0 / 3, 0} : Block2{31.0 / 27, -2.0 / 9, -8.0 / 9, 1.0 / 3};
  } else if (row == n - 1) {
    r.a = bc == CcdBc::dirichlet ? Block2{8.0 / 9, 1.0 / 6, -2.0 / 3, 0} : Block2{31.0 / 27, 2.0 / 9, 8.0 / 9, 1.0 / 3};
  } else {
    r.a = {7.0 / 16, 1.0 / 16, -9.0 / 8, -1.0 / 8};
    r.c = {7.0 / 16, -1.0 / 16, 9.0 / 8, -1.0 / 8};
  }
  return r;
}

inline Block2 mul2(const Block2& x, const Block2& y) {
  return {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3], x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
}
inline Block2 inv2(const Block2& x) {
  const double det = x[0] * x[3] - x[1] * x[2];
  if (det == 0) throw std::runtime_error("CC-CCD factor: a singular pivot block");
  return {x[3] / det, -x[1] / det, -x[2] / det, x[0] / det};
}

// The block LU of a line of n cells, kCcdFactorWords per row (host, double; once per n and bc).
inline std::vector<double> ccd_factor(int n, CcdBc bc) {
  if (n < 3) throw std::runtime_error("CC-CCD needs lines of at least 3 cells, not " + std::to_string(n));
  std::vector<double> f(std::size_t(n) * kCcdFactorWords, 0.0);
  Block2 prev_inv{}, prev_c{};
  for (int i = 0; i < n; ++i) {
    const CcdRowBlocks r = ccd_row_blocks(i, n, bc);
    Block2 l{}, bp = r.b;
    if (i > 0) {
      l = mul2(r.a, prev_inv);
      const Block2 lc = mul2(l, prev_c);
      for (int e = 0; e < 4; ++e) bp[e] -= lc[e];
    }
    prev_inv = inv2(bp), prev_c = r.c;
    double* row = &f[std::size_t(i) * kCcdFactorWords];
    for (int e = 0; e < 4; ++e) row[e] = l[e], row[4 + e] = prev_inv[e], row[8 + e] = r.c[e];
  }
  return f;
}

// The scaled right-hand side (r0, r1) of row `row` of n from the three values around its cell (padded
// line positions row, row+1, row+2: the first and last rows read the ghost).
template <class T>
NSB_HD inline void ccd_rhs(int row, int n, CcdBc bc, T phi_m, T phi_0, T phi_p, T& r0, T& r1) {
  if (row == 0) {
    if (bc == CcdBc::dirichlet) {
      r0 = T(-16.0 / 27) * phi_m - phi_0 + T(43.0 / 27) * phi_p;
      r1 = T(32.0 / 9) * phi_m - T(6) * phi_0 + T(22.0 / 9) * phi_p;
    } else {
      const T g = phi_0 - phi_m;  // h phi'_L
      r0 = T(4.0 / 27) * g - T(2) * (phi_0 - phi_p);
      r1 = T(-8.0 / 9) * g;
    }
  } else if (row == n - 1) {
    if (bc == CcdBc::dirichlet) {
      r0 = T(16.0 / 27) * phi_p + phi_0 - T(43.0 / 27) * phi_m;
      r1 = T(32.0 / 9) * phi_p - T(6) * phi_0 + T(22.0 / 9) * phi_m;
    } else {
      const T g = phi_p - phi_0;  // h phi'_R
      r0 = T(4.0 / 27) * g + T(2) * (phi_0 - phi_m);
      r1 = T(8.0 / 9) * g;
    }
  } else {
    r0 = T(15.0 / 16) * (phi_p - phi_m);
    r1 = T(3) * (phi_m - T(2) * phi_0 + phi_p);
  }
}

// Forward step of row i: y_i = r_i - L_i y_{i-1} (row 0: L = 0, so y_0 = r_0 with the same arithmetic).
template <class T>
NSB_HD inline void ccd_forward(const T* f, T r0, T r1, T& y0, T& y1) {
  const T p0 = y0, p1 = y1;
  y0 = r0 - (f[0] * p0 + f[1] * p1);
  y1 = r1 - (f[2] * p0 + f[3] * p1);
}

// Backward step of row i: x_i = Bp_i^-1 (y_i - C_i x_{i+1}) (last row: C = 0), in place of (x0, x1),
// which hold x_{i+1} on entry.
template <class T>
NSB_HD inline void ccd_backward(const T* f, T y0, T y1, T& x0, T& x1) {
  const T z0 = y0 - (f[8] * x0 + f[9] * x1);
  const T z1 = y1 - (f[10] * x0 + f[11] * x1);
  x0 = f[4] * z0 + f[5] * z1;
  x1 = f[6] * z0 + f[7] * z1;
}

// One whole line, in global memory or on the host: phi, d1, d2 point at the line's first ghost
// (padded position 0); consecutive cells are `stride` apart. The forward sweep parks y in d1 and d2,
// the backward sweep overwrites them with phi' = a / h and phi'' = b / h^2. Only the n cells are
// written. This is the paper's "one thread per line" body (Sec. 3.2) and the CPU reference's.
template <class T>
NSB_HD inline void ccd_solve_line(const T* phi, T* d1, T* d2, std::ptrdiff_t stride, int n, CcdBc bc, const T* factor, T h) {
  T y0 = 0, y1 = 0;
  T phi_m = phi[0], phi_0 = phi[stride];
  for (int row = 0; row < n; ++row) {
    const T phi_p = phi[(row + 2) * stride];
    T r0, r1;
    ccd_rhs(row, n, bc, phi_m, phi_0, phi_p, r0, r1);
    ccd_forward(factor + row * kCcdFactorWords, r0, r1, y0, y1);
    d1[(row + 1) * stride] = y0, d2[(row + 1) * stride] = y1;
    phi_m = phi_0, phi_0 = phi_p;
  }
  const T inv_h = T(1) / h, inv_h2 = inv_h * inv_h;
  T x0 = 0, x1 = 0;
  for (int row = n - 1; row >= 0; --row) {
    const std::ptrdiff_t at = (row + 1) * stride;
    ccd_backward(factor + row * kCcdFactorWords, d1[at], d2[at], x0, x1);
    d1[at] = x0 * inv_h, d2[at] = x1 * inv_h2;
  }
}

// Flops of one cell of a line (interior row), counted on ccd_solve_line's arithmetic (imle/models.cpp).
double ccd_flops_per_point();

}  // namespace nsb
