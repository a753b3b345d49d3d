// Geometric multigrid's numerics (method `mg`, multigrid.hpp), written once for the CPU reference and
// every GPU variant: the smoothers' point updates, the 8-cell restriction, the trilinear prolongation,
// the ghost rule of one ghost point, and the red/black colouring. The 7-point operator and the face
// rules themselves are the family's (formulas.hpp).
//
// Levels are cell-centred grids, each coarsening the one above by 2 in every direction: coarse cell
// (I,J,K) (interior indices 1..n) covers the fine cells i in {2I-1, 2I}, j in {2J-1, 2J}, k in {2K-1, 2K}.
// Every level carries the same faces (homogeneous), and its own spacings (the domain is the same).
#pragma once

#include <cstddef>

#include "grid.hpp"
#include "poisson/formulas.hpp"
#include "poisson/poisson.hpp"

namespace nsb {

// The operator's coefficients of one level and the reciprocal of its centre weight (a smoother
// multiplies by it instead of dividing at every point).
template <class T>
struct MgCoef {
  PoissonCoef<T> op;
  T inv_diag;
};
template <class T>
inline MgCoef<T> make_mg_coef(const Grid& g) {
  const PoissonCoef<double> d = make_poisson_coef<double>(g);
  return {make_poisson_coef<T>(g), T(1 / d.diag)};
}

// Default weight of the Jacobi smoother: 6/7, the weight that minimises the 7-point operator's
// smoothing factor in 3D (it damps the upper half of the spectrum by at least 5/7 each sweep; the
// 1D and 2D analogues are 2/3 and 4/5). Trottenberg, Oosterlee & Schueller, Multigrid (2001), 2.1/4.
inline constexpr double kMgJacobiWeight = 6.0 / 7.0;

// The Gauss-Seidel value of point n: the equation L p = f solved for p[n] with its neighbours as they are.
template <class T>
NSB_HD inline T mg_gauss_seidel_point(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz, T f,
                                      const MgCoef<T>& c) {
  return (poisson_neighbours(p, n, sy, sz, c.op) - f) * c.inv_diag;
}

// Over-relaxed Gauss-Seidel (red-black SOR as a smoother): p + omega (Gauss-Seidel value - p). Omega 1 is
// plain Gauss-Seidel and is computed as such (the default smoother's values bit for bit). A red-black
// smoother damps the high frequencies better slightly over-relaxed (Yavneh, "On red-black SOR smoothing in
// multigrid", SIAM J. Sci. Comput. 17, 1996); MgOptions::omega picks it, and the cycles it saves are
// measured (docs/solvers/poisson_multigrid.md).
template <class T>
NSB_HD inline T mg_rbgs_point(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz, T f, const MgCoef<T>& c,
                              T omega) {
  const T gs = mg_gauss_seidel_point(p, n, sy, sz, f, c);
  if (omega == T(1)) return gs;
  const T centre = p[n];
  return centre + omega * (gs - centre);
}

// Weighted (damped) Jacobi: p + omega (Gauss-Seidel value - p), every neighbour from the previous sweep.
template <class T>
NSB_HD inline T mg_jacobi_point(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz, T f,
                                const MgCoef<T>& c, T omega) {
  const T centre = p[n];
  return centre + omega * (mg_gauss_seidel_point(p, n, sy, sz, f, c) - centre);
}

// Residual r = f - L p.
template <class T>
NSB_HD inline T mg_residual_point(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz, T f,
                                  const MgCoef<T>& c) {
  return f - poisson_apply(p, n, sy, sz, c.op);
}

// Red points have an even i + j + k (padded indices), black ones odd; colour 0 is red.
NSB_HD inline bool mg_has_colour(int i, int j, int k, int colour) { return ((i + j + k) & 1) == colour; }

// Restriction: the coarse right-hand side is the average of the 8 fine residuals the coarse cell covers
// (the adjoint of constant prolongation over 8; it keeps a singular problem's sum, so a compatible
// fine residual gives a compatible coarse one up to roundoff).
// The average of value(m) over the 8 fine cells m of coarse cell (I, J, K), in a fixed order.
template <class T, class Value>
NSB_HD inline T mg_average_of_8(const Grid& fg, int I, int J, int K, const Value& value) {
  const std::size_t n = fg.idx(2 * I - 1, 2 * J - 1, 2 * K - 1);
  const std::ptrdiff_t sy = fg.sy(), sz = fg.sz();
  const T lower = (value(n) + value(n + 1)) + (value(n + sy) + value(n + sy + 1));
  const T upper = (value(n + sz) + value(n + sz + 1)) + (value(n + sz + sy) + value(n + sz + sy + 1));
  return T(0.125) * (lower + upper);
}
template <class T>
NSB_HD inline T mg_restrict_point(const T* fine, const Grid& fg, int I, int J, int K) {
  return mg_average_of_8<T>(fg, I, J, K, [fine](std::size_t m) { return fine[m]; });
}
// The residual and its restriction in one (poisson/mg_residual_restrict): the 8 fine residuals are
// computed where they are averaged and never stored, the same values in the same order as mg_residual
// then mg_restrict.
template <class T>
NSB_HD inline T mg_residual_restrict_point(const T* p, const T* f, const Grid& fg, const MgCoef<T>& c, int I, int J, int K) {
  const std::ptrdiff_t sy = fg.sy(), sz = fg.sz();
  return mg_average_of_8<T>(fg, I, J, K, [=](std::size_t m) { return mg_residual_point(p, m, sy, sz, f[m], c); });
}

// Trilinear prolongation of cell-centred values: a fine cell lies a quarter of a coarse cell from its
// coarse cell's centre, so along each axis it takes 3/4 of its own coarse cell and 1/4 of the coarse
// neighbour on its side (weights 27, 9, 3, 1 / 64 over the 8 nearest coarse cells). The coarse ghosts
// must hold the face rule (neumann: zero slope, dirichlet: zero on the face, periodic: the wrap), so
// fine cells next to a face interpolate towards the boundary condition. Returns the interpolated value.
template <class T>
NSB_HD inline T mg_prolong_point(const T* coarse, const Grid& cg, int i, int j, int k) {
  const int I = (i + 1) / 2, J = (j + 1) / 2, K = (k + 1) / 2;
  const std::ptrdiff_t di = (i & 1) ? -1 : 1;
  const std::ptrdiff_t dj = ((j & 1) ? -1 : 1) * cg.sy();
  const std::ptrdiff_t dk = ((k & 1) ? -1 : 1) * cg.sz();
  const std::size_t n = cg.idx(I, J, K);
  const T near = T(0.75), far = T(0.25);
  auto line = [&](std::size_t m) { return near * coarse[m] + far * coarse[m + di]; };
  auto plane = [&](std::size_t m) { return near * line(m) + far * line(m + dj); };
  return near * plane(n) + far * plane(n + dk);
}

// Ghost rule of one ghost point (i, j, k) (some index 0 or n+1): the face rule of each axis it lies
// outside of, composed; the value read is always an interior one. Equal, bit for bit, to applying the
// faces axis by axis over whole padded faces (apply_faces_host), since each rule is a copy or a sign flip.
NSB_HD inline int mg_ghost_source(int c, int n, PoissonFace lo, PoissonFace hi, bool& negate) {
  if (c == 0) {
    negate ^= lo == PoissonFace::dirichlet;
    return lo == PoissonFace::periodic ? n : 1;
  }
  if (c == n + 1) {
    negate ^= hi == PoissonFace::dirichlet;
    return hi == PoissonFace::periodic ? 1 : n;
  }
  return c;
}
template <class T>
NSB_HD inline T mg_ghost_value(const T* p, const Grid& g, const PoissonFaces& f, int i, int j, int k) {
  bool negate = false;
  const int si = mg_ghost_source(i, g.nx, f.face[0][0], f.face[0][1], negate);
  const int sj = mg_ghost_source(j, g.ny, f.face[1][0], f.face[1][1], negate);
  const int sk = mg_ghost_source(k, g.nz, f.face[2][0], f.face[2][1], negate);
  const T v = p[g.idx(si, sj, sk)];
  return negate ? -v : v;
}

// The ghost shell of a padded grid enumerated as one range: the two z faces whole, the two y faces
// without their z ghost rows, the two x faces without any ghost row.
NSB_HD inline long long mg_shell_points(const Grid& g) {
  const long long X = g.NX(), Y = g.NY(), Z = g.NZ();
  return 2 * X * Y + 2 * X * (Z - 2) + 2 * (Y - 2) * (Z - 2);
}
NSB_HD inline void mg_shell_point(const Grid& g, long long t, int& i, int& j, int& k) {
  const long long X = g.NX(), Y = g.NY(), Z = g.NZ();
  if (t < 2 * X * Y) {
    const long long r = t % (X * Y);
    i = int(r % X), j = int(r / X), k = t < X * Y ? 0 : int(Z - 1);
    return;
  }
  t -= 2 * X * Y;
  if (t < 2 * X * (Z - 2)) {
    const long long r = t % (X * (Z - 2));
    i = int(r % X), k = 1 + int(r / X), j = t < X * (Z - 2) ? 0 : int(Y - 1);
    return;
  }
  t -= 2 * X * (Z - 2);
  const long long r = t % ((Y - 2) * (Z - 2));
  j = 1 + int(r % (Y - 2)), k = 1 + int(r / (Y - 2)), i = t < (Y - 2) * (Z - 2) ? 0 : int(X - 1);
}

// Interior point number t (x fastest) of a grid, as padded indices.
NSB_HD inline void mg_interior_point(const Grid& g, long long t, int& i, int& j, int& k) {
  i = 1 + int(t % g.nx);
  const long long row = t / g.nx;
  j = 1 + int(row % g.ny);
  k = 1 + int(row / g.ny);
}

// Flops as written above, per point updated (counted by hand from the expressions).
inline constexpr double kMgGaussSeidelFlops = 10;  // 5 adds + 3 muls of the neighbours, - f, * inv_diag
inline constexpr double kMgJacobiFlops = 13;       // Gauss-Seidel value, then - centre, * omega, + centre
inline constexpr double kMgSorFlops = 13;          // the same, for an over-relaxed red-black colour
inline constexpr double kMgResidualFlops = 10;     // 5 adds + 3 muls, - diag * p (2), f - (1)
inline constexpr double kMgRestrictFlops = 8;      // 7 adds + 1 mul per coarse point
inline constexpr double kMgProlongFlops = 22;      // 7 lerps of 3 flops, + the add to the fine value
inline constexpr double kMgSumsFlops = 3;          // a sum and a sum of squares
inline constexpr double kMgShiftFlops = 2;         // scale * value - shift

}  // namespace nsb
