// Whole-point operations of the urban stages (obstacle logic, masked Jacobi sweep, eddy viscosity),
// applying urban_formulas.hpp at one point (i, j, k) with padded index n. The CPU reference and the GPU
// variants both apply these; variants differ in which points they visit and how many passes they make.
#pragma once

#include <cstdint>
#include <vector>

#include "accessors.hpp"
#include "projection/stage_call.hpp"
#include "projection/urban_formulas.hpp"

namespace nsb {

// Padded position of index n.
NSB_HD inline ObstacleSite obstacle_site(const Grid& g, std::size_t n) {
  const std::size_t row = n / std::size_t(g.NX());
  return ObstacleSite::at(g, int(n % std::size_t(g.NX())), int(row % std::size_t(g.NY())), int(row / std::size_t(g.NY())));
}

// Thesis kernel obstacles_zero_mask (Eq. 3.4), in place on us vs ws; every padded point (pointwise, so
// in place is the thesis's two-buffer kernel).
template <class T>
struct ObstacleMaskPoint {
  Grid g;
  FieldPtrs<T> f;
  explicit ObstacleMaskPoint(const StageCall<T>& c) : g(c.grid), f(c.f) {}
  NSB_HD void operator()(int i, int j, int k, std::size_t n) const {
    const ObstacleSite s = ObstacleSite::at(g, i, j, k);
    const auto flags = point_at<T>(f.solid, g, n);
    T* const vel[3] = {f.us, f.vs, f.ws};
    for (int c = 0; c < 3; ++c) {
      const PointAt<T> q{vel[c] + n, g.sy(), g.sz()};
      vel[c][n] = obstacle_masked<T>(flags, q, c, Offset{{0, 0, 0}}, s);
    }
  }
};

// Thesis kernels obstacles_sweep_uvw_kii / _jkj (Eqs. 3.6-3.8): each component swept along its
// direction of that pass, from src into dst. kii runs on every padded point (the jkj pass reads its
// ghost values), jkj on the interior.
template <class T, bool Kii>
struct ObstacleSweepPoint {
  Grid g;
  const T* solid;
  const T* src[3];
  T* dst[3];
  ObstacleSweepPoint(const StageCall<T>& c, const FieldPtrs<T>& from, const FieldPtrs<T>& to)
      : g(c.grid), solid(c.f.solid), src{from.us, from.vs, from.ws}, dst{to.us, to.vs, to.ws} {}
  NSB_HD void operator()(int i, int j, int k, std::size_t n) const {
    const ObstacleSite s = ObstacleSite::at(g, i, j, k);
    const auto flags = point_at<T>(solid, g, n);
    for (int c = 0; c < 3; ++c) {
      const auto q = point_at<T>(src[c], g, n);
      const int d = Kii ? obstacle_sweep_dir_kii(c) : obstacle_sweep_dir_jkj(c);
      dst[c][n] = obstacle_swept<T>(flags, FieldSource<decltype(q)>{q}, d, Offset{{0, 0, 0}}, s);
    }
  }
};

// Thesis kernel obstacles_corners (Eqs. 3.9-3.11), in place on us vs ws; interior points.
template <class T>
struct ObstacleCornerPoint {
  Grid g;
  FieldPtrs<T> f;
  explicit ObstacleCornerPoint(const StageCall<T>& c) : g(c.grid), f(c.f) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    const auto flags = point_at<T>(f.solid, g, n);
    T* const vel[3] = {f.us, f.vs, f.ws};
    for (int c = 0; c < 3; ++c)
      if (obstacle_corner<T>(flags, c)) vel[c][n] = T(0);
  }
};

// All four thesis kernels at one point (obstacle_final), from us vs ws into three outputs: written
// elsewhere than its input, since a point's result reads its neighbours' unmodified values.
template <class T>
struct ObstacleFusedPoint {
  Grid g;
  FieldPtrs<T> f;
  explicit ObstacleFusedPoint(const StageCall<T>& c) : g(c.grid), f(c.f) {}
  struct Result {
    T u, v, w;
  };
  NSB_HD Result compute(int i, int j, int k, std::size_t n) const {
    const ObstacleSite s = ObstacleSite::at(g, i, j, k);
    const auto flags = point_at<T>(f.solid, g, n);
    return {obstacle_final<T>(flags, point_at<T>(f.us, g, n), 0, s),
            obstacle_final<T>(flags, point_at<T>(f.vs, g, n), 1, s),
            obstacle_final<T>(flags, point_at<T>(f.ws, g, n), 2, s)};
  }
  // The result at padded point n into slot m of the workspace (m = n for a whole-grid pass).
  NSB_HD void operator()(int i, int j, int k, std::size_t n, std::size_t m) const {
    const Result r = compute(i, j, k, n);
    f.ut[m] = r.u, f.vt[m] = r.v, f.wt[m] = r.w;
  }
};

// Eq. 3.3 at one point: the masked Jacobi sweep (p_new from p, div and the flags).
template <class T>
struct MaskedJacobiPoint {
  static constexpr int kZloopUnroll = 4;
  Grid g;
  const T* p;
  const T* div;
  const T* solid;
  T* p_new;
  T dti;
  T inv_h2[3];
  explicit MaskedJacobiPoint(const StageCall<T>& c)
      : g(c.grid), p(c.f.p), div(c.f.div), solid(c.f.solid), p_new(c.f.p_new), dti(T(1) / c.prm.dt),
        inv_h2{c.prm.coef.dxi2, c.prm.coef.dyi2, c.prm.coef.dzi2} {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    p_new[n] = masked_jacobi_point(point_at<T>(p, g, n), point_at<T>(solid, g, n), read_only(div + n), dti, inv_h2);
  }
};

// Smagorinsky eddy viscosity at one cell centre from u v w.
template <class T>
struct NuTurbulentPoint {
  Grid g;
  FieldPtrs<T> f;
  T inv_h[3];
  T cs_delta2;
  explicit NuTurbulentPoint(const StageCall<T>& c)
      : g(c.grid), f(c.f), inv_h{c.prm.coef.dxi, c.prm.coef.dyi, c.prm.coef.dzi}, cs_delta2(c.prm.cs_delta2) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    using A = ReadOnlyAt<T>;
    const A vel[3] = {point_at<T>(f.u, g, n), point_at<T>(f.v, g, n), point_at<T>(f.w, g, n)};
    f.nut[n] = smagorinsky_nu_t(vel, inv_h, cs_delta2);
  }
};

// The padded points the obstacle logic may change: those with a solid cell in the 3x3x3 block around
// them (clipped to the array). Every sub-step's stencil lies in that block, and with no solid cell in
// it every sub-step returns its input unchanged (urban_formulas.hpp).
template <class T>
std::vector<std::uint32_t> obstacle_cell_list(const Grid& g, const std::vector<T>& solid) {
  std::vector<std::uint32_t> out;
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) {
        bool near = false;
        for (int dk = -1; dk <= 1 && !near; ++dk)
          for (int dj = -1; dj <= 1 && !near; ++dj)
            for (int di = -1; di <= 1 && !near; ++di) {
              const int a = i + di, b = j + dj, e = k + dk;
              if (a < 0 || b < 0 || e < 0 || a >= g.NX() || b >= g.NY() || e >= g.NZ()) continue;
              near = solid[g.idx(a, b, e)] != T(0);
            }
        if (near) out.push_back(std::uint32_t(g.idx(i, j, k)));
      }
  return out;
}

}  // namespace nsb
