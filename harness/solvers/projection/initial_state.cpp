#include "projection/time_loop.hpp"

namespace nsb {

namespace {

// The padded z planes [first, last] of the whole grid's initial state, each value as the whole build's
// (initial_state: the window 0 .. nz + 1): the case's values at each point, no flow through a solid cell's
// faces, then the ghost rules. Every point's values are its own (no sums): the loops run on every core, and the
// boundary conditions are the cpu_omp variants (the serial loops with the parallel region on, bit for bit the
// same). On a 512^3 grid the initial state was seconds of a GPU run on one core.
// A window short of a z face leaves that face alone (FaceType::neighbour), so its end planes are not the whole
// build's: initial_slab keeps a margin of one plane each side. The x and y faces' rules read along x and y
// only, so a plane gets them as in the whole build; a periodic z's ghost plane is the plane it copies, so a
// window that holds it without the opposite side takes that plane's values.
template <class T>
HostState<T> initial_planes(const Case& c, int first, int last) {
  const Grid& g = c.grid;
  const bool whole = first == 0 && last == g.NZ() - 1;
  Grid win = g;  // the window's planes, 0 .. last - first
  if (!whole) win.nz = last - first - 1, win.lz = g.lz / g.nz * win.nz;
  const bool periodic = c.bc.periodic(2);
  auto source_plane = [&](int k) {  // the whole grid's plane whose values window plane k holds
    const int kg = first + k;
    return periodic && kg == 0 ? g.nz : periodic && kg == g.nz + 1 ? 1 : kg;
  };
  const std::size_t n = win.padded_points();
  std::vector<T> u(n, T(0)), v(n, T(0)), w(n, T(0)), p(n, T(0));
  const double dx = g.dx(), dy = g.dy(), dz = g.dz();
  // Staggered positions: u at (i dx, (j-1/2) dy, (k-1/2) dz), v and w likewise on their faces.
#pragma omp parallel for collapse(2) schedule(static)
  for (int k = 0; k < win.NZ(); ++k)
    for (int j = 0; j < win.NY(); ++j)
      for (int i = 0; i < win.NX(); ++i) {
        const int kg = source_plane(k);
        const double xc = (i - 0.5) * dx, yc = (j - 0.5) * dy, zc = (kg - 0.5) * dz;
        const std::size_t m = win.idx(i, j, k);
        u[m] = T(c.initial_velocity(0, i * dx, yc, zc));
        v[m] = T(c.initial_velocity(1, xc, j * dy, zc));
        w[m] = T(c.initial_velocity(2, xc, yc, kg * dz));
        p[m] = T(c.initial_pressure(xc, yc, zc));
      }
  std::vector<T> solid;
  if (c.has_obstacles()) {
    const std::vector<double> flags = solid_flags(g, c.buildings, first, last);
    solid.assign(flags.begin(), flags.end());
    // No flow through a solid cell's faces (Eq. 3.4); the first step's obstacle logic does the rest.
    T* const vel[3] = {u.data(), v.data(), w.data()};
    const int last_plane = std::min(win.NZ() - 1, g.NZ() - 1 - first);  // the whole build's k < NZ - 1, in the window
#pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < last_plane; ++k)
      for (int j = 0; j < win.NY() - 1; ++j)
        for (int i = 0; i + 1 < win.NX(); ++i) {
          const std::size_t m = win.idx(i, j, k);
          const std::size_t next[3] = {win.idx(i + 1, j, k), win.idx(i, j + 1, k), win.idx(i, j, k + 1)};
          for (int a = 0; a < 3; ++a)
            if (solid[m] != T(0) || solid[next[a]] != T(0)) vel[a][m] = T(0);
        }
  }
  BoundarySpec bc = c.bc;
  if (!whole && (periodic || first > 0)) bc.face[2][0].type = FaceType::neighbour;
  if (!whole && (periodic || last < g.NZ() - 1)) bc.face[2][1].type = FaceType::neighbour;
  StageCall<T> call;
  call.grid = win;
  call.zr = ZRange::interior(win);
  call.bc = BoundaryRules<T>::make(bc);
  call.f.us = u.data(), call.f.vs = v.data(), call.f.ws = w.data(), call.f.p = p.data();
  call.exec = Exec{Backend::cpu_omp, 0};  // 0: every core
  Registry::instance().get("projection/velocity_bc", "cpu_omp").fn<StageCall<T>>()(call);
  Registry::instance().get("projection/pressure_bc", "cpu_omp").fn<StageCall<T>>()(call);
  HostState<T> s{win, {{"u", std::move(u)}, {"v", std::move(v)}, {"w", std::move(w)}, {"p", std::move(p)}}, 0, 0.0};
  if (!solid.empty()) s.fields.emplace_back("solid", std::move(solid));
  return s;
}

}  // namespace

template <class T>
HostState<T> initial_state(const Case& c) {
  return initial_planes<T>(c, 0, c.grid.NZ() - 1);
}

template <class T>
HostState<T> initial_slab(const Case& c, const Slab& s) {
  if (s.ny > 0) throw std::logic_error("initial_slab: the projection solver's slabs are z-slabs, not rows");
  const Grid& g = c.grid;
  // The slab's planes z_begin - 1 .. z_begin + nz (scatter_slab's), within a margin of one plane each side: the
  // ghost rules of a z face write its ghost plane and, for a wall's normal velocity, plane nz; the obstacle rule
  // of a plane reads the next plane's flags.
  const int first = std::max(0, s.z_begin - 2), last = std::min(g.NZ() - 1, s.z_begin + s.nz + 1);
  HostState<T> window = initial_planes<T>(c, first, last);
  HostState<T> out{slab_grid(g, s), {}, 0, 0.0};
  const std::size_t plane = plane_elems(g), offset = plane * std::size_t(s.z_begin - 1 - first);
  for (auto& [name, values] : window.fields) {  // cut in place: no second copy of a field (at most 2 planes spare)
    values.erase(values.begin(), values.begin() + std::ptrdiff_t(offset));
    values.resize(plane * std::size_t(s.nz + 2));
    out.fields.emplace_back(name, std::move(values));
  }
  return out;
}

template HostState<float> initial_state<float>(const Case&);
template HostState<double> initial_state<double>(const Case&);
template HostState<float> initial_slab<float>(const Case&, const Slab&);
template HostState<double> initial_slab<double>(const Case&, const Slab&);

}  // namespace nsb
