// The CPU reference: every stage of the projection solver, serial and OpenMP, applying the shared
// point operations. These are the correctness reference of every GPU variant and the CPU baseline
// of every speedup. The serial and OpenMP variants are the same loops with the parallel region
// switched off or on, so their results differ only in the order of the reduction sum.
#include <omp.h>

#include "projection/point_ops.hpp"
#include "projection/urban_ops.hpp"
#include "registry.hpp"
#include "projection/stage_call.hpp"

namespace nsb {
namespace {

bool parallel(const Exec& e) { return e.backend == Backend::cpu_omp; }
int threads(const Exec& e) { return e.threads > 0 ? e.threads : omp_get_max_threads(); }

template <class Op>
void for_each_point(const Grid& g, ZRange zr, const Exec& e, const Op& op) {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads(e)) if (parallel(e))
  for (int k = zr.k_begin; k < zr.k_end; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) op(i, j, k, g.idx(i, j, k));
}

// for_each_point for an op whose points are independent (it writes point n only, and reads nothing
// another point of the pass writes): the x lines run as SIMD lanes. The compiler cannot prove that the
// fields do not overlap, so without the pragma it keeps these loops scalar. Lanes apply each point's
// operations in the scalar order, so the results are bit-identical to the scalar loop's.
template <class Op>
void for_each_independent_point(const Grid& g, ZRange zr, const Exec& e, const Op& op) {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads(e)) if (parallel(e))
  for (int k = zr.k_begin; k < zr.k_end; ++k)
    for (int j = 1; j <= g.ny; ++j) {
      const std::size_t row = g.idx(0, j, k);
#pragma omp simd
      for (int i = 1; i <= g.nx; ++i) op(i, j, k, row + std::size_t(i));
    }
}

// Every padded point, ghosts included (the obstacle logic's passes that ghost values feed).
template <class Op>
void for_each_padded_point(const Grid& g, const Exec& e, const Op& op) {
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads(e)) if (parallel(e))
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) op(i, j, k, g.idx(i, j, k));
}

// x faces, then y, then z: the order boundary.hpp prescribes.
template <class Line>
void for_each_face_line(const Grid& g, const Exec& e, const Line& line) {
  for (int axis = 0; axis < 3; ++axis) {
    int n1, n2;
    face_extent(g, axis, n1, n2);
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads(e)) if (parallel(e))
    for (int t2 = 0; t2 < n2; ++t2)
      for (int t1 = 0; t1 < n1; ++t1) line(axis, t1, t2);
  }
}

template <class T>
void momentum(const StageCall<T>& c) {
  with_eddy_momentum_point(c, [&](const auto& op) { for_each_independent_point(c.grid, c.zr, c.exec, op); });
}
template <class T>
void divergence(const StageCall<T>& c) { for_each_independent_point(c.grid, c.zr, c.exec, DivergencePoint<T>(c)); }
template <class T>
void pressure(const StageCall<T>& c) {
  if (c.f.solid) for_each_independent_point(c.grid, c.zr, c.exec, MaskedJacobiPoint<T>(c));  // Eq. 3.3
  else for_each_independent_point(c.grid, c.zr, c.exec, JacobiPoint<T>(c));
}
// The listed points of a pass (ascending padded indices); `interior_only` skips the ghost points.
template <class Op>
void for_each_listed_point(const Grid& g, const ObstacleCells& cells, bool interior_only, const Exec& e,
                           const Op& op) {
#pragma omp parallel for schedule(static) num_threads(threads(e)) if (parallel(e))
  for (std::size_t m = 0; m < cells.count; ++m) {
    const std::size_t n = cells.index[m];
    const std::size_t row = n / std::size_t(g.NX());
    const int i = int(n % std::size_t(g.NX())), j = int(row % std::size_t(g.NY())), k = int(row / std::size_t(g.NY()));
    if (interior_only && (i < 1 || i > g.nx || j < 1 || j > g.ny || k < 1 || k > g.nz)) continue;
    op(i, j, k, n);
  }
}

// The thesis's four obstacle kernels in its order (Fig. 3.19), with ut vt wt as its second buffer:
// zero mask (in place), sweep kii (us -> ut), sweep jkj (ut -> us), corners (in place). The whole
// slab: each pass reads its neighbours' results of the pass before, so it cannot be split along z.
// Every pass leaves a point with no solid cell in its 3x3x3 block unchanged (urban_formulas.hpp), so
// where the call lists the other points (obstacle_cells) the passes visit those only, after one copy
// us -> ut that gives the kii pass's unvisited points their unchanged values: the same result bit for
// bit, at a cost that follows the buildings' surface instead of 4 obstacle evaluations a grid point
// (the whole-grid passes were 42% of a serial urban step at 256x64x256 on the H100 host,
// results/fig4_11_urban_speedup/nvidia-h100-80gb-hbm3-x1/quick-cpu-backendcpu_serial-grid256x64x256.json.gz).
template <class T>
void obstacles(const StageCall<T>& c) {
  const Grid& g = c.grid;
  const ZRange all = ZRange::interior(g);
  FieldPtrs<T> work = c.f;
  work.us = c.f.ut, work.vs = c.f.vt, work.ws = c.f.wt;
  const ObstacleCells& cells = c.obstacle_cells;
  if (!cells.index) {  // no list: every point
    for_each_padded_point(g, c.exec, ObstacleMaskPoint<T>(c));
    for_each_padded_point(g, c.exec, ObstacleSweepPoint<T, true>(c, c.f, work));
    for_each_point(g, all, c.exec, ObstacleSweepPoint<T, false>(c, work, c.f));
    for_each_point(g, all, c.exec, ObstacleCornerPoint<T>(c));
    return;
  }
  for_each_listed_point(g, cells, false, c.exec, ObstacleMaskPoint<T>(c));
  const std::size_t padded = g.padded_points();
#pragma omp parallel for schedule(static) num_threads(threads(c.exec)) if (parallel(c.exec))
  for (std::size_t n = 0; n < padded; ++n) work.us[n] = c.f.us[n], work.vs[n] = c.f.vs[n], work.ws[n] = c.f.ws[n];
  for_each_listed_point(g, cells, false, c.exec, ObstacleSweepPoint<T, true>(c, c.f, work));
  for_each_listed_point(g, cells, true, c.exec, ObstacleSweepPoint<T, false>(c, work, c.f));
  for_each_listed_point(g, cells, true, c.exec, ObstacleCornerPoint<T>(c));
}
template <class T>
void nu_turbulent(const StageCall<T>& c) { for_each_independent_point(c.grid, c.zr, c.exec, NuTurbulentPoint<T>(c)); }
template <class T>
void correction(const StageCall<T>& c) { for_each_independent_point(c.grid, c.zr, c.exec, CorrectionPoint<T>(c)); }
template <class T>
void velocity_bc(const StageCall<T>& c) { for_each_face_line(c.grid, c.exec, VelocityBcLine<T>(c)); }
template <class T>
void pressure_bc(const StageCall<T>& c) { for_each_face_line(c.grid, c.exec, PressureBcLine<T>(c)); }

template <class T>
void reduce(const StageCall<T>& c) {
  const Grid g = c.grid;
  const T* a = c.reduce_a;
  const T* b = c.reduce_b;
  double sum = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : sum) num_threads(threads(c.exec)) \
    if (parallel(c.exec))
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = g.idx(i, j, k);
        sum += squared_difference(a[n], b ? b[n] : T(0));
      }
  *c.reduce_out = sum;
}

Variant cpu(const std::string& stage, Backend b, StageFn ff, StageFn fd) {
  Variant v = cpu_reference_variant("projection/" + stage, b, ff, fd);
  if (stage == "reduce") v.tags["reduce"] = b == Backend::cpu_omp ? "omp_reduction" : "serial_sum";
  if (stage == "pressure") v.tags["obstacles"] = "masked";
  if (stage == "momentum") v.tags["viscosity"] = "eddy";
  v.status = b == Backend::cpu_serial ? "CPU reference: what every variant is checked against, and the serial baseline"
                                      : "CPU baseline: the reference's loops over OpenMP threads";
  return v;
}

#define NSB_REGISTER_CPU(stage_fn)                                                                        \
  const Registrar reg_serial_##stage_fn{cpu(#stage_fn, Backend::cpu_serial, &stage_fn<float>, &stage_fn<double>)}; \
  const Registrar reg_omp_##stage_fn{cpu(#stage_fn, Backend::cpu_omp, &stage_fn<float>, &stage_fn<double>)};

NSB_REGISTER_CPU(momentum)
NSB_REGISTER_CPU(velocity_bc)
NSB_REGISTER_CPU(divergence)
NSB_REGISTER_CPU(pressure)
NSB_REGISTER_CPU(pressure_bc)
NSB_REGISTER_CPU(correction)
NSB_REGISTER_CPU(reduce)
NSB_REGISTER_CPU(obstacles)
NSB_REGISTER_CPU(nu_turbulent)

}  // namespace
}  // namespace nsb
