#include "projection/time_loop.hpp"

namespace nsb {

// Every point's values are its own (no sums): the loops run on every core, and the boundary conditions
// are the cpu_omp variants (the serial loops with the parallel region on, bit for bit the same). On a
// 512^3 grid the initial state was seconds of a GPU run on one core.
template <class T>
HostState<T> initial_state(const Case& c) {
  const Grid& g = c.grid;
  const std::size_t n = g.padded_points();
  std::vector<T> u(n, T(0)), v(n, T(0)), w(n, T(0)), p(n, T(0));
  const double dx = g.dx(), dy = g.dy(), dz = g.dz();
  // Staggered positions: u at (i dx, (j-1/2) dy, (k-1/2) dz), v and w likewise on their faces.
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) {
        const double xc = (i - 0.5) * dx, yc = (j - 0.5) * dy, zc = (k - 0.5) * dz;
        const std::size_t m = g.idx(i, j, k);
        u[m] = T(c.initial_velocity(0, i * dx, yc, zc));
        v[m] = T(c.initial_velocity(1, xc, j * dy, zc));
        w[m] = T(c.initial_velocity(2, xc, yc, k * dz));
        p[m] = T(c.initial_pressure(xc, yc, zc));
      }
  std::vector<T> solid;
  if (c.has_obstacles()) {
    const std::vector<double> flags = solid_flags(g, c.buildings);
    solid.assign(flags.begin(), flags.end());
    // No flow through a solid cell's faces (Eq. 3.4); the first step's obstacle logic does the rest.
    T* const vel[3] = {u.data(), v.data(), w.data()};
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < g.NZ() - 1; ++k)
      for (int j = 0; j < g.NY() - 1; ++j)
        for (int i = 0; i + 1 < g.NX(); ++i) {
          const std::size_t m = g.idx(i, j, k);
          const std::size_t next[3] = {g.idx(i + 1, j, k), g.idx(i, j + 1, k), g.idx(i, j, k + 1)};
          for (int a = 0; a < 3; ++a)
            if (solid[m] != T(0) || solid[next[a]] != T(0)) vel[a][m] = T(0);
        }
  }
  StageCall<T> call;
  call.grid = g;
  call.zr = ZRange::interior(g);
  call.bc = BoundaryRules<T>::make(c.bc);
  call.f.us = u.data(), call.f.vs = v.data(), call.f.ws = w.data(), call.f.p = p.data();
  call.exec = Exec{Backend::cpu_omp, 0};  // 0: every core
  Registry::instance().get("projection/velocity_bc", "cpu_omp").fn<StageCall<T>>()(call);
  Registry::instance().get("projection/pressure_bc", "cpu_omp").fn<StageCall<T>>()(call);
  HostState<T> s{g, {{"u", std::move(u)}, {"v", std::move(v)}, {"w", std::move(w)}, {"p", std::move(p)}}, 0, 0.0};
  if (!solid.empty()) s.fields.emplace_back("solid", std::move(solid));
  return s;
}

template HostState<float> initial_state<float>(const Case&);
template HostState<double> initial_state<double>(const Case&);

}  // namespace nsb
