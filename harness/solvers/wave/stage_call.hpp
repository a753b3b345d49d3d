// The wave solver's stage call: what every variant of wave/step receives (harness/solvers/wave/stages.cpp).
//
//   wave/step   reads u_prev (u^{t-1}) and u (u^t), writes u_next (u^{t+1}) at the unknowns of rows
//               k in [zr.k_begin, zr.k_end), i = 1..nx; nothing else (ghost and boundary values stay).
//
// The row range lets an overlapping halo exchange have the edge rows computed first and the interior
// while the edges travel, as the projection solver does with its z planes.
#pragma once

#include "grid.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "wave/formulas.hpp"

namespace nsb {

template <class T>
struct WaveCall {
  using value_type = T;
  Grid grid;  // a wave grid (formulas.hpp): nx x 1 x ny
  ZRange zr;  // rows of unknowns to update
  const T* u_prev = nullptr;
  const T* u = nullptr;
  T* u_next = nullptr;
  T rho2 = 0;  // (c dt / h)^2
  Tuning tuning;
  Exec exec;
};

// The work of one call on rows zr: u_prev and u read once, u_next written once (3 words a point; the
// neighbours of u are re-reads of the same rows, which a variant should serve from caches or registers).
inline WorkModel wave_step_model(const Grid& g, ZRange zr, int elem_bytes) {
  const double points = double(g.nx) * zr.levels();
  return {points, 3.0 * elem_bytes * points, kWaveFlopsPerPoint * points};
}

}  // namespace nsb
