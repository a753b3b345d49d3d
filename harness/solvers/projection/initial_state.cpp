#include "projection/solver.hpp"

namespace nsb {

template <class T>
HostState<T> initial_state(const Case& c) {
  const Grid& g = c.grid;
  HostState<T> s;
  s.grid = g;
  const std::size_t n = g.padded_points();
  s.u.assign(n, T(0)), s.v.assign(n, T(0)), s.w.assign(n, T(0)), s.p.assign(n, T(0));
  const double dx = g.dx(), dy = g.dy(), dz = g.dz();
  // Staggered positions: u at (i dx, (j-1/2) dy, (k-1/2) dz), v and w likewise on their faces.
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) {
        const double xc = (i - 0.5) * dx, yc = (j - 0.5) * dy, zc = (k - 0.5) * dz;
        const std::size_t m = g.idx(i, j, k);
        s.u[m] = T(c.initial_velocity(0, i * dx, yc, zc));
        s.v[m] = T(c.initial_velocity(1, xc, j * dy, zc));
        s.w[m] = T(c.initial_velocity(2, xc, yc, k * dz));
        s.p[m] = T(c.initial_pressure(xc, yc, zc));
      }
  StageCall<T> call;
  call.grid = g;
  call.zr = ZRange::interior(g);
  call.bc = BoundaryRules<T>::make(c.bc);
  call.f.us = s.u.data(), call.f.vs = s.v.data(), call.f.ws = s.w.data(), call.f.p = s.p.data();
  Registry::instance().get(StageKind::velocity_bc, "cpu_serial").fn<T>()(call);
  Registry::instance().get(StageKind::pressure_bc, "cpu_serial").fn<T>()(call);
  return s;
}

template HostState<float> initial_state<float>(const Case&);
template HostState<double> initial_state<double>(const Case&);

}  // namespace nsb
