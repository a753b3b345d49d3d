// The projection solver's stage call: the one structure every projection variant receives.
//
// A variant is a pair of plain functions (float and double) taking a StageCall. The call carries the
// grid, the field pointers (host or device memory, as the variant's backend expects), the step
// parameters, the boundary rules, the tuning and the execution context. Each stage kind reads and
// writes the fields its registration names (harness/solvers/projection/stages.cpp):
//   momentum     reads u v w (+ hu hv hw for Adams-Bashforth), writes us vs ws (+ hu hv hw) on zr
//   velocity_bc  ghost cells of us vs ws (or u v w: the solver passes the fields in us vs ws)
//   divergence   reads us vs ws, writes div on zr
//   pressure     one Jacobi sweep: reads p, div, writes p_new on zr
//   pressure_bc  ghost cells of p
//   correction   us -= dt grad p on zr
//   reduce       *reduce_out = sum over the interior of (reduce_a - reduce_b)^2, in double;
//                reduce_b may be null (then the sum of squares of reduce_a)
// Urban cases (urban_formulas.hpp):
//   obstacles    the obstacle logic (Eqs. 3.4-3.11) on us vs ws in place, flags in solid; ut vt wt are
//                its workspace (undefined afterwards); `obstacle_cells` lists the padded points it may
//                change (those with a solid cell in their 3x3x3 neighbourhood)
//   nu_turbulent reads u v w, writes nut (Smagorinsky eddy viscosity) on zr
//   pressure     with solid set: the masked Jacobi sweep (Eq. 3.3); variants that honour it carry the
//                tag obstacles=masked
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grid.hpp"
#include "projection/boundary.hpp"
#include "projection/point_formulas.hpp"
#include "stage.hpp"

namespace nsb {

// The projection solver's stage kinds, in the order a time step calls them (registered in stages.cpp
// as "projection/<name>"; this enum is the solver's own shorthand, unknown to the generic core).
enum class ProjectionStage {
  momentum, velocity_bc, divergence, pressure, pressure_bc, correction, reduce, obstacles, nu_turbulent, count
};
inline const char* stage_name(ProjectionStage s) {
  constexpr const char* names[] = {"momentum",   "velocity_bc", "divergence", "pressure",
                                   "pressure_bc", "correction",  "reduce",     "obstacles", "nu_turbulent"};
  return s < ProjectionStage::count ? names[int(s)] : "?";
}
inline std::vector<std::string> projection_stage_names() {
  std::vector<std::string> out;
  for (int s = 0; s < int(ProjectionStage::count); ++s) out.push_back(stage_name(ProjectionStage(s)));
  return out;
}

template <class T>
struct FieldPtrs {
  T *u = nullptr, *v = nullptr, *w = nullptr;     // velocity at time n
  T *us = nullptr, *vs = nullptr, *ws = nullptr;  // predicted velocity u*, corrected in place to u^{n+1}
  T *hu = nullptr, *hv = nullptr, *hw = nullptr;  // previous right-hand side (Adams-Bashforth)
  T *p = nullptr, *p_new = nullptr, *div = nullptr;
  T* solid = nullptr;                             // obstacle flags at cell centres (1 = solid); null: none
  T *ut = nullptr, *vt = nullptr, *wt = nullptr;  // obstacle workspace
  T* nut = nullptr;                               // eddy viscosity at cell centres
};

// The padded points the obstacle logic may change (urban_formulas.hpp: every point outside this list
// keeps its value bit for bit), built once from the flags (obstacle_cell_list).
struct ObstacleCells {
  const std::uint32_t* index = nullptr;  // padded indices, ascending (host or device memory, as the backend)
  std::size_t count = 0;
};

template <class T>
struct StepParams {
  T dt = 0, nu = 0, gamma = 0;
  T force[3] = {0, 0, 0};
  TimeScheme scheme = TimeScheme::euler;
  bool first_step = true;
  GridCoef<T> coef{};
  T cs_delta2 = 0;  // Smagorinsky (Cs Delta)^2, Delta = (dx dy dz)^(1/3)

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

template <class T>
struct StageCall {
  using value_type = T;
  Grid grid;
  ZRange zr;
  FieldPtrs<T> f;
  StepParams<T> prm;
  BoundaryRules<T> bc{};
  Tuning tuning;
  Exec exec;
  ObstacleCells obstacle_cells;
  const T* reduce_a = nullptr;
  const T* reduce_b = nullptr;
  double* reduce_out = nullptr;  // device memory for cuda variants, host memory for CPU ones
};

}  // namespace nsb
