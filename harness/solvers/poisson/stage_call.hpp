// The stage kinds of the Poisson family's iterative methods (solver "poisson", stages.cpp) and the one
// call structure their variants receive. Every kind reads and writes only what its line below says;
// reductions sum in double into `out` (device memory for GPU variants, host memory for the CPU ones),
// over interior points only.
//
//   poisson/faces         x -= shift at interior points (when shift != 0), then x's ghost layer from the
//                         faces (x, then y, then z; poisson_ghost_pair)
//   poisson/residual      r = rhs_scale (rhs - rhs_shift) - L x at interior points; out[0] = sum r^2
//   poisson/jacobi_sweep  p = (neighbours of x - rhs_scale (rhs - rhs_shift)) / diag at interior points
//   poisson/rbsor         one red-black SOR iteration on x: the red points (i+j+k even), x's ghosts, the
//                         black points, x's ghosts; x = (1 - omega) x + omega * (Gauss-Seidel value)
//   poisson/dot           out[0] = sum a b (b null: sum a)
//   poisson/apply_dot     q = L p at interior points; out[0] = sum p q            (CG's operator)
//   poisson/cg_update     alpha = rz / pq; x += alpha p; r -= alpha q; z = m r;
//                         out[0] = sum r z, out[1] = sum r^2                          (CG's updates)
//   poisson/cg_direction  beta = rz / rz_prev (0 when rz_prev is null); p = m r + beta p at interior
//                         points, then p's ghost layer from the faces                (CG's direction)
//   poisson/cg_check      unless out[0] (stopped): out[1] += 1 (iterations), out[0] = 1 when the relative
//                         residual from rz[1] (a sum r^2) is at most tolerance: the convergence check on the
//                         device; cg_update then takes alpha = 0 (stop), so x and r stay where it stopped
//
// CG here runs on L itself, which is symmetric negative (semi)definite: with the preconditioner
// M = -D (D the magnitude of L's diagonal, ghost rule folded in; cg: M = -I) every iterate equals that
// of textbook PCG on -L (r and z both change sign, so r.z, p.Lp, alpha and beta do not): so
// m = -1 (cg) or -1 / D(i,j,k) (pcg, poisson_jacobi_diagonal), and z is never stored.
#pragma once

#include <cmath>

#include "grid.hpp"
#include "poisson/formulas.hpp"
#include "poisson/poisson.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

// The numbers and pointers of a call (trivially copyable: what a kernel's point operation holds).
template <class T>
struct PoissonArgs {
  Grid grid;
  PoissonFaces faces;
  PoissonCoef<T> coef;
  T* x = nullptr;        // the iterate (faces, residual, jacobi_sweep, rbsor, cg_update)
  T* p = nullptr;        // jacobi_sweep's output; CG's search direction (ghosts set by cg_direction)
  T* q = nullptr;        // L p
  T* r = nullptr;        // the residual
  const T* rhs = nullptr;
  T rhs_scale = 1;
  T rhs_shift = 0;       // the right-hand side's interior mean on singular problems (compatibility)
  T shift = 0;           // faces: subtracted from x's interior first
  T omega = 1;           // rbsor's relaxation factor, from its tuning (w190 = 1.90)
  bool precondition = false;  // CG: Jacobi preconditioner (m = -1/D) or none (m = -1)
  const T* a = nullptr;  // dot's operands
  const T* b = nullptr;
  const double* rz = nullptr;       // cg_update / cg_direction: sum r z of the current residual
  const double* rz_prev = nullptr;  // cg_direction: of the previous one (null on the first iteration)
  const double* pq = nullptr;       // cg_update: sum p L p
  const double* stop = nullptr;     // cg_update: alpha = 0 once *stop != 0 (cg_check's out[0]); null: never
  double tolerance = 0;             // cg_check: the relative residual to reach
  double rhs_rms = 1;               // cg_check: RMS of the compatible right-hand side (the residual's scale)
  double* out = nullptr;            // the kind's sums (see above)
};

template <class T>
struct PoissonCall : PoissonArgs<T> {
  using value_type = T;
  Tuning tuning;
  Exec exec;
};

// D(i,j,k): the magnitude of L's diagonal entry with the ghost rule folded in (a neumann ghost mirrors
// the cell itself, +c; a dirichlet one its negative, -c; a periodic one is the cell itself only when
// the axis is one cell long).
template <class T>
NSB_HD inline T poisson_jacobi_diagonal(const Grid& g, const PoissonFaces& f, const PoissonCoef<T>& c, int i, int j,
                                        int k) {
  T d = c.diag;
  const int at[3] = {i, j, k}, n[3] = {g.nx, g.ny, g.nz};
  const T cf[3] = {c.cx, c.cy, c.cz};
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      if (at[a] == (side == 0 ? 1 : n[a])) {
        const PoissonFace face = f.face[a][side];
        if (face == PoissonFace::neumann || (face == PoissonFace::periodic && n[a] == 1)) d -= cf[a];
        if (face == PoissonFace::dirichlet) d += cf[a];
      }
  return d;
}

// CG's preconditioner multiplier m at one point (see the header comment).
template <class T>
NSB_HD inline T cg_multiplier(const PoissonArgs<T>& c, int i, int j, int k) {
  return c.precondition ? T(-1) / poisson_jacobi_diagonal(c.grid, c.faces, c.coef, i, j, k) : T(-1);
}

// CG's step length alpha = rz / pq, or 0 once a device-side check has stopped the iteration (the
// iterations the host has not yet looked at then leave x and r as they are).
NSB_HD inline double cg_alpha_of(const double* rz, const double* pq, const double* stop) {
  return stop && *stop != 0 ? 0.0 : *rz / *pq;
}

// The family's relative residual from a sum of squares over the interior: sqrt(rr / points) / rhs_rms.
// The host check and cg_check both use it, so both stop at the same iteration.
NSB_HD inline double cg_relative_residual(double rr, double points, double rhs_rms) {
  return sqrt(rr / points) / rhs_rms;
}

// cg_check's one operation (one thread, or the host).
template <class T>
NSB_HD inline void cg_check_step(const PoissonArgs<T>& c) {
  if (c.out[0] != 0) return;
  c.out[1] += 1;
  if (cg_relative_residual(c.rz[1], double(c.grid.interior_points()), c.rhs_rms) <= c.tolerance) c.out[0] = 1;
}

// Red-black colour of a point: 0 red, 1 black.
NSB_HD inline int rb_colour(int i, int j, int k) { return (i + j + k) & 1; }

// SOR's relaxed Gauss-Seidel value of a point from its value, its weighted neighbours
// (poisson_neighbours, ghosts as they stand), its right-hand side and D, L's diagonal there with the ghost
// rule folded in (poisson_jacobi_diagonal): Gauss-Seidel solves the point's row of the matrix whose ghosts
// are rules, x_gs = x + (L x - b) / D, and SOR moves omega of the way: x + omega (L x - b) / D. (With the
// interior diagonal instead of D at a dirichlet face, the ghost's -x lagged behind would make SOR with
// omega near 2 diverge there.) b = rhs_scale (rhs - rhs_shift).
template <class T>
NSB_HD inline T rbsor_relax(const PoissonArgs<T>& c, T centre, T neighbours, T rhs, T diagonal) {
  const T defect = neighbours - c.coef.diag * centre - c.rhs_scale * (rhs - c.rhs_shift);
  return centre + c.omega * defect / diagonal;
}
// The same at point (i, j, k), n of x.
template <class T>
NSB_HD inline T rbsor_point(const PoissonArgs<T>& c, int i, int j, int k, std::size_t n) {
  return rbsor_relax(c, c.x[n], poisson_neighbours(c.x, n, c.grid.sy(), c.grid.sz(), c.coef), c.rhs[n],
                     poisson_jacobi_diagonal(c.grid, c.faces, c.coef, i, j, k));
}

// The work model of one call of each kind (bytes: each array read once and written once, the sums'
// doubles ignored; flops: as written in the formulas above, per interior point). The faces stage moves
// the ghost layer: 2 words per ghost (one read, one write) plus the shift's read and write.
struct PoissonKindModel {
  double words_per_point;  // arrays read + arrays written per interior point
  double flops_per_point;
};
PoissonKindModel poisson_kind_model(const std::string& stage_name, bool shift);
double poisson_ghost_points(const Grid& g);
template <class T>
WorkModel poisson_work_model(const std::string& stage_name, const Grid& g, bool shift = false) {
  const PoissonKindModel m = poisson_kind_model(stage_name, shift);
  const double points = double(g.interior_points());
  double words = m.words_per_point * points;
  if (stage_name == "faces" || stage_name == "rbsor" || stage_name == "cg_direction")
    words += 2.0 * poisson_ghost_points(g) * (stage_name == "rbsor" ? 2 : 1);
  return {points, words * double(sizeof(T)), m.flops_per_point * points};
}

// The family's rule for the lowest relative residual a precision can be asked for: the residual of the
// rounded exact solution is about eps * 2 n^2 / pi^2 relative to the right-hand side (the rounding
// error of each value, of order eps |p|, amplified by the operator's diagonal 6 n^2 / L^2, with
// |p| ~ |rhs| L^2 / (3 pi^2)); a tolerance ten times below that (eps n^2 / 50, n the longest axis)
// cannot be reached. Throws std::invalid_argument naming the tolerance, precision and floor.
template <class T>
void check_reachable_tolerance(const Grid& g, double tolerance, const char* method);

// Omega of a tuning name's "w" part (w190 -> 1.90); throws std::invalid_argument naming an omega
// outside (0, 2).
double omega_of_tuning(const Tuning& t);

}  // namespace nsb
