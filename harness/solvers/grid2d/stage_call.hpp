// The stage calls of the grid generator (ogrid/sweep) and the flow solver (streamvort/vorticity,
// /stream, /boundary), and the per-node ops every backend runs (CPU reference and GPU variants alike):
// an op updates node (i, j) (padded index n) from a "stencil" s whose s.at(f) is an accessor
// a(di, dj) of the op's 9-point field f (kStaged of them; staged(f) is its array), reads every other
// field at the node itself, writes its outputs (and their ghost-column copies, formulas.hpp) and
// returns its contribution to the call's residual (0 for ops without one).
//
//   ogrid/sweep         x, y, phi, psi_c -> x_new, y_new; residual = max |r_new - r| (one Jacobi sweep)
//   streamvort/vorticity omega, psi, ca, cb, cg, p, q, ij -> omega_new (interior rows; 2nd-order upwinding
//                        also reads omega two nodes away, from global memory: Reach2)
//   streamvort/stream    psi, omega, ca, cb, cg, p, q -> psi_new; residual = max |psi_new - psi|
//   streamvort/boundary  psi, cg, x, y, omega (row ny) -> omega on rows 0 and ny + 1 (wall, far field)
//
// Every call with a residual writes it to *residual (device memory for GPU variants): the maximum,
// which is the same whatever the order of its reduction, so every reduction variant is deterministic.
#pragma once

#include <cstddef>
#include <string>

#include "grid.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "grid2d/formulas.hpp"

namespace nsb {

// An accessor of a field around one node of a row-major plane.
template <class T>
struct At {
  const T* p;
  std::ptrdiff_t row;
  NSB_HD T operator()(int di, int dj) const { return p[di + dj * row]; }
};

// The stencil of the global-memory traversals and the CPU: every neighbour read from the array.
template <class T, int K>
struct GlobalStencil {
  const T* f[K];
  std::ptrdiff_t row;
  NSB_HD At<T> at(int k) const { return {f[k], row}; }
};
template <class Op>
NSB_HD inline GlobalStencil<typename Op::value_type, Op::kStaged> global_stencil(const Op& op, std::size_t n) {
  GlobalStencil<typename Op::value_type, Op::kStaged> s;
  for (int k = 0; k < Op::kStaged; ++k) s.f[k] = op.staged(k) + n;
  s.row = op.g.sy();
  return s;
}

template <class T>
struct GridSweepCall {
  using value_type = T;
  Grid grid;
  const T *x = nullptr, *y = nullptr, *phi = nullptr, *psi_c = nullptr;
  T *x_new = nullptr, *y_new = nullptr;
  T relax = 1;
  XiEnds ends = XiEnds::periodic;
  T* residual = nullptr;
  Tuning tuning;
  Exec exec;
};

template <class T>
struct GridSweepOp {
  using value_type = T;
  static constexpr int kStaged = 2;
  Grid g;
  const T *x, *y, *phi, *psi_c;
  T *x_new, *y_new;
  T relax;
  XiEnds ends;
  static GridSweepOp of(const GridSweepCall<T>& c) {
    return {c.grid, c.x, c.y, c.phi, c.psi_c, c.x_new, c.y_new, c.relax, c.ends};
  }
  NSB_HD const T* staged(int f) const { return f == 0 ? x : y; }
  template <class S>
  NSB_HD T operator()(int i, int, std::size_t n, const S& s) const {
    T xn, yn;
    const T r = grid_point(s.at(0), s.at(1), phi[n], psi_c[n], relax, xn, yn);
    store_node(x_new, g, i, n, xn, ends);
    store_node(y_new, g, i, n, yn, ends);
    return r;
  }
};

template <class T>
struct StreamCall {
  using value_type = T;
  Grid grid;
  const T *psi = nullptr, *omega = nullptr, *ca = nullptr, *cb = nullptr, *cg = nullptr, *p = nullptr, *q = nullptr;
  T* psi_new = nullptr;
  T relax = 1;
  XiEnds ends = XiEnds::periodic;
  T* residual = nullptr;
  Tuning tuning;
  Exec exec;
};

template <class T>
struct StreamOp {
  using value_type = T;
  static constexpr int kStaged = 1;
  Grid g;
  const T *psi, *omega, *ca, *cb, *cg, *p, *q;
  T* psi_new;
  T relax;
  XiEnds ends;
  static StreamOp of(const StreamCall<T>& c) {
    return {c.grid, c.psi, c.omega, c.ca, c.cb, c.cg, c.p, c.q, c.psi_new, c.relax, c.ends};
  }
  NSB_HD const T* staged(int) const { return psi; }
  template <class S>
  NSB_HD T operator()(int i, int, std::size_t n, const S& s) const {
    T out;
    const T r = stream_point(s.at(0), omega[n], ca[n], cb[n], cg[n], p[n], q[n], relax, out);
    store_node(psi_new, g, i, n, out, ends);
    return r;
  }
};

// streamvort/stream_sor: one sweep of successive over-relaxation, in place (the call's psi_new is its psi),
// in four colours: node (i, j) has colour ((i - 1) & 1) + 2 ((j - 1) & 1). No two nodes of a colour share
// a 9-point neighbourhood (red-black would: the diagonal neighbours of the mixed derivative), so each
// colour's nodes update in any order and in parallel from the latest values of the other three. The
// periodic O-grid needs an even nx (nodes 1 and nx are neighbours across the cut). relax is SOR's omega.
NSB_HD inline int sor_colour_i(int colour) { return colour & 1; }
NSB_HD inline int sor_colour_j(int colour) { return colour >> 1; }

template <class T>
struct VorticityCall {
  using value_type = T;
  Grid grid;
  const T *omega = nullptr, *psi = nullptr, *ca = nullptr, *cb = nullptr, *cg = nullptr, *p = nullptr,
          *q = nullptr, *ij = nullptr;
  T* omega_new = nullptr;
  T nu = 0, dt = 0;
  XiEnds ends = XiEnds::periodic;
  Tuning tuning;
  Exec exec;
  const T* nu_eff = nullptr;  // turbulent: nu + nu_t at every node (streamvort/turbulence); null: laminar nu
  Convection convection = Convection::hybrid;
};

// The convection of vorticity's stage workload (laminar and turbulent: hybrid).
inline Convection vorticity_convection(const std::string& workload) {
  return workload == "upwind2" ? Convection::upwind2 : Convection::hybrid;
}

// omega two nodes away from node (i, j) (2nd-order upwinding), from the op's own global array.
template <class Op>
NSB_HD inline Reach2<typename Op::value_type> reach2(const Op& op, int i, int j, std::size_t n) {
  return {op.omega + n, op.g.sy(), i, j, op.g.nx, op.g.ny, op.ends};
}

template <class T>
struct VorticityOp {
  using value_type = T;
  static constexpr int kStaged = 2;
  Grid g;
  const T *omega, *psi, *ca, *cb, *cg, *p, *q, *ij;
  T* omega_new;
  T nu, dt;
  XiEnds ends;
  Convection scheme;
  static VorticityOp of(const VorticityCall<T>& c) {
    return {c.grid, c.omega, c.psi, c.ca, c.cb, c.cg, c.p, c.q, c.ij, c.omega_new, c.nu, c.dt, c.ends, c.convection};
  }
  NSB_HD const T* staged(int f) const { return f == 0 ? omega : psi; }
  template <class S>
  NSB_HD T operator()(int i, int j, std::size_t n, const S& s) const {
    store_node(omega_new, g, i, n,
               vorticity_point(s.at(0), s.at(1), reach2(*this, i, j, n), scheme, ca[n], cb[n], cg[n], p[n], q[n], ij[n],
                               nu, dt),
               ends);
    return T(0);
  }
};

// The turbulent vorticity update: nu_eff is a third 9-point field (the Laplacian of nu_eff omega).
template <class T>
struct TurbulentVorticityOp {
  using value_type = T;
  static constexpr int kStaged = 3;
  Grid g;
  const T *omega, *psi, *ca, *cb, *cg, *p, *q, *ij, *nu_eff;
  T* omega_new;
  T dt;
  XiEnds ends;
  Convection scheme;
  static TurbulentVorticityOp of(const VorticityCall<T>& c) {
    return {c.grid, c.omega, c.psi, c.ca, c.cb, c.cg, c.p, c.q, c.ij, c.nu_eff, c.omega_new, c.dt, c.ends, c.convection};
  }
  NSB_HD const T* staged(int f) const { return f == 0 ? omega : f == 1 ? psi : nu_eff; }
  template <class S>
  NSB_HD T operator()(int i, int j, std::size_t n, const S& s) const {
    store_node(omega_new, g, i, n,
               turbulent_vorticity_point(s.at(0), s.at(1), s.at(2), reach2(*this, i, j, n), scheme, ca[n], cb[n], cg[n],
                                         p[n], q[n], ij[n], dt),
               ends);
    return T(0);
  }
};

template <class T>
struct BoundaryCall {
  using value_type = T;
  Grid grid;
  const T *psi = nullptr, *cg = nullptr, *x = nullptr, *y = nullptr;
  T* omega = nullptr;
  int wall_begin = 1;  // columns before it: symmetry line (omega = 0), from it: no-slip wall
  XiEnds ends = XiEnds::periodic;
  T stream_x = 1, stream_y = 0;  // the free stream's direction
  Tuning tuning;
  Exec exec;
};

// BoundaryCall without its tuning and execution context (a kernel argument must be trivially copyable).
template <class T>
struct BoundaryOp {
  Grid g;
  const T *psi, *cg, *x, *y;
  T* omega;
  int wall_begin;
  XiEnds ends;
  T stream_x, stream_y;
  static BoundaryOp of(const BoundaryCall<T>& c) {
    return {c.grid, c.psi, c.cg, c.x, c.y, c.omega, c.wall_begin, c.ends, c.stream_x, c.stream_y};
  }
};

// Column i (1..nx) of the boundary rows: the wall vorticity (formulas.hpp), 0 on a symmetry line; at
// the far field omega = 0 where the stream enters or passes along (outward normal . stream <= 0),
// zero eta-gradient where it leaves.
template <class T>
NSB_HD inline void boundary_column(const BoundaryOp<T>& c, int i) {
  const Grid& g = c.g;
  const std::size_t wall = sv_node(g, i, 0), far = sv_node(g, i, g.ny + 1), below = sv_node(g, i, g.ny);
  const T w = i >= c.wall_begin ? wall_vorticity(c.psi[wall], c.psi[wall + g.sy()], c.cg[wall]) : T(0);
  store_node(c.omega, g, i, wall, w, c.ends);
  const T outward = (c.x[far] - c.x[below]) * c.stream_x + (c.y[far] - c.y[below]) * c.stream_y;
  const T reach = sv_abs(c.x[far] - c.x[below]) + sv_abs(c.y[far] - c.y[below]);
  store_node(c.omega, g, i, far, outward > T(1e-3) * reach ? c.omega[below] : T(0), c.ends);
}

// streamvort/turbulence: Baldwin-Lomax (formulas.hpp) along every xi column, nu_eff = nu + nu_t on rows
// 0..ny + 1 (nu at the wall and the far field; nu on the columns ahead of the plate's leading edge,
// which have no wall). wall_dist is each node's distance from its column's wall node.
template <class T>
struct TurbulenceCall {
  using value_type = T;
  Grid grid;
  const T *psi = nullptr, *omega = nullptr, *ca = nullptr, *cb = nullptr, *cg = nullptr, *wall_dist = nullptr;
  T* nu_eff = nullptr;
  T nu = 0;
  int wall_begin = 1;
  XiEnds ends = XiEnds::periodic;
  Tuning tuning;
  Exec exec;
};

template <class T>
struct TurbulenceOp {
  Grid g;
  const T *psi, *omega, *ca, *cb, *cg, *wall_dist;
  T* nu_eff;
  T nu;
  int wall_begin;
  XiEnds ends;
  static TurbulenceOp of(const TurbulenceCall<T>& c) {
    return {c.grid, c.psi, c.omega, c.ca, c.cb, c.cg, c.wall_dist, c.nu_eff, c.nu, c.wall_begin, c.ends};
  }
};

// Column i (1..nx): two walks up the wall-normal line, the first for F_max, y_max and U_dif, the second
// for nu_t with the inner-to-outer crossover (formulas.hpp).
template <class T>
NSB_HD inline void baldwin_lomax_column(const TurbulenceOp<T>& c, int i) {
  using std::sqrt;
  const Grid& g = c.g;
  const std::ptrdiff_t row = g.sy();
  const std::size_t wall = sv_node(g, i, 0);
  store_node(c.nu_eff, g, i, wall, c.nu, c.ends);
  store_node(c.nu_eff, g, i, sv_node(g, i, g.ny + 1), c.nu, c.ends);
  const T u_tau = i >= c.wall_begin ? sqrt(c.nu * sv_abs(c.omega[wall])) : T(0);
  T f_max = 0, y_max = 0, u_dif = 0;
  for (int j = 1; j <= g.ny; ++j) {
    const std::size_t n = sv_node(g, i, j);
    const T y = c.wall_dist[n], f = y * sv_abs(c.omega[n]) * van_driest(y, u_tau, c.nu);
    if (f > f_max) f_max = f, y_max = y;
    u_dif = sv_max(u_dif, speed(At<T>{c.psi + n, row}, c.ca[n], c.cb[n], c.cg[n]));
  }
  const T f_wake = bl_wake(f_max, y_max, u_dif);
  bool outer = false;
  for (int j = 1; j <= g.ny; ++j) {
    const std::size_t n = sv_node(g, i, j);
    const T y = c.wall_dist[n];
    const T inner = bl_inner(y, sv_abs(c.omega[n]), van_driest(y, u_tau, c.nu));
    const T out = y_max > T(0) ? bl_outer(y, y_max, f_wake) : T(0);
    outer = outer || inner > out;
    store_node(c.nu_eff, g, i, n, c.nu + (outer ? out : inner), c.ends);
  }
}

// Work models. Bytes: each input field once, each output once, per updated node (the 9-point fields'
// neighbours are re-reads a variant should serve from caches or shared memory); the residual is one
// word a call. Flops: counted on the ops (models.cpp).
double grid_sweep_flops();
double stream_flops();
double vorticity_flops(Convection scheme = Convection::hybrid);
double turbulent_vorticity_flops();
double turbulence_flops();
// A model over the nx x ny unknowns: `words` values moved and `flops` done per node.
inline WorkModel per_node_model(const Grid& g, double words, int elem, double flops) {
  const double n = double(g.nx) * g.ny;
  return {n, words * elem * n, flops * n};
}
inline WorkModel grid_sweep_model(const Grid& g, int elem) { return per_node_model(g, 4 + 2, elem, grid_sweep_flops()); }
inline WorkModel stream_model(const Grid& g, int elem) { return per_node_model(g, 7 + 1, elem, stream_flops()); }
// 2nd-order upwinding's nodes two away are re-reads of omega, like its 9-point neighbours.
inline WorkModel vorticity_model(const Grid& g, int elem, Convection scheme = Convection::hybrid) {
  return per_node_model(g, 8 + 1, elem, vorticity_flops(scheme));
}
// The turbulent update reads nu_eff too.
inline WorkModel turbulent_vorticity_model(const Grid& g, int elem) {
  return per_node_model(g, 9 + 1, elem, turbulent_vorticity_flops());
}
// Per node: psi, omega, ca, cb, cg, wall_dist read, nu_eff written (the second walk's re-reads of
// omega and wall_dist are the column's, served by caches).
inline WorkModel turbulence_model(const Grid& g, int elem) { return per_node_model(g, 6 + 1, elem, turbulence_flops()); }
// Per column: psi at rows 0 and 1, cg at the wall, x and y at rows ny and ny + 1, omega at row ny
// read; omega at rows 0 and ny + 1 written. About 10 flops.
inline WorkModel boundary_model(const Grid& g, int elem) {
  const double n = double(g.nx);
  return {n, (8.0 + 2.0) * elem * n, 10.0 * n};
}

}  // namespace nsb
