// The wave solver's numerics, written once (Thibault 2009, Sec. 2.2.1 and 2.3.1): the per-point update
// that the CPU reference and every GPU variant of wave/step call, the grid it lives on and the exact
// solution its runs are validated against. Variants differ only in where the five values of u come
// from (global memory, a shared-memory tile, registers): an "accessor" u(di, dj, dk) returns u at that
// offset from the point (projection/accessors.hpp; dj is always 0 here).
//
// Equation (2.1): u_tt = c^2 (u_xx + u_yy) on [0, lx] x [0, ly], u = 0 on the boundary (Dirichlet).
//
// Grid. Nodes x_i = i h, y_k = k h (square cells, h = lx / (nx + 1)): i = 1..nx, k = 1..ny are unknowns,
// i = 0, nx+1 and k = 0, ny+1 are the boundary nodes, which hold u = 0 for ever. So lx = pi and
// ly = (ny + 1) h: the thesis's [0, pi]^2 when nx = ny, a rectangle of the same cells otherwise.
// Layout: an nsbench Grid{nx, 1, ny}: x fastest, the wave's y is the grid's z (the slowest axis), so the
// z-slab decomposition and the halo variants cut the domain into stripes of rows (thesis Sec. 3.1.4).
// Node (x_i, y_k) is padded index (i, 1, k) (wave_node): the grid's one interior y row. Its y-ghost rows
// j = 0 and 2 are never read or written; they cost memory (three rows a z plane), not traffic, and the
// halo exchange copies whole z planes, so three rows where one would do (the Grid has no ghost-width
// field: one cost every kernel of the projection solver 3-7%, ARCHITECTURE.md).
#pragma once

#include <cmath>
#include <cstddef>
#include <numbers>

#include "grid.hpp"

namespace nsb {

// The grid of a wave of nx x ny unknowns on [0, pi] x [0, (ny + 1) h].
inline Grid wave_grid(int nx, int ny) {
  const double h = std::numbers::pi / (nx + 1);
  return Grid{nx, 1, ny, std::numbers::pi, 1.0, h * (ny + 1)};
}
// Padded index of node (x_i, y_k); the wave's next row up is g.sz() further.
NSB_HD inline std::size_t wave_node(const Grid& g, int i, int k) { return g.idx(i, 1, k); }
// The node spacing h (of x and y alike) of a wave grid. Taken from x, which decompositions leave whole
// (a slab's lz is not (nz + 1) h).
inline double wave_spacing(const Grid& g) { return g.lx / (g.nx + 1); }

// Largest stable rho = c dt / h of the scheme below (von Neumann: rho^2 (sin^2 a + sin^2 b) <= 1 for
// every mode a, b needs rho^2 <= 1/2).
inline double wave_rho_limit() { return 1 / std::sqrt(2.0); }

// Flops a point of wave_point does, counted in its formula below (the thesis counts 9 too, Sec. 4.2.3).
inline constexpr double kWaveFlopsPerPoint = 9;

// Eq. (2.8), second order in time and space, one point:
//   u^{t+1}_ij = 2 u^t_ij - u^{t-1}_ij + rho^2 (u^t_{i+1,j} + u^t_{i-1,j} + u^t_{i,j+1} + u^t_{i,j-1} - 4 u^t_ij)
// with rho2 = (c dt / h)^2. The thesis prints the coefficient of u^t_ij as c (1 - 2 rho^2); consistency
// with u_tt = c^2 lap u needs 2 (1 - 2 rho^2), which is what this form expands to.
// Flops: 3 adds of the neighbours, 4 u (1), their difference (1), times rho2 (1), 2 u (1), - u^{t-1}
// (1), the final add (1): 9.
template <class T, class U>
NSB_HD inline T wave_point(const U& u, T u_prev, T rho2) {
  const T centre = u(0, 0, 0);
  const T neighbours = u(1, 0, 0) + u(-1, 0, 0) + u(0, 0, 1) + u(0, 0, -1);
  return T(2) * centre - u_prev + rho2 * (neighbours - T(4) * centre);
}

// The standing wave u = sin(kx x) sin(ky y) cos(omega t), kx = m pi / lx, ky = n pi / ly,
// omega = c sqrt(kx^2 + ky^2): an exact solution of (2.1) that vanishes on the boundary and starts at
// rest (u_t = 0 at t = 0). On [0, pi]^2 it is sin(m x) sin(n y) cos(c sqrt(m^2 + n^2) t).
struct StandingWave {
  int m = 1, n = 1;  // half-wavelengths across x and across y
  double c = 1;      // wave speed (thesis: 1)
  double lx = std::numbers::pi, ly = std::numbers::pi;

  double kx() const { return m * std::numbers::pi / lx; }
  double ky() const { return n * std::numbers::pi / ly; }
  double omega() const { return c * std::sqrt(kx() * kx() + ky() * ky()); }
  double operator()(double x, double y, double t) const {
    return std::sin(kx() * x) * std::sin(ky() * y) * std::cos(omega() * t);
  }
};

}  // namespace nsb
