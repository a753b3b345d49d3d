#include "projection/models.hpp"

#include <array>
#include <cmath>

#include "projection/boundary.hpp"
#include "projection/urban_formulas.hpp"
#include "op_count.hpp"

namespace nsb {
namespace {


struct CountedField {
  Counted operator()(int di, int dj, int dk) const { return Counted(1.0 + di + 2 * dj + 3 * dk); }
};

template <class F>
long count(F&& f) {
  Counted::ops = 0;
  f();
  return Counted::ops;
}

// Eddy: the diffusion with nu + nu_t (momentum_rhs_eddy).
template <bool Upwind, bool Eddy = false>
long momentum_flops(TimeScheme scheme) {
  const Counted inv_h[3] = {1.0, 1.0, 1.0};
  const Counted force[3] = {0.0, 0.0, 0.0};
  const MomentumCoef<Counted> c = momentum_coef_table<Counted>(inv_h, 0.1, 0.0, force).component(0);  // not counted
  const CountedField q;
  return count([&] {
    for (int comp = 0; comp < 3; ++comp) {
      Counted rhs;
      if constexpr (Eddy) rhs = momentum_rhs_eddy<Upwind>(q, q, q, q, c);
      else rhs = momentum_rhs<Upwind>(q, q, q, c);
      predictor_update<Counted>(1.0, rhs, 0.5, 0.01, scheme, false);
    }
  });
}

GridCoef<Counted> counted_coef() { return {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.1}; }

// Flags of a fluid point with one solid neighbour below (the common wall case: the sweeps' full
// arithmetic runs, the corner rule does not fire).
struct CountedFlags {
  Counted operator()(int di, int dj, int dk) const { return Counted(di == 0 && dj == -1 && dk == 0 ? 1.0 : 0.0); }
};

long obstacle_flops() {
  const CountedFlags flags;
  const CountedField q;
  const ObstacleSite s{{4, 4, 4}, {9, 9, 9}};
  return count([&] {
    for (int c = 0; c < 3; ++c) obstacle_final<Counted>(flags, q, c, s);
  });
}

}  // namespace

double flops_per_point(ProjectionStage s, TimeScheme scheme, bool upwind) {
  const CountedField q;
  switch (s) {
    case ProjectionStage::momentum: return double(upwind ? momentum_flops<true>(scheme) : momentum_flops<false>(scheme));
    case ProjectionStage::divergence: return double(count([&] { divergence_point(q, q, q, counted_coef()); }));
    case ProjectionStage::pressure:
      return double(count([&] { jacobi_point(q, Counted(1.0), Counted(2.0), counted_coef()); }));
    case ProjectionStage::correction:
      return 3.0 * double(count([&] { correction_point<Counted>(1.0, 2.0, 3.0, 0.1, 1.0); }));
    case ProjectionStage::reduce: return 3.0;  // subtract, square, accumulate: squared_difference plus the sum
    case ProjectionStage::obstacles: return double(obstacle_flops());  // per listed point
    default: return 0.0;                 // boundary conditions copy and negate
  }
}

WorkModel work_model(ProjectionStage s, const Grid& g, ZRange zr, int elem_bytes, TimeScheme scheme, bool upwind,
                     bool two_inputs) {
  WorkModel m;
  const double volume = double(g.nx) * g.ny * zr.levels();
  double words = 0;  // per point
  switch (s) {
    case ProjectionStage::momentum:  // read u v w, write u* v* w*; Adams-Bashforth also reads and rewrites h
      m.points = volume;
      words = scheme == TimeScheme::adams_bashforth2 ? 12 : 6;
      break;
    case ProjectionStage::divergence: m.points = volume; words = 4; break;   // read u* v* w*, write div
    case ProjectionStage::pressure: m.points = volume; words = 3; break;     // read p and div, write p_new
    case ProjectionStage::correction: m.points = volume; words = 7; break;   // read u* v* w* p, write u v w
    case ProjectionStage::reduce:
      m.points = double(g.interior_points());
      words = two_inputs ? 2 : 1;
      break;
    case ProjectionStage::velocity_bc:
    case ProjectionStage::pressure_bc: {
      // Every ghost value is one read of an interior value and one write (two per face line per side).
      const int fields = s == ProjectionStage::velocity_bc ? 3 : 1;
      double lines = 0;
      for (int axis = 0; axis < 3; ++axis) {
        int n1, n2;
        face_extent(g, axis, n1, n2);
        lines += double(n1) * n2;
      }
      m.points = lines * 2 * fields;
      words = 2;
      break;
    }
    default: break;
  }
  m.bytes = m.points * words * elem_bytes;
  m.flops = m.points * flops_per_point(s, scheme, upwind);
  return m;
}

double momentum_eddy_flops_per_point(TimeScheme scheme, bool upwind) {
  return double(upwind ? momentum_flops<true, true>(scheme) : momentum_flops<false, true>(scheme));
}

WorkModel momentum_eddy_work_model(const Grid& g, ZRange zr, int elem_bytes, TimeScheme scheme, bool upwind) {
  WorkModel m = work_model(ProjectionStage::momentum, g, zr, elem_bytes, scheme, upwind);
  m.bytes += m.points * elem_bytes;  // nut, read once
  m.flops = m.points * momentum_eddy_flops_per_point(scheme, upwind);
  return m;
}

WorkModel obstacles_work_model(double listed_points, int elem_bytes) {
  WorkModel m;
  m.points = listed_points;
  m.bytes = listed_points * 7 * elem_bytes;
  m.flops = listed_points * double(obstacle_flops());
  return m;
}

double masked_jacobi_flops_per_point() {
  const CountedField q;
  const Counted inv_h2[3] = {1.0, 1.0, 1.0};
  return double(count([&] { masked_jacobi_point<Counted>(q, [&](int, int, int) { return Counted(0.0); }, 1.0, 2.0, inv_h2); }));
}

double nu_turbulent_flops_per_point() {
  const CountedField vel[3];
  const Counted inv_h[3] = {1.0, 1.0, 1.0};
  return double(count([&] { smagorinsky_nu_t<Counted>(vel, inv_h, 0.01); }));
}

WorkModel masked_pressure_work_model(const Grid& g, ZRange zr, int elem_bytes) {
  WorkModel m;
  m.points = double(g.nx) * g.ny * zr.levels();
  m.bytes = m.points * 4 * elem_bytes;
  m.flops = m.points * masked_jacobi_flops_per_point();
  return m;
}

WorkModel nu_turbulent_work_model(const Grid& g, ZRange zr, int elem_bytes) {
  WorkModel m;
  m.points = double(g.nx) * g.ny * zr.levels();
  m.bytes = m.points * 4 * elem_bytes;
  m.flops = m.points * nu_turbulent_flops_per_point();
  return m;
}

}  // namespace nsb
