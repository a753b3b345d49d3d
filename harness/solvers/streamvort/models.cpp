// Flops of the streamvort and ogrid ops, counted by running the shared formulas (formulas.hpp) once
// on a number type that counts the arithmetic done on it, so the counts follow the formulas.
#include "grid2d/stage_call.hpp"
#include "op_count.hpp"

namespace nsb {
namespace {


struct CountedField {
  Counted operator()(int di, int dj) const { return Counted(1.0 + di + 3 * dj); }
  bool has(int, int) const { return true; }  // as the nodes two away of 2nd-order upwinding (Reach2)
};

template <class F>
double count(F&& f) {
  Counted::ops = 0;
  f();
  return double(Counted::ops);
}

}  // namespace

double grid_sweep_flops() {
  return count([] {
    Counted xn, yn;
    grid_point(CountedField{}, CountedField{}, Counted(0.1), Counted(0.2), Counted(1.0), xn, yn);
  });
}
double stream_flops() {
  return count([] {
    Counted out;
    stream_point(CountedField{}, Counted(1), Counted(1), Counted(0.1), Counted(1), Counted(0.1), Counted(0.1),
                 Counted(1), out);
  });
}
// Both axes convection-dominated (cell Peclet > 2 on this field), so the scheme's upwind branch is counted.
double vorticity_flops(Convection scheme) {
  return count([scheme] {
    vorticity_point(CountedField{}, CountedField{}, CountedField{}, scheme, Counted(1), Counted(0.1), Counted(1),
                    Counted(0.1), Counted(0.1), Counted(1), Counted(0.01), Counted(0.001));
  });
}

double turbulent_vorticity_flops() {
  return count([] {
    turbulent_vorticity_point(CountedField{}, CountedField{}, CountedField{}, CountedField{}, Convection::hybrid,
                              Counted(1), Counted(0.1), Counted(1), Counted(0.1), Counted(0.1), Counted(1), Counted(0.001));
  });
}
// A node's share of both walks: F and the speed (first), the damping again, both branches (second).
double turbulence_flops() {
  return count([] {
    const Counted y(0.01), w(2), u_tau(0.05), nu(1e-5);
    const Counted f = y * w * van_driest(y, u_tau, nu);
    speed(CountedField{}, Counted(1), Counted(0.1), Counted(1));
    bl_inner(y, w, van_driest(y, u_tau, nu));
    bl_outer(y, f, Counted(0.5));
  });
}

}  // namespace nsb
