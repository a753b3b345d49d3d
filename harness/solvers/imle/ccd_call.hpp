// The IMLE solver's CC-CCD stage call: what every variant of imle/ccd receives (imle/stages.cpp).
//
//   imle/ccd   reads phi (interior cells and, along `axis`, the two ghosts of every line: wall value or
//              the mirror value of the wall derivative, ccd_formulas.hpp), writes d1 = dphi/daxis and d2 = d2phi/daxis2 at the
//              interior cells of every line along `axis`; nothing else (ghosts stay).
//
// Lines along x and y cover the z-levels zr; lines along z cross every z-level (zr must be the
// interior: on several GPUs the paper gathers them through the host, Sec. 3.2).
#pragma once

#include <stdexcept>

#include "grid.hpp"
#include "imle/ccd_formulas.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

template <class T>
struct CcdCall {
  using value_type = T;
  Grid grid;
  ZRange zr;
  int axis = 0;  // 0 x, 1 y, 2 z
  CcdBc bc = CcdBc::dirichlet;
  const T* phi = nullptr;
  T* d1 = nullptr;
  T* d2 = nullptr;
  const T* factor = nullptr;  // ccd_factor(n of axis, bc), on the call's backend, in T
  T h = 0;                    // spacing along axis
  // Three padded-size arrays a variant may use as workspace (transposed copies); their contents are
  // undefined between calls.
  T* scratch[3] = {nullptr, nullptr, nullptr};
  Tuning tuning;
  Exec exec;
};

// The lines of a call: n cells each, `stride` apart, indexed by (l1, l2) with l1 the fastest-varying
// grid index among the other two axes (so consecutive l1 are consecutive in memory for y and z lines).
struct CcdLines {
  Grid g;
  int axis, k_begin;
  int n;                  // cells per line
  std::ptrdiff_t stride;  // between consecutive cells of a line
  int count1, count2;     // lines along l1 and l2

  NSB_HD std::size_t count() const { return std::size_t(count1) * std::size_t(count2); }
  // Padded index of position 0 (the first ghost) of line (l1, l2).
  NSB_HD std::size_t base(int l1, int l2) const {
    if (axis == 0) return g.idx(0, 1 + l1, k_begin + l2);
    if (axis == 1) return g.idx(1 + l1, 0, k_begin + l2);
    return g.idx(1 + l1, 1 + l2, 0);
  }
};

inline CcdLines ccd_lines(const Grid& g, int axis, ZRange zr) {
  if (axis < 0 || axis > 2) throw std::runtime_error("imle/ccd: axis " + std::to_string(axis) + " is not 0, 1 or 2");
  if (axis == 2 && (zr.k_begin != 1 || zr.k_end != g.nz + 1))
    throw std::runtime_error("imle/ccd: lines along z need every z-level (zr = the interior)");
  const int levels = zr.levels() > 0 ? zr.levels() : 0;
  switch (axis) {
    case 0: return {g, 0, zr.k_begin, g.nx, 1, g.ny, levels};
    case 1: return {g, 1, zr.k_begin, g.ny, g.sy(), g.nx, levels};
    default: return {g, 2, 1, g.nz, g.sz(), g.nx, g.ny};
  }
}
template <class T>
CcdLines ccd_lines(const CcdCall<T>& c) {
  return ccd_lines(c.grid, c.axis, c.zr);
}

// Grid spacing along an axis.
inline double axis_spacing(const Grid& g, int axis) { return axis == 0 ? g.dx() : axis == 1 ? g.dy() : g.dz(); }

// The work of one call: phi read once, d1 and d2 written once (3 words a cell; the factor, 12 words a
// row of one line shared by all lines, is cached and left out).
inline WorkModel ccd_model(const CcdLines& l, int elem_bytes) {
  const double points = double(l.count()) * l.n;
  return {points, 3.0 * elem_bytes * points, ccd_flops_per_point() * points};
}

}  // namespace nsb
