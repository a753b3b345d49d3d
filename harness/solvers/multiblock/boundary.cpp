#include "multiblock/boundary.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace nsb {

double mb_free_stream(int v) {
  switch (v) {
    case kRho: return 1;
    case kRu: return mbc::mach;
    case kRv: return 0;
    case kE: return mbc::t_inf / (mbc::gamma - 1) + 0.5 * mbc::mach * mbc::mach;  // p / (gamma - 1) + rho u^2 / 2
    case kRk: return mbc::k_inf;
    case kRw: return mbc::omega_inf;
    default: return 0;
  }
}

template <class T>
void mb_interface_sum(const MbMesh& m, const MbArrays<T>& a) {
  const std::size_t plane = std::size_t(m.grid.NX()) * m.grid.NY();
  for (int v = kRes0; v <= kRes5; ++v) {
    T* f = a.f[v];
    for (const auto& grp : m.shared) {
      if (!mb_is_fluid(int(grp[0] / plane) - 1)) continue;  // the changes are the fluid's (solid groups: solid only)
      T sum = 0;
      for (std::uint32_t c : grp) sum += f[c];
      for (std::uint32_t c : grp) f[c] = sum;
    }
  }
}

namespace {

double distance(const MbMesh& m, std::uint32_t p, std::uint32_t q) { return std::hypot(m.x[p] - m.x[q], m.y[p] - m.y[q]); }

template <class T>
void wall_and_interface(const MbMesh& m, const MbArrays<T>& a) {
  const double k_fluid = mbc::mu_inf / mbc::prandtl * mbc::gamma / (mbc::gamma - 1);
  const double k_solid = kMbSolidConductivityRatio * k_fluid;
  for (std::size_t w = 0; w < m.wall.size(); ++w) {
    const MbMesh::BoundaryNode& f = m.wall[w];
    const MbMesh::BoundaryNode& s = m.solid_interface[w];
    const double t_fluid = double(mb_pressure_at(a, f.inner) / a.f[kRho][f.inner]);
    const double t_solid = double(a.f[kTs][s.inner]);
    const double gf = k_fluid / distance(m, f.node, f.inner), gs = k_solid / distance(m, s.node, s.inner);
    const double t_wall = (gs * t_solid + gf * t_fluid) / (gs + gf);
    a.f[kTs][s.node] = T(t_wall);
    const T rho = a.f[kRho][f.node];
    a.f[kRu][f.node] = T(0), a.f[kRv][f.node] = T(0), a.f[kRk][f.node] = T(0);
    a.f[kRw][f.node] = rho * T(mbc::omega_wall);
    a.f[kE][f.node] = rho * T(t_wall / (mbc::gamma - 1));  // p = rho T, no kinetic energy
  }
}

}  // namespace

template <class T>
void mb_boundary_conditions(const MbMesh& m, const MbArrays<T>& a) {
  for (const MbMesh::BoundaryNode& f : m.far_field)
    for (int v = kRho; v <= kRw; ++v) a.f[v][f.node] = T(mb_free_stream(v));
  wall_and_interface(m, a);
  const int fields[] = {kRho, kRu, kRv, kE, kRk, kRw, kTs};
  for (int v : fields) {
    T* f = a.f[v];
    for (const auto& grp : m.shared)
      for (std::size_t c = 1; c < grp.size(); ++c) f[grp[c]] = f[grp[0]];
    for (std::size_t g = 0; g < m.ghost.size(); ++g) f[m.ghost[g]] = f[m.ghost_source[g]];
    for (const auto* list : {&m.wall, &m.far_field, &m.solid_interface})
      for (const MbMesh::BoundaryNode& b : *list) f[b.ghost] = T(2) * f[b.node] - f[b.inner];
  }
}

namespace {

// The nodes (before the routine) a node's value after the routine's steps so far depends on; a node not in
// the map is still its own value.
class Reads {
 public:
  std::vector<std::uint32_t> of(std::uint32_t n) const {
    const auto it = map_.find(n);
    return it == map_.end() ? std::vector<std::uint32_t>{n} : it->second;
  }
  void set(std::uint32_t n, std::vector<std::uint32_t> from) { map_[n] = std::move(from); }
  MbNodeSets of_each(const MbNodeSets& sets) const {
    MbNodeSets out;
    for (const auto& s : sets) out.push_back(of_all(s));
    return out;
  }
  std::vector<std::uint32_t> of_all(const std::vector<std::uint32_t>& nodes) const {
    std::vector<std::uint32_t> out;
    for (std::uint32_t n : nodes) {
      const std::vector<std::uint32_t> r = of(n);
      out.insert(out.end(), r.begin(), r.end());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

 private:
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> map_;
};

}  // namespace

MbNodeSets mb_interface_sum_reads(const MbMesh& m, const MbNodeSets& nodes) {
  const std::size_t plane = std::size_t(m.grid.NX()) * m.grid.NY();
  Reads r;
  for (const auto& grp : m.shared)
    if (mb_is_fluid(int(grp[0] / plane) - 1))
      for (std::uint32_t c : grp) r.set(c, grp);
  return r.of_each(nodes);
}

// In mb_boundary_conditions' order: far field (constants), wall and interface, shared copies, ghosts.
MbNodeSets mb_boundary_conditions_reads(const MbMesh& m, const MbNodeSets& nodes) {
  Reads r;
  for (const MbMesh::BoundaryNode& f : m.far_field) r.set(f.node, {});
  for (std::size_t w = 0; w < m.wall.size(); ++w) {
    const MbMesh::BoundaryNode &f = m.wall[w], &s = m.solid_interface[w];
    r.set(f.node, {f.node, f.inner, s.inner});
    r.set(s.node, {f.node, f.inner, s.inner});
  }
  for (const auto& grp : m.shared)
    for (std::size_t c = 1; c < grp.size(); ++c) r.set(grp[c], r.of(grp[0]));
  for (std::size_t g = 0; g < m.ghost.size(); ++g) r.set(m.ghost[g], r.of(m.ghost_source[g]));
  for (const auto* list : {&m.wall, &m.far_field, &m.solid_interface})
    for (const MbMesh::BoundaryNode& b : *list) r.set(b.ghost, r.of_all({b.node, b.inner}));
  return r.of_each(nodes);
}

template <class T>
HostState<T> mb_initial_state(const MbMesh& m) {
  const std::size_t np = m.grid.padded_points();
  HostState<T> s{m.grid, {}, 0, 0};
  MbArrays<T> a{};
  const int state[] = {kRho, kRu, kRv, kE, kRk, kRw, kTs};
  for (int f : state) s.fields.emplace_back(kMbFieldNames[f], std::vector<T>(np, T(0)));
  for (int f : state) a.f[f] = s.field(kMbFieldNames[f]).data();
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 0; j <= m.n + 1; ++j)
      for (int i = 0; i <= m.n + 1; ++i) {
        const std::size_t n = mb_idx(m.grid, b, i, j);
        if (mb_is_fluid(b))
          for (int v = kRho; v <= kRw; ++v) a.f[v][n] = T(mb_free_stream(v));
        else
          a.f[kTs][n] = T(mbc::t_solid_initial);
      }
  mb_boundary_conditions(m, a);
  return s;
}

template HostState<float> mb_initial_state<float>(const MbMesh&);
template HostState<double> mb_initial_state<double>(const MbMesh&);
template void mb_interface_sum<float>(const MbMesh&, const MbArrays<float>&);
template void mb_interface_sum<double>(const MbMesh&, const MbArrays<double>&);
template void mb_boundary_conditions<float>(const MbMesh&, const MbArrays<float>&);
template void mb_boundary_conditions<double>(const MbMesh&, const MbArrays<double>&);

}  // namespace nsb
