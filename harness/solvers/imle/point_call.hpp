// The call of the IMLE solver's pointwise stage kinds, imle/predict, imle/move, imle/ppe_rhs and
// imle/correct (what each reads and writes: point_formulas.hpp). Every variant updates the interior
// cells of z-levels zr and writes nothing else.
#pragma once

#include "grid.hpp"
#include "imle/point_formulas.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"

namespace nsb {

template <class T>
struct ImlePointCall {
  using value_type = T;
  Grid grid;
  ZRange zr;
  const T* in[4] = {nullptr, nullptr, nullptr, nullptr};
  T* out[3] = {nullptr, nullptr, nullptr};
  T coef = 0;
  Tuning tuning;
  Exec exec;
};

template <class T>
ImlePointArgs<T> point_args(const ImlePointCall<T>& c) {
  const Grid& g = c.grid;
  return {g, {c.in[0], c.in[1], c.in[2], c.in[3]}, {c.out[0], c.out[1], c.out[2]}, c.coef,
          {T(1 / g.dx()), T(1 / g.dy()), T(1 / g.dz())}};
}

// Words each kind reads and writes a point, once each (ppe_rhs's neighbours are re-reads of the same
// arrays, which caches serve).
inline int imle_point_words(ImlePoint s) {
  switch (s) {
    case ImlePoint::predict: return 5;
    case ImlePoint::move: return 6;
    case ImlePoint::ppe_rhs: return 4;
    default: return 3;
  }
}

inline WorkModel imle_point_model(ImlePoint s, const Grid& g, ZRange zr, int elem_bytes) {
  const double points = double(g.nx) * g.ny * (zr.levels() > 0 ? zr.levels() : 0);
  return {points, double(imle_point_words(s)) * elem_bytes * points, imle_point_flops(s) * points};
}

}  // namespace nsb
