// Whole-point operations of the compute stages: what happens at one grid point (i, j, k) with padded
// index n, reading neighbours from global (or host) memory through the shared formulas. The CPU
// reference loops and the GPU global-memory traversals (1D and 2D thread blocks) both apply these,
// so those variants differ only in how they visit the points.
#pragma once

#include "accessors.hpp"
#include "projection/stage_call.hpp"

namespace nsb {

template <class T>
bool momentum_upwind(const StageCall<T>& c) {
  return c.prm.gamma != T(0);
}
template <class T, bool Upwind>
struct MomentumPoint;
// Calls f with the momentum point operation the call needs (with or without the upwind terms).
template <class T, class F>
void with_momentum_point(const StageCall<T>& c, F&& f) {
  if (momentum_upwind(c)) f(MomentumPoint<T, true>(c));
  else f(MomentumPoint<T, false>(c));
}

// Upwind: whether the advection has the upwind blend (gamma != 0); variants pick the instance with
// momentum_upwind(call) so the common central case carries none of its arithmetic.
template <class T, bool Upwind>
struct MomentumPoint {
  using value_type = T;
  static constexpr bool kUpwind = Upwind;
  Grid g;
  FieldPtrs<T> f;
  MomentumCoefTable<T> coefs;  // each component's MomentumCoef is formed from it where it is used
  T dt;
  TimeScheme scheme;
  bool first_step;

  explicit MomentumPoint(const StageCall<T>& c)
      : g(c.grid), f(c.f), coefs(c.prm.momentum_coefs()),
        dt(c.prm.dt), scheme(c.prm.scheme), first_step(c.prm.first_step) {}

  NSB_HD void operator()(int, int, int, std::size_t n) const {
    const auto u = point_at<T>(f.u, g, n), v = point_at<T>(f.v, g, n), w = point_at<T>(f.w, g, n);
    compute(n, u, v, w);
  }
  // The three components from any accessors (global memory, a shared tile, a z-marching ring).
  template <class AU, class AV, class AW>
  NSB_HD void compute(std::size_t n, const AU& u, const AV& v, const AW& w) const {
    const Rhs r = rhs(u, v, w);
    store(n, r.u, r.v, r.w, u(0, 0, 0), v(0, 0, 0), w(0, 0, 0));
  }
  // The right-hand sides alone, for a variant that computes several points before it stores any.
  struct Rhs {
    T u, v, w;
  };
  template <class AU, class AV, class AW>
  NSB_HD Rhs rhs(const AU& u, const AV& v, const AW& w) const {
    return {momentum_rhs<Upwind>(framed<0>(u), framed<0>(v), framed<0>(w), coefs.component(0)),
            momentum_rhs<Upwind>(framed<1>(v), framed<1>(w), framed<1>(u), coefs.component(1)),
            momentum_rhs<Upwind>(framed<2>(w), framed<2>(u), framed<2>(v), coefs.component(2))};
  }
  // The same for a walk up z that carries each component's z face from one level to the next
  // (momentum_rhs_carried): z is local direction 2 of u, 1 of v and 0 of w. zface: in, the lower z
  // faces of this point; out, its upper ones.
  template <class AU, class AV, class AW>
  NSB_HD void compute_carrying_z(std::size_t n, const AU& u, const AV& v, const AW& w, MomentumFace<T> (&zface)[3]) const {
    const T ru = momentum_rhs_carried<Upwind, 2>(framed<0>(u), framed<0>(v), framed<0>(w), coefs.component(0), zface[0]);
    const T rv = momentum_rhs_carried<Upwind, 1>(framed<1>(v), framed<1>(w), framed<1>(u), coefs.component(1), zface[1]);
    const T rw = momentum_rhs_carried<Upwind, 0>(framed<2>(w), framed<2>(u), framed<2>(v), coefs.component(2), zface[2]);
    store(n, ru, rv, rw, u(0, 0, 0), v(0, 0, 0), w(0, 0, 0));
  }
  // The lower z faces of the point where such a walk starts.
  template <class AU, class AV, class AW>
  NSB_HD void lower_z_faces(const AU& u, const AV& v, const AW& w, MomentumFace<T> (&zface)[3]) const {
    zface[0] = momentum_face_of<Upwind, 2>(framed<0>(u), framed<0>(v), framed<0>(w), coefs.component(0), -1);
    zface[1] = momentum_face_of<Upwind, 1>(framed<1>(v), framed<1>(w), framed<1>(u), coefs.component(1), -1);
    zface[2] = momentum_face_of<Upwind, 0>(framed<2>(w), framed<2>(u), framed<2>(v), coefs.component(2), -1);
  }
  // The time update and the Adams-Bashforth history, shared with the tiled variants.
  NSB_HD void store(std::size_t n, T ru, T rv, T rw, T u0, T v0, T w0) const {
    if (scheme == TimeScheme::adams_bashforth2) update_ab2(n, Rhs{ru, rv, rw}, u0, v0, w0, {f.hu[n], f.hv[n], f.hw[n]});
    else update_euler(n, Rhs{ru, rv, rw}, u0, v0, w0);
  }
  // The previous right-hand sides Adams-Bashforth needs (none for Euler), for a variant that reads them
  // before it computes the point so that their loads are in flight during the arithmetic (the ring
  // walks, shared_ring.cuh); it stores with the overload below.
  struct History {
    T u{}, v{}, w{};
  };
  NSB_HD History history(std::size_t n) const {
    if (scheme != TimeScheme::adams_bashforth2) return {};
    return {f.hu[n], f.hv[n], f.hw[n]};
  }
  NSB_HD void store(std::size_t n, const Rhs& r, T u0, T v0, T w0, const History& old) const {
    if (scheme == TimeScheme::adams_bashforth2) update_ab2(n, r, u0, v0, w0, old);
    else update_euler(n, r, u0, v0, w0);
  }

 private:
  NSB_HD void update_ab2(std::size_t n, const Rhs& r, T u0, T v0, T w0, const History& old) const {
    f.us[n] = predictor_update(u0, r.u, old.u, dt, scheme, first_step);
    f.vs[n] = predictor_update(v0, r.v, old.v, dt, scheme, first_step);
    f.ws[n] = predictor_update(w0, r.w, old.w, dt, scheme, first_step);
    f.hu[n] = r.u;
    f.hv[n] = r.v;
    f.hw[n] = r.w;
  }
  NSB_HD void update_euler(std::size_t n, const Rhs& r, T u0, T v0, T w0) const {
    f.us[n] = predictor_update(u0, r.u, T(0), dt, scheme, true);
    f.vs[n] = predictor_update(v0, r.v, T(0), dt, scheme, true);
    f.ws[n] = predictor_update(w0, r.w, T(0), dt, scheme, true);
  }
};

// Momentum with the eddy viscosity nut (cell centres) added to nu: momentum_rhs_eddy, the same time
// update. The variants that take it are tagged viscosity=eddy and call with_eddy_momentum_point.
template <class T, bool Upwind>
struct EddyMomentumPoint : MomentumPoint<T, Upwind> {
  using Base = MomentumPoint<T, Upwind>;
  explicit EddyMomentumPoint(const StageCall<T>& c) : Base(c) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    const Grid& grid = this->g;
    const FieldPtrs<T>& p = this->f;
    const auto u = point_at<T>(p.u, grid, n), v = point_at<T>(p.v, grid, n), w = point_at<T>(p.w, grid, n);
    const auto nut = point_at<T>(p.nut, grid, n);
    const MomentumCoefTable<T>& k = this->coefs;
    const T ru = momentum_rhs_eddy<Upwind>(framed<0>(u), framed<0>(v), framed<0>(w), framed<0>(nut), k.component(0));
    const T rv = momentum_rhs_eddy<Upwind>(framed<1>(v), framed<1>(w), framed<1>(u), framed<1>(nut), k.component(1));
    const T rw = momentum_rhs_eddy<Upwind>(framed<2>(w), framed<2>(u), framed<2>(v), framed<2>(nut), k.component(2));
    this->store(n, ru, rv, rw, u(0, 0, 0), v(0, 0, 0), w(0, 0, 0));
  }
};
// with_momentum_point, or the eddy form where the call carries nut (a turbulent run, or verify's
// `eddy` workload).
template <class T, class F>
void with_eddy_momentum_point(const StageCall<T>& c, F&& f) {
  if (!c.f.nut) return with_momentum_point(c, f);
  if (momentum_upwind(c)) f(EddyMomentumPoint<T, true>(c));
  else f(EddyMomentumPoint<T, false>(c));
}

template <class T>
struct DivergencePoint {
  static constexpr int kZloopUnroll = 2;
  Grid g;
  FieldPtrs<T> f;
  GridCoef<T> coef;
  explicit DivergencePoint(const StageCall<T>& c) : g(c.grid), f(c.f), coef(c.prm.coef) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    f.div[n] = divergence_point(point_at<T>(f.us, g, n), point_at<T>(f.vs, g, n), point_at<T>(f.ws, g, n), coef);
  }
};

template <class T>
struct JacobiPoint {
  static constexpr int kZloopUnroll = 4;  // 12 bytes and 11 flops a point: needs loads in flight
  Grid g;
  const T* p;
  const T* div;
  T* p_new;
  T dti;
  GridCoef<T> coef;
  explicit JacobiPoint(const StageCall<T>& c)
      : g(c.grid), p(c.f.p), div(c.f.div), p_new(c.f.p_new), dti(T(1) / c.prm.dt), coef(c.prm.coef) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    p_new[n] = jacobi_point(point_at<T>(p, g, n), read_only(div + n), dti, coef);
  }
};

template <class T>
struct CorrectionPoint {
  static constexpr int kZloopUnroll = 2;
  Grid g;
  FieldPtrs<T> f;
  T dt;
  GridCoef<T> coef;
  explicit CorrectionPoint(const StageCall<T>& c) : g(c.grid), f(c.f), dt(c.prm.dt), coef(c.prm.coef) {}
  NSB_HD void operator()(int, int, int, std::size_t n) const {
    // All loads before the stores: the fields are distinct, but the compiler cannot know that.
    const auto p = point_at<T>(f.p, g, n);
    const T p0 = p(0, 0, 0), px = p(1, 0, 0), py = p(0, 1, 0), pz = p(0, 0, 1);
    const T u = f.us[n], v = f.vs[n], w = f.ws[n];
    f.us[n] = correction_point(u, p0, px, dt, coef.dxi);
    f.vs[n] = correction_point(v, p0, py, dt, coef.dyi);
    f.ws[n] = correction_point(w, p0, pz, dt, coef.dzi);
  }
};

// Boundary sweeps: one face line (both sides of one axis at one tangential position).
template <class T>
struct VelocityBcLine {
  Grid g;
  BoundaryRules<T> r;
  T* vel[3];
  const T* old[3];  // the step's start (u v w), which a convective outflow convects
  explicit VelocityBcLine(const StageCall<T>& c)
      : g(c.grid), r(c.bc), vel{c.f.us, c.f.vs, c.f.ws}, old{c.f.u, c.f.v, c.f.w} {}
  NSB_HD void operator()(int axis, int t1, int t2) const { velocity_bc_line(vel, old, g, r, axis, t1, t2); }
};

template <class T>
struct PressureBcLine {
  Grid g;
  BoundaryRules<T> r;
  T* p;
  explicit PressureBcLine(const StageCall<T>& c) : g(c.grid), r(c.bc), p(c.f.p) {}
  NSB_HD void operator()(int axis, int t1, int t2) const { pressure_bc_line(p, g, r, axis, t1, t2); }
};

}  // namespace nsb
