// Flops of the IMLE stages, counted by running their formulas on an operation-counting number type,
// so the counts follow the formulas (the projection solver counts its own the same way,
// projection/models.cpp).
#include <cmath>
#include <vector>

#include "imle/ccd_formulas.hpp"
#include "imle/mls_formulas.hpp"
#include "imle/point_formulas.hpp"
#include "op_count.hpp"

namespace nsb {
namespace {


template <class F>
long count(F&& f) {
  Counted::ops = 0;
  f();
  return Counted::ops;
}

}  // namespace

// An interior row: its right-hand side, forward and backward steps and the two scalings (the 1/h
// factors are formed once a line).
double ccd_flops_per_point() {
  const Counted factor[kCcdFactorWords] = {};
  return double(count([&] {
    Counted r0, r1, y0 = 0.0, y1 = 0.0, x0 = 0.0, x1 = 0.0;
    ccd_rhs<Counted>(1, 5, CcdBc::dirichlet, 1.0, 2.0, 3.0, r0, r1);
    ccd_forward<Counted>(factor, r0, r1, y0, y1);
    ccd_backward<Counted>(factor, y0, y1, x0, x1);
    x0 = x0 * 10.0, x1 = x1 * 100.0;
  }));
}

// The middle cell of a 3^3 grid, every neighbour a particle that has not moved (all 27 weigh).
double mls_flops_per_point() {
  const Grid g{3, 3, 3, 3.0, 3.0, 3.0};
  std::vector<Counted> zero(g.padded_points(), Counted(0.0)), one(g.padded_points(), Counted(1.0));
  std::vector<Counted> out(g.padded_points());
  const MlsArgs<Counted> a{g,
                           2,
                           3,
                           {zero.data(), zero.data(), zero.data()},
                           {one.data(), one.data(), one.data()},
                           {out.data(), out.data(), out.data()},
                           {1.0, 1.0, 1.0},
                           1 / kMlsSupport};
  return double(count([&] { mls_cell(a, 2, 2, 2); }));
}

// An interior point of a 3^3 grid.
double imle_point_flops(ImlePoint s) {
  const Grid g{3, 3, 3, 3.0, 3.0, 3.0};
  std::vector<Counted> in(g.padded_points(), Counted(1.0)), out(g.padded_points());
  const ImlePointArgs<Counted> a{g, {in.data(), in.data(), in.data(), in.data()}, {out.data(), out.data(), out.data()},
                                 0.5, {1.0, 1.0, 1.0}};
  const std::size_t n = g.idx(2, 2, 2);
  return double(count([&] {
    switch (s) {
      case ImlePoint::predict: imle_point<ImlePoint::predict>(a, 2, 2, 2, n); break;
      case ImlePoint::move: imle_point<ImlePoint::move>(a, 2, 2, 2, n); break;
      case ImlePoint::ppe_rhs: imle_point<ImlePoint::ppe_rhs>(a, 2, 2, 2, n); break;
      case ImlePoint::correct: imle_point<ImlePoint::correct>(a, 2, 2, 2, n); break;
    }
  }));
}

}  // namespace nsb
