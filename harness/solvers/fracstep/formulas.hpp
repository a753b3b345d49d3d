// The fractional-step solver of Ha, Park & You (notes seed_002 Sec. 1): the per-point and per-line
// arithmetic every backend shares (the CPU reference and every GPU variant), written once beside its
// equations.
//
// Grid (harness/grid.hpp): nx x ny x nz cells, one ghost layer, x fastest; staggered (MAC): p, phi and
// the divergence at cell centres, u at the +x face of its cell (x = i dx), v at the +y face (y = j dy),
// w at the +z face (z = k dz). Uniform spacing in x and z; y stretched (the paper clusters the cells at
// the wall, notes Sec. 1.2): the ny + 1 face positions y_0 = 0 .. y_ny = ly give every y derivative its
// own step (Spacing's y metric below); cell j spans faces j-1..j, v's face j lies between the centres of
// cells j and j+1.
// Boundaries: x and z periodic (u(0) = u(nx), ...); y = 0 and y = ly no-slip walls: v = 0 on the wall
// faces j = 0 and j = ny, and u, w mirrored with a sign change across the wall (ghost = - inner value),
// which puts u = w = 0 on the wall. The unknowns of u and w are j = 1..ny, of v j = 1..ny-1.
// The formulas read neighbours through these rules (velocity_at, pressure_at), so no stage writes a
// ghost layer: every stage reads only interior storage (phi's ghosts, which the Poisson method sets, are
// never read either), except on a y-slab rank of a real V2 run, whose formulas read the ghost row of a
// cut face (YWalls), and on a z-slab rank of a real V1 run, whose formulas read its ghost planes 0 and
// nz + 1 instead of wrapping z (YWalls::z_wrap); the solver fills both from the neighbours before the stage.
#pragma once

#include <cstddef>
#include <vector>

#include "grid.hpp"
#include "tridiag/formulas.hpp"
#include "tridiag/split_phases.hpp"

#ifdef __CUDACC__
#define NSB_FS_HD __host__ __device__ __forceinline__
#else
#define NSB_FS_HD inline
#endif

namespace nsb {

// The low-storage RK3 of Spalart, Moser & Rogers (1991), as Le & Moin use it with CN (notes Sec. 1.4,
// an [A] choice: the paper gives none): sub-step k = 0, 1, 2,
//   gamma_k = 8/15, 5/12, 3/4;  zeta_k = 0, -17/60, -5/12;  alpha_k = (gamma_k + zeta_k) / 2.
struct Rk3 {
  static constexpr double gamma[3] = {8.0 / 15.0, 5.0 / 12.0, 3.0 / 4.0};
  static constexpr double zeta[3] = {0.0, -17.0 / 60.0, -5.0 / 12.0};
  static constexpr double alpha(int k) { return 0.5 * (gamma[k] + zeta[k]); }
};

// Sub-step k (delta form, notes Sec. 1.4; nu = 1/Re, f a constant body force, e.g. the mean pressure
// gradient that drives a channel):
//   rhs      du = dt [ -gamma_k N(u^{k-1}) - zeta_k N(u^{k-2}) - 2 alpha_k G p^{k-1}
//                      + 2 alpha_k nu L u^{k-1} + 2 alpha_k f ]
//   ADI      (1 - beta Lz) then (1 - beta Ly) then (1 - beta Lx) applied inversely to du, beta = alpha_k dt nu
//   div      div (u + du)                                (u^ = u^{k-1} + du is never stored)
//   Poisson  L phi = div(u^) / (2 alpha_k dt)            (the Poisson family's fft2_tridiag)
//   correct  u^k = u + du - 2 alpha_k dt G phi,  p^k = p^{k-1} + phi
// The term - alpha_k dt nu L phi of p^k is dropped (as the notes say is usual; p only enters as its
// gradient and the velocity is unaffected to second order in dt).

NSB_FS_HD int wrap_periodic(int i, int n) { return i < 1 ? i + n : i > n ? i - n : i; }

// Component `comp` (0 u, 1 v, 2 w) of a velocity-like field at any (i, j, k) a stencil reaches: x and z
// wrapped, y by the wall rules above. Also right for a velocity increment du (walls homogeneous too).
// Which of a grid's y faces are walls: both on one rank; a y-slab rank of a real V2 run (fracstep.md,
// "V2 on real ranks") has a wall only where its slab meets the channel's, and reads its ghost row (the
// neighbour's edge row, exchanged before the stage) across a cut face. z_wrap: z wraps within the grid
// (one rank, or a y-slab rank: every plane is there); false on a z-slab rank of a real V1 run ("V1 on
// real ranks (host)"), whose z neighbours past its planes are its ghost planes 0 and nz + 1 (the ring
// neighbours' edge planes, exchanged before the stage).
struct YWalls {
  bool lo = true, hi = true;
  bool z_wrap = true;
};
// The period z wraps by: nz, or 0 on a z-slab rank (wrap_periodic by 0 leaves every k as it is). One index
// path for both: a select between wrapped and unwrapped indices at each read took the GPU rhs kernel from 140
// to 174 registers and 93.8 to 138.1 ms a step (V0, tiled, 4096x256x128, 2 x H100,
// results/e2_two_gpus/nvidia-h100-80gb-hbm3-x2/ before and after 4a8ae3c).
NSB_FS_HD int z_period(const Grid& g, YWalls w) { return w.z_wrap ? g.nz : 0; }

template <class T>
NSB_FS_HD T velocity_at(const T* q, const Grid& g, int comp, int i, int j, int k, YWalls w = {}) {
  i = wrap_periodic(i, g.nx), k = wrap_periodic(k, z_period(g, w));
  if (comp == 1) return ((w.lo && j <= 0) || (w.hi && j >= g.ny)) ? T(0) : q[g.idx(i, j, k)];
  if (w.lo && j < 1) return -q[g.idx(i, 1, k)];
  if (w.hi && j > g.ny) return -q[g.idx(i, g.ny, k)];
  return q[g.idx(i, j, k)];
}

// A cell-centred scalar (p, phi): x and z wrapped, y mirrored (d/dy = 0 at the walls: the Poisson
// family's neumann faces).
template <class T>
NSB_FS_HD T pressure_at(const T* p, const Grid& g, int i, int j, int k, YWalls w = {}) {
  i = wrap_periodic(i, g.nx), k = wrap_periodic(k, z_period(g, w));
  j = w.lo && j < 1 ? 1 : w.hi && j > g.ny ? g.ny : j;
  return p[g.idx(i, j, k)];
}

// Whether (j) is an unknown of component comp (v: the walls' faces are not; a y-slab rank's top face
// under a cut is its own unknown, its bottom face the rank below's).
NSB_FS_HD bool is_unknown_row(const Grid& g, int comp, int j, YWalls w = {}) {
  return comp == 1 ? j >= 1 && (w.hi ? j < g.ny : j <= g.ny) : j >= 1 && j <= g.ny;
}

struct Offset {
  int i, j, k;
};
NSB_FS_HD Offset unit(int axis) { return {axis == 0 ? 1 : 0, axis == 1 ? 1 : 0, axis == 2 ? 1 : 0}; }

// The spacings and their inverses, formed once per call. y: the metric of the stretched axis, in the
// backend's memory (y_metric_values packs it: inv_cell then inv_gap):
//   inv_cell[j] = 1 / (y_j - y_{j-1}), the height of cell j = 1..ny (0, ny + 1: the mirrored ghost cells)
//   inv_gap[j]  = 1 / (yc_{j+1} - yc_j), the gap of the centres around face j = 0..ny (at a wall the
//                 ghost centre is the mirror of the inner one: the gap is the wall cell's height)
// so the y step of a derivative is the cell's height at a centred point (u, w, p, div) and the gap at v's
// face (inv_step). Uniform y: every entry 1 / dy.
template <class T>
struct Spacing {
  T inv_h[3];   // 1 / dx, -, 1 / dz (y: inv_cell, inv_gap)
  T inv_h2[3];  // 1 / dx^2, -, 1 / dz^2
  const T* inv_cell = nullptr;
  const T* inv_gap = nullptr;
  YWalls walls;  // the grid's y faces that are walls (a y-slab rank: see YWalls)
};
template <class T>
Spacing<T> spacing_of(const Grid& g, const T* y_metric) {
  const double h[3] = {g.dx(), g.dy(), g.dz()};
  Spacing<T> s;
  for (int a = 0; a < 3; ++a) s.inv_h[a] = T(1.0 / h[a]), s.inv_h2[a] = T(1.0 / (h[a] * h[a]));
  s.inv_cell = y_metric, s.inv_gap = y_metric + g.ny + 2;
  return s;
}
// The packed y metric (host, double) of the ny + 1 face positions: inv_cell (ny + 2) | inv_gap (ny + 1).
std::vector<double> y_metric_values(const std::vector<double>& faces);

// 1 / the step of a derivative along axis d at a point of component comp (comp 0 or 2 for a cell-centred
// scalar) in row j.
template <class T>
NSB_FS_HD T inv_step(const Spacing<T>& s, int d, int comp, int j) {
  if (d != 1) return s.inv_h[d];
  return comp == 1 ? s.inv_gap[j] : s.inv_cell[j];
}

// The convection term N_c = d(u_c u_d)/dx_d (summed over d) of component comp at its point (i, j, k), in
// the conservative second-order form of the staggered grid: along d = comp the product of the
// component's averages at the two cell centres it lies between; along d != comp the product of the
// averages of u_c and u_d at the two cell edges of that direction.
template <class T>
NSB_FS_HD T convection(const T* const* vel, const Grid& g, const Spacing<T>& s, int comp, int i, int j, int k) {
  const T* qc = vel[comp];
  const T half = T(0.5);
  T sum = T(0);
  for (int d = 0; d < 3; ++d) {
    const Offset e = unit(d), ec = unit(comp);
    const T here = velocity_at(qc, g, comp, i, j, k, s.walls);
    if (d == comp) {
      const T hi = half * (here + velocity_at(qc, g, comp, i + e.i, j + e.j, k + e.k, s.walls));
      const T lo = half * (velocity_at(qc, g, comp, i - e.i, j - e.j, k - e.k, s.walls) + here);
      sum += (hi * hi - lo * lo) * inv_step(s, d, comp, j);
    } else {
      const T* qd = vel[d];
      const T c_hi = half * (here + velocity_at(qc, g, comp, i + e.i, j + e.j, k + e.k, s.walls));
      const T d_hi = half * (velocity_at(qd, g, d, i, j, k, s.walls) + velocity_at(qd, g, d, i + ec.i, j + ec.j, k + ec.k, s.walls));
      const T c_lo = half * (velocity_at(qc, g, comp, i - e.i, j - e.j, k - e.k, s.walls) + here);
      const T d_lo = half * (velocity_at(qd, g, d, i - e.i, j - e.j, k - e.k, s.walls) +
                             velocity_at(qd, g, d, i - e.i + ec.i, j - e.j + ec.j, k - e.k + ec.k, s.walls));
      sum += (c_hi * d_hi - c_lo * d_lo) * inv_step(s, d, comp, j);
    }
  }
  return sum;
}

// The three-point Laplacian of component comp at its point, with the wall rules; along the stretched y
// in flux form: the differences over the steps of the neighbouring points (gaps around a centre, cells
// around v's face) over this point's own step.
template <class T>
NSB_FS_HD T laplacian(const T* q, const Grid& g, const Spacing<T>& s, int comp, int i, int j, int k) {
  const T here = velocity_at(q, g, comp, i, j, k, s.walls);
  T sum = T(0);
  for (int d = 0; d < 3; d += 2) {
    const Offset e = unit(d);
    sum += (velocity_at(q, g, comp, i + e.i, j + e.j, k + e.k, s.walls) - T(2) * here +
            velocity_at(q, g, comp, i - e.i, j - e.j, k - e.k, s.walls)) * s.inv_h2[d];
  }
  const T up = comp == 1 ? s.inv_cell[j + 1] : s.inv_gap[j], down = comp == 1 ? s.inv_cell[j] : s.inv_gap[j - 1];
  return sum + ((velocity_at(q, g, comp, i, j + 1, k, s.walls) - here) * up - (here - velocity_at(q, g, comp, i, j - 1, k, s.walls)) * down) *
                   inv_step(s, 1, comp, j);
}

// The sub-step's constants, formed once per call.
template <class T>
struct SubstepCoef {
  T dt = 0, nu = 0;
  T gamma = 0, zeta = 0, alpha = 0;
  T force[3] = {0, 0, 0};
};
template <class T>
SubstepCoef<T> substep_coef(int k, double dt, double nu, const double force[3]) {
  SubstepCoef<T> c;
  c.dt = T(dt), c.nu = T(nu);
  c.gamma = T(Rk3::gamma[k]), c.zeta = T(Rk3::zeta[k]), c.alpha = T(Rk3::alpha(k));
  for (int a = 0; a < 3; ++a) c.force[a] = T(force[a]);
  return c;
}

// The right-hand side of sub-step k at one unknown of component comp (the equation above): returns du,
// with n = N_c(u^{k-1}) here (the caller stores it for the next sub-step) and n_old = N_c(u^{k-2}).
template <class T>
NSB_FS_HD T rhs_point(T n, T n_old, T grad_p, T lap_u, T force, const SubstepCoef<T>& c) {
  const T two_alpha = T(2) * c.alpha;
  return c.dt * (-c.gamma * n - c.zeta * n_old + two_alpha * (c.nu * lap_u + force - grad_p));
}

// d p / d x_comp at the point of component comp (between cells (i,j,k) and (i,j,k) + e_comp).
template <class T>
NSB_FS_HD T pressure_gradient(const T* p, const Grid& g, const Spacing<T>& s, int comp, int i, int j, int k) {
  const Offset e = unit(comp);
  return (pressure_at(p, g, i + e.i, j + e.j, k + e.k, s.walls) - pressure_at(p, g, i, j, k, s.walls)) * inv_step(s, comp, comp, j);
}

// div(u + du) at cell (i, j, k).
template <class T>
NSB_FS_HD T divergence_point(const T* const* vel, const T* const* dvel, const Grid& g, const Spacing<T>& s, int i, int j,
                             int k) {
  T sum = T(0);
  for (int c = 0; c < 3; ++c) {
    const Offset e = unit(c);
    const T hi = velocity_at(vel[c], g, c, i, j, k, s.walls) + velocity_at(dvel[c], g, c, i, j, k, s.walls);
    const T lo = velocity_at(vel[c], g, c, i - e.i, j - e.j, k - e.k, s.walls) +
                 velocity_at(dvel[c], g, c, i - e.i, j - e.j, k - e.k, s.walls);
    sum += (hi - lo) * inv_step(s, c, 0, j);
  }
  return sum;
}

// u^k = u + du - 2 alpha_k dt G phi at one unknown of component comp.
template <class T>
NSB_FS_HD T corrected_velocity(T u, T du, T grad_phi, const SubstepCoef<T>& c) {
  return u + du - T(2) * c.alpha * c.dt * grad_phi;
}

// ------------------------------------------------------------------------------------------------- ADI
//
// One implicit sweep along an axis solves (1 - beta L_axis) x = d on every line of that axis, in place.
// The matrix is the same for every line of a (component, axis): L_axis is the three-point operator with
// r = beta / h^2 (x, z):  a_j = c_j = -r, b_j = 1 + 2 r  (|b| = |a| + |c| + 1, the paper's Sec. 3.2);
// along the stretched y the Laplacian's own rows: a_j = -beta down_j step_j, c_j = -beta up_j step_j
// (laplacian() above), b_j = 1 + |a_j| + |c_j|; and
//   periodic (x, z)         cyclic: the corners a_0, c_{n-1} = -r, by Sherman-Morrison (tridiag family)
//   wall, cell-centred (y)  u, w: ghost = - inner, so b_0 += |a_0|, b_{n-1} += |c_{n-1}| and a_0 = c_{n-1} = 0
//   wall, faces (y)         v: the wall values are 0 (n = ny - 1), a_0 = c_{n-1} = 0
// So the line-independent parts are tabulated once (host, double, then cast): the rows (for a cyclic
// line, the tridiagonal part A' of tridiag/formulas.hpp's Sherman-Morrison split), the c' of Thomas and
// the Sherman-Morrison column z (A' z = u). A line then needs only its right-hand side: one Thomas
// forward and back pass in place, plus the rank-one correction x -= f z when cyclic.
enum class AdiEnds : int { periodic = 0, wall_centred = 1, wall_faces = 2 };

template <class T>
struct AdiTable {
  int n = 0;             // unknowns a line
  bool cyclic = false;
  T a0 = 0, gamma = 0;   // cyclic: the corner a_0 and Sherman-Morrison's gamma
  const T* a = nullptr;  // n rows each (a_0 = c_{n-1} = 0: A' when cyclic)
  const T* b = nullptr;
  const T* c = nullptr;
  const T* cp = nullptr;  // c' of Thomas on these rows
  const T* z = nullptr;   // cyclic: A' z = (gamma, 0, ..., 0, c_{n-1})
};

// The table's values, in double, packed as a | b | c | cp | z (n each) for one upload.
struct AdiTableValues {
  int n = 0;
  bool cyclic = false;
  double a0 = 0, gamma = 0;
  std::vector<double> packed;
};
// lower[j], upper[j] >= 0: the couplings beta L puts on x_{j-1} and x_{j+1} (r, r: a uniform axis).
AdiTableValues adi_table_values(const std::vector<double>& lower, const std::vector<double>& upper, AdiEnds ends);
inline AdiTableValues adi_table_values(int n, double r, AdiEnds ends) {
  return adi_table_values(std::vector<double>(std::size_t(n), r), std::vector<double>(std::size_t(n), r), ends);
}

// A line's solve in three passes over row ranges [j0, j1), so that a kernel can run them chunk by chunk
// (x points at row j0; rows of the table are global): Thomas forward (d -> d', the last row carried), back
// substitution from row j1 - 1 down (x_{j1} carried in `next`), and the cyclic rank-one correction.
template <class T>
NSB_FS_HD ThomasRow<T> adi_forward(const AdiTable<T>& t, T* x, std::ptrdiff_t stride, int j0, int j1, ThomasRow<T> row) {
  for (int j = j0; j < j1; ++j) {
    row = thomas_forward(t.a[j], t.b[j], t.c[j], x[(j - j0) * stride], row);
    x[(j - j0) * stride] = row.dp;
  }
  return row;
}
template <class T>
NSB_FS_HD T adi_back(const AdiTable<T>& t, T* x, std::ptrdiff_t stride, int j0, int j1, T next) {
  for (int j = j1 - 1; j >= j0; --j)
    next = x[(j - j0) * stride] = thomas_back(ThomasRow<T>{t.cp[j], x[(j - j0) * stride]}, next);
  return next;
}
// The factor f of x -= f z, from the solved x_0 and x_{n-1} of the tridiagonal part (cyclic tables only).
template <class T>
NSB_FS_HD T adi_cyclic_factor(const AdiTable<T>& t, T x_first, T x_last) {
  return cyclic_factor(x_first, x_last, t.z[0], t.z[t.n - 1], t.a0, t.gamma);
}
template <class T>
NSB_FS_HD void adi_cyclic_correct(const AdiTable<T>& t, T* x, std::ptrdiff_t stride, int j0, int j1, T f) {
  for (int j = j0; j < j1; ++j) x[(j - j0) * stride] -= f * t.z[j];
}

// Solves line x[0], x[stride], ..., x[(n-1) stride] in place (x holds d on entry).
template <class T>
NSB_FS_HD void adi_line(const AdiTable<T>& t, T* x, std::ptrdiff_t stride) {
  adi_forward(t, x, stride, 0, t.n, ThomasRow<T>{T(0), T(0)});
  const T last = x[(t.n - 1) * stride];
  const T first = adi_back(t, x, stride, 0, t.n - 1, last);
  if (t.cyclic) adi_cyclic_correct(t, x, stride, 0, t.n, adi_cyclic_factor(t, first, last));
}

// The y sweep of V2 (y-slabs over `ranks` virtual ranks, notes Sec. 6.1): the same rows, each line cut
// into the ranks' blocks and solved by PDD (exact = false, the paper's ADI-Y) or PPT (exact = true,
// V2-ppt) as tridiag/pdd_formulas.hpp split_line_solve does; v, w, cp: scratch at the line's stride.
// ranks = 1 is adi_line.
template <class T>
struct AdiRow {
  T lower, diag, upper;
};
template <class T>
struct AdiRows {
  const T *a, *b, *c;
  NSB_FS_HD AdiRow<T> operator()(int j) const { return {a[j], b[j], c[j]}; }
};
template <class T>
NSB_FS_HD void adi_line_split(const AdiTable<T>& t, T* x, std::ptrdiff_t stride, int ranks, bool exact, T* v, T* w, T* cp,
                              int cells) {
  if (ranks <= 1 || t.cyclic) return adi_line(t, x, stride);
  split_line_solve(AdiRows<T>{t.a, t.b, t.c}, t.n, ranks, exact, x, stride, v, w, cp, stride, cells);
}

// The lines of an axis: how many, where line `line` of component comp starts, and its stride. x lines
// are indexed (j, k), y lines (i, k), z lines (i, j), the first index fastest; v's y lines start at its
// first unknown row j = 1 (as do u's and w's).
struct AdiLines {
  int count = 0;
  std::ptrdiff_t stride = 0;
};
NSB_FS_HD AdiLines adi_lines(const Grid& g, int axis) {
  if (axis == 0) return {g.ny * g.nz, 1};
  if (axis == 1) return {g.nx * g.nz, g.sy()};
  return {g.nx * g.ny, g.sz()};
}
NSB_FS_HD std::size_t adi_line_start(const Grid& g, int axis, int line) {
  if (axis == 0) return g.idx(1, 1 + line % g.ny, 1 + line / g.ny);
  if (axis == 1) return g.idx(1 + line % g.nx, 1, 1 + line / g.nx);
  return g.idx(1 + line % g.nx, 1 + line / g.nx, 1);
}

// The y lines of du, dv, dw as the phased split solve sees them (tridiag/split_phases.hpp: V2's ADI-Y
// rank by rank): line l is component l / (nx nz), line l % (nx nz) of adi_line_start, scratch v, w, c'
// of its component (the y_scratch fields). On a real y-slab rank (split_solve_rank) g is the rank's
// grid: its lines hold rows first .. of the whole lines (first: the rank's first row of the channel,
// 0-based), whose rows (the tables t) stay the whole channel's, cut at the blocks of `cells` rows.
// Shared factors (factor[0][0] set: split_factors=shared): every line of a component has the same
// matrix (its table), so its v, w, c' are one line of the channel's rows a component (AdiYSplitFactors,
// indexed by the channel's row, stride 1), set up once; the local phase then sweeps x alone
// (split_local_factored) and pack, reduced and correct read the factors in place of the scratch.
template <class T>
struct AdiYLines {
  Grid g;
  int p;
  AdiTable<T> t[3];
  T* x[3];
  T* scratch[3][3];
  int first = 0;  // a real rank's first row; 0: the whole line is here (the emulation)
  int cells = 0;  // the channel's cell rows (0: g.ny, the emulation)
  T* factor[3][3] = {};  // [component][v, w, cp] over the channel's rows; null: per line (the scratch)
  NSB_FS_HD std::size_t count() const { return 3 * std::size_t(g.nx) * std::size_t(g.nz); }
  NSB_FS_HD int ranks() const { return p; }
  bool whole_line_steps() const { return false; }
  bool factors_shared() const { return factor[0][0] != nullptr; }
  NSB_FS_HD void before(std::size_t) const {}
  NSB_FS_HD void after(std::size_t) const {}
  NSB_FS_HD SplitLine<T, AdiRows<T>> line(std::size_t l) const {
    const std::size_t per = count() / 3;
    const int comp = int(l / per);
    const std::size_t start = adi_line_start(g, 1, int(l % per));
    const AdiTable<T>& tc = t[comp];
    const int rows = cells > 0 ? cells : g.ny;
    if (factor[comp][0])  // row j's factors at factor[j]: SplitLine reads v[(j - first) ss]
      return {AdiRows<T>{tc.a, tc.b, tc.c}, tc.n, x[comp] + start, g.sy(), factor[comp][0] + first, factor[comp][1] + first,
              factor[comp][2] + first, 1, first, rows};
    return {AdiRows<T>{tc.a, tc.b, tc.c}, tc.n, x[comp] + start, g.sy(), scratch[comp][0] + start, scratch[comp][1] + start,
            scratch[comp][2] + start, g.sy(), first, rows};
  }
};

}  // namespace nsb
