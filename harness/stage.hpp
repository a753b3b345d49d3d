// Stage kinds of the projection solver and the one call structure every variant receives.
//
// A variant is a pair of plain functions (float and double) taking a StageCall. The call carries the
// grid, the field pointers (host or device memory, as the variant's backend expects), the step
// parameters, the boundary rules, the tuning and the execution context. Each stage kind reads and
// writes a fixed subset (documented per kind below), so the solver, `nsbench verify`, the tests and
// the micro-benchmarks all drive variants the same way.
#pragma once

#include <cstddef>
#include <string>

#include "boundary.hpp"
#include "grid.hpp"
#include "point_formulas.hpp"

namespace nsb {

enum class Backend { cpu_serial, cpu_omp, cuda };
const char* backend_name(Backend b);

// Stage kinds, in the order a time step calls them.
//   momentum     reads u v w (+ hu hv hw for Adams-Bashforth), writes us vs ws (+ hu hv hw) on zr
//   velocity_bc  ghost cells of us vs ws (or u v w: the solver passes the fields in us vs ws)
//   divergence   reads us vs ws, writes div on zr
//   pressure     one Jacobi sweep: reads p, div, writes p_new on zr
//   pressure_bc  ghost cells of p
//   correction   us -= dt grad p on zr
//   reduce       *reduce_out = sum over the interior of (reduce_a - reduce_b)^2, in double;
//                reduce_b may be null (then the sum of squares of reduce_a)
enum class StageKind { momentum, velocity_bc, divergence, pressure, pressure_bc, correction, reduce, count };
const char* stage_name(StageKind s);
bool parse_stage(const std::string& name, StageKind& out);

// Block shape and work per thread; a variant documents which fields it uses.
struct Tuning {
  std::string name = "default";
  int bx = 0, by = 0;  // 2D thread block (bx x by); 1D variants use bx alone
  int sz = 0;          // z levels per thread (thesis SIZE_Z); 0 = whole column
  int pf = 0;          // levels a copy pipeline loads ahead of the one being computed (bulk-copy variants)
  int mb = 0;          // blocks per SM the kernel is compiled to fit (__launch_bounds__); 0 = no request
};

template <class T>
struct FieldPtrs {
  T *u = nullptr, *v = nullptr, *w = nullptr;     // velocity at time n
  T *us = nullptr, *vs = nullptr, *ws = nullptr;  // predicted velocity u*, corrected in place to u^{n+1}
  T *hu = nullptr, *hv = nullptr, *hw = nullptr;  // previous right-hand side (Adams-Bashforth)
  T *p = nullptr, *p_new = nullptr, *div = nullptr;
};

template <class T>
struct StepParams {
  T dt = 0, nu = 0, gamma = 0;
  T force[3] = {0, 0, 0};
  TimeScheme scheme = TimeScheme::euler;
  bool first_step = true;
  GridCoef<T> coef{};

  MomentumCoefTable<T> momentum_coefs() const {
    const T inv[3] = {coef.dxi, coef.dyi, coef.dzi};
    return momentum_coef_table(inv, nu, gamma, force);
  }
};

template <class T>
GridCoef<T> make_grid_coef(const Grid& g) {
  const double dxi = 1.0 / g.dx(), dyi = 1.0 / g.dy(), dzi = 1.0 / g.dz();
  const double b = 0.5 / (dxi * dxi + dyi * dyi + dzi * dzi);
  return GridCoef<T>{T(dxi), T(dyi), T(dzi), T(dxi * dxi), T(dyi * dyi), T(dzi * dzi), T(b)};
}

// Device scratch every GPU solver and benchmark hands its reduce stage (per-block partials, CUB temp).
constexpr std::size_t kReduceScratchBytes = std::size_t(64) << 20;

struct Exec {
  Backend backend = Backend::cpu_serial;
  int threads = 1;             // cpu_omp
  void* stream = nullptr;      // cudaStream_t for cuda variants
  void* scratch = nullptr;     // device scratch for reductions (per-block partials, library temp storage)
  std::size_t scratch_bytes = 0;
};

template <class T>
struct StageCall {
  Grid grid;
  ZRange zr;
  FieldPtrs<T> f;
  StepParams<T> prm;
  BoundaryRules<T> bc{};
  Tuning tuning;
  Exec exec;
  const T* reduce_a = nullptr;
  const T* reduce_b = nullptr;
  double* reduce_out = nullptr;  // device memory for cuda variants, host memory for CPU ones
};

}  // namespace nsb
