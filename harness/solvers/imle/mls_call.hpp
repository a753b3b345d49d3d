// The IMLE solver's MLS stage call: what every variant of imle/mls receives (imle/stages.cpp).
//
//   imle/mls   reads the particle displacements disp_x/y/z (r* - x, Eq. 8) and velocities u*, v*, w* at
//              the particles (ghosts: the boundary points' values), writes the interpolated u*, v*, w*
//              at the interior cell centres of z-levels zr (mls_formulas.hpp); nothing else.
//
// The two-phase variants (the paper's, Sec. 3.3) keep every system of a batch of z-levels in global
// memory: the call hands them a workspace and the cap a batch must fit under (the paper: 2 GB, so that
// 32-bit indices do not overflow).
#pragma once

#include <cstddef>

#include "grid.hpp"
#include "imle/mls_formulas.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

// The paper's cap on one batch of systems in global memory: 2^31 bytes (Sec. 3.3).
inline constexpr std::size_t kMlsPaperBatchCap = std::size_t(1) << 31;

template <class T>
struct MlsCall {
  using value_type = T;
  Grid grid;
  ZRange zr;
  const T* disp[3] = {nullptr, nullptr, nullptr};
  const T* value[3] = {nullptr, nullptr, nullptr};
  T* out[3] = {nullptr, nullptr, nullptr};
  void* workspace = nullptr;       // global-memory systems of the two-phase variants
  std::size_t workspace_bytes = 0;
  std::size_t batch_cap_bytes = kMlsPaperBatchCap;  // the batched variant's cap on one batch
  Tuning tuning;
  Exec exec;
};

template <class T>
MlsArgs<T> mls_args(const MlsCall<T>& c) {
  const Grid& g = c.grid;
  return {g,
          c.zr.k_begin,
          c.zr.k_end,
          {c.disp[0], c.disp[1], c.disp[2]},
          {c.value[0], c.value[1], c.value[2]},
          {c.out[0], c.out[1], c.out[2]},
          {T(1 / g.dx()), T(1 / g.dy()), T(1 / g.dz())},
          T(1 / kMlsSupport)};
}

// Bytes of the systems of one z-level (kMlsWords a cell) and of every level of zr.
inline std::size_t mls_plane_bytes(const Grid& g, int elem_bytes) {
  return std::size_t(g.nx) * g.ny * kMlsWords * std::size_t(elem_bytes);
}
inline std::size_t mls_workspace_bytes(const Grid& g, ZRange zr, int elem_bytes) {
  return mls_plane_bytes(g, elem_bytes) * std::size_t(zr.levels() > 0 ? zr.levels() : 0);
}

// The paper's batch count (Sec. 3.3): floor(levels * plane bytes / cap) + 1.
inline int mls_batches(const Grid& g, ZRange zr, int elem_bytes, std::size_t cap) {
  return int(mls_workspace_bytes(g, zr, elem_bytes) / cap) + 1;
}

// The work of one call: six words read (displacements and velocities) and three written a cell, once
// each (the 27-point neighbourhoods overlap, so caches serve the re-reads); flops counted on the
// formulas with every point inside the support. The two-phase variants move their systems through
// global memory on top (2 x kMlsWords words a cell at least), which this model leaves out: it is the
// stage's minimum, whatever the variant.
inline WorkModel mls_model(const Grid& g, ZRange zr, int elem_bytes) {
  const double points = double(g.nx) * g.ny * (zr.levels() > 0 ? zr.levels() : 0);
  return {points, 9.0 * elem_bytes * points, mls_flops_per_point() * points};
}

}  // namespace nsb
