// The stage calls of multigrid's kernels (stage kinds poisson/mg_*, registered in multigrid_stages.cpp),
// one structure per kind, and each kind's work model. Every call works on one level's grid; `zr` is its
// interior z range (the kinds are never split by a halo exchange: multigrid runs on one rank).
//
//   poisson/mg_ghosts    a's ghost shell from the faces (interior untouched)
//   poisson/mg_jacobi    out = weighted Jacobi sweep of p for L p = f (interior of out)
//   poisson/mg_rbgs      p = Gauss-Seidel value at the points of one colour (in place), over-relaxed by omega
//   poisson/mg_residual  r = f - L p (interior of r)
//   poisson/mg_restrict  coarse_f = 8-cell average of fine_r (interior of coarse_f)
//   poisson/mg_residual_restrict  coarse_f = 8-cell average of f - L p on the fine level (the two
//                        above in one pass; the fine residual is never stored)
//   poisson/mg_prolong   fine_e += trilinear interpolation of coarse_e (interior of fine_e)
//   poisson/mg_coarse    e = `sweeps` red-black Gauss-Seidel sweeps from e on the coarsest level, ghosts set
//   poisson/mg_sums      sums = {sum of a, sum of a^2} over the interior, in double, in a fixed order
//   poisson/mg_shift     out = scale * in - scale * sums[0] / points (interior; no shift without sums)
#pragma once

#include "grid.hpp"
#include "poisson/multigrid_formulas.hpp"
#include "poisson/poisson.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

// What every multigrid call carries besides its arrays.
struct MgCallBase {
  Grid grid;   // the level the call works on (restriction: the coarse one; prolongation: the fine one)
  ZRange zr;   // its interior z range
  Tuning tuning;
  Exec exec;
};

template <class T>
struct MgGhostsCall : MgCallBase {
  using value_type = T;
  PoissonFaces faces;
  T* a = nullptr;
};

template <class T>
struct MgJacobiCall : MgCallBase {
  using value_type = T;
  const T* p = nullptr;
  const T* f = nullptr;
  T* out = nullptr;
  T omega = T(kMgJacobiWeight);
};

template <class T>
struct MgRbgsCall : MgCallBase {
  using value_type = T;
  T* p = nullptr;
  const T* f = nullptr;
  int colour = 0;  // 0 red, 1 black (mg_has_colour)
  T omega = 1;     // 1: Gauss-Seidel; above: over-relaxed (mg_rbgs_point)
};

template <class T>
struct MgResidualCall : MgCallBase {
  using value_type = T;
  const T* p = nullptr;
  const T* f = nullptr;
  T* r = nullptr;
};

template <class T>
struct MgRestrictCall : MgCallBase {  // grid: the coarse level
  using value_type = T;
  Grid fine;
  const T* fine_r = nullptr;
  T* coarse_f = nullptr;
};

template <class T>
struct MgResidualRestrictCall : MgCallBase {  // grid: the coarse level
  using value_type = T;
  Grid fine;
  const T* p = nullptr;  // fine level
  const T* f = nullptr;  // fine level
  T* coarse_f = nullptr;
};

template <class T>
struct MgProlongCall : MgCallBase {  // grid: the fine level
  using value_type = T;
  Grid coarse;
  const T* coarse_e = nullptr;
  T* fine_e = nullptr;
};

// The coarsest grid a one-block solve takes (multigrid.hpp refuses grids that coarsen to more).
inline constexpr long long kMgCoarsestMaxCells = 512;

template <class T>
struct MgCoarseCall : MgCallBase {
  using value_type = T;
  PoissonFaces faces;
  T* e = nullptr;
  const T* f = nullptr;
  int sweeps = 1;
};

// Device (or host) scratch of the two-pass sums: a partial pair per block of the first pass.
inline constexpr int kMgSumsMaxBlocks = 1024;
inline constexpr int kMgSumsThreads = 256;

template <class T>
struct MgSumsCall : MgCallBase {
  using value_type = T;
  const T* a = nullptr;
  double* sums = nullptr;      // 2 values out (same memory space as a)
  double* partials = nullptr;  // 2 * kMgSumsMaxBlocks values of scratch (GPU variants)
};

template <class T>
struct MgShiftCall : MgCallBase {
  using value_type = T;
  const T* in = nullptr;
  T* out = nullptr;  // may be in
  T scale = 1;
  const double* sums = nullptr;  // mg_sums of `in`, or null for no shift
};

// Work models: each input read once, each output written once (ARCHITECTURE.md, Work models).
inline WorkModel mg_pointwise_model(const Grid& g, double words_per_point, double flops, int elem_bytes) {
  const double points = double(g.interior_points());
  return {points, words_per_point * elem_bytes * points, flops * points};
}
// Ghost shell: each ghost written once, its interior source read once.
inline WorkModel mg_ghosts_model(const Grid& g, int elem_bytes) {
  const double points = double(mg_shell_points(g));
  return {points, 2.0 * elem_bytes * points, 0};
}
inline WorkModel mg_jacobi_model(const Grid& g, int eb) { return mg_pointwise_model(g, 3, kMgJacobiFlops, eb); }
inline WorkModel mg_residual_model(const Grid& g, int eb) { return mg_pointwise_model(g, 3, kMgResidualFlops, eb); }
// One colour: the other colour's p (half the grid), this colour's f, this colour's p written: 3 words per
// point updated. With the colours interleaved in memory a kernel moves whole sectors, so it reads all
// of p and f and the model's bytes are out of reach by design (about 2/3 of them is the best; see
// docs/solvers/poisson_multigrid.md).
inline WorkModel mg_rbgs_model(const Grid& g, int eb) {
  const double points = double(g.interior_points()) / 2;
  return {points, 3.0 * eb * points, kMgGaussSeidelFlops * points};
}
// Per coarse point: 8 fine residuals read, 1 coarse value written.
inline WorkModel mg_restrict_model(const Grid& coarse, int eb) {
  return mg_pointwise_model(coarse, 9, kMgRestrictFlops, eb);
}
// Per coarse point: 8 fine p and 8 fine f read (the stencil's other neighbours from the caches), 1 coarse
// value written: 2.125 words a fine point, against 3 + 1.125 for mg_residual then mg_restrict.
inline WorkModel mg_residual_restrict_model(const Grid& coarse, int eb) {
  return mg_pointwise_model(coarse, 17, 8 * kMgResidualFlops + kMgRestrictFlops, eb);
}
// Per fine point: the fine value read and written, an eighth of a coarse value read.
inline WorkModel mg_prolong_model(const Grid& fine, int eb) {
  return mg_pointwise_model(fine, 2.125, kMgProlongFlops, eb);
}
// e and f read once, e written once (the sweeps run in shared memory).
inline WorkModel mg_coarse_model(const Grid& g, int sweeps, int eb) {
  WorkModel m = mg_pointwise_model(g, 3, 0, eb);
  m.flops = kMgGaussSeidelFlops * double(g.interior_points()) * sweeps;
  return m;
}
inline WorkModel mg_sums_model(const Grid& g, int eb) { return mg_pointwise_model(g, 1, kMgSumsFlops, eb); }
inline WorkModel mg_shift_model(const Grid& g, int eb) { return mg_pointwise_model(g, 2, kMgShiftFlops, eb); }

}  // namespace nsb
