// The Poisson family's numerics, written once for the CPU reference and every GPU variant:
// the 7-point operator on cell-centred unknowns and the ghost rule of each face (poisson.hpp).
//
//   (L p)_i = (p[i-1] - 2 p[i] + p[i+1]) / dx^2 + (y) / dy^2 + (z) / dz^2
//   residual r = rhs_scale * rhs - L p
#pragma once

#include "grid.hpp"
#include "poisson/poisson.hpp"

namespace nsb {

template <class T>
struct PoissonCoef {
  T cx, cy, cz;  // 1/dx^2, 1/dy^2, 1/dz^2
  T diag;        // 2 (cx + cy + cz): minus the operator's centre weight
};

template <class T>
inline PoissonCoef<T> make_poisson_coef(const Grid& g) {
  const double cx = 1 / (g.dx() * g.dx()), cy = 1 / (g.dy() * g.dy()), cz = 1 / (g.dz() * g.dz());
  return {T(cx), T(cy), T(cz), T(2 * (cx + cy + cz))};
}

// Sum of the six neighbours weighted by their axis coefficient: L p = neighbours - diag * p[i].
template <class T>
NSB_HD inline T poisson_neighbours(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz,
                                   const PoissonCoef<T>& c) {
  return (p[n - 1] + p[n + 1]) * c.cx + (p[n - sy] + p[n + sy]) * c.cy + (p[n - sz] + p[n + sz]) * c.cz;
}

template <class T>
NSB_HD inline T poisson_apply(const T* p, std::size_t n, std::ptrdiff_t sy, std::ptrdiff_t sz,
                              const PoissonCoef<T>& c) {
  return poisson_neighbours(p, n, sy, sz, c) - c.diag * p[n];
}

// The value a ghost takes from its interior neighbour `inner` (and, on a periodic face, from the
// interior value on the opposite side, `wrapped`).
template <class T>
NSB_HD inline T poisson_ghost(PoissonFace f, T inner, T wrapped) {
  switch (f) {
    case PoissonFace::neumann: return inner;
    case PoissonFace::dirichlet: return -inner;
    case PoissonFace::periodic: return wrapped;
  }
  return inner;
}

// The six faces' ghost rule for one ghost line, applied axis by axis (x, then y, then z), each over
// the whole padded face, like the projection's ghost rules: edges and corners take the last axis's rule.
// Index helper: for axis a, the ghost at 0 reads interior 1 (wrapped: n), the ghost at n+1 reads n
// (wrapped: 1).
template <class T>
NSB_HD inline void poisson_ghost_pair(T* p, std::size_t lo_ghost, std::ptrdiff_t stride, int n,
                                      const PoissonFace lo, const PoissonFace hi) {
  const std::size_t first = lo_ghost + std::size_t(stride), last = lo_ghost + std::size_t(stride) * n;
  p[lo_ghost] = poisson_ghost(lo, p[first], p[last]);
  p[last + stride] = poisson_ghost(hi, p[last], p[first]);
}

}  // namespace nsb
