#include "multiblock/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace nsb {

std::vector<std::vector<int>> mb_rank_blocks(int ranks) {
  if (ranks < 1 || ranks > kMbBlocks)
    throw std::invalid_argument("the 13 blocks go to 1..13 ranks, not " + std::to_string(ranks));
  const int per_rank = kMbBlocks / ranks;
  std::vector<std::vector<int>> out(static_cast<std::size_t>(ranks));
  for (int b = 0; b < kMbBlocks; ++b) out[std::size_t(std::min(b / per_rank, ranks - 1))].push_back(b);
  return out;
}

namespace {

struct Point {
  double x, y;
};

// A quarter turn counter-clockwise, s times: exact, so the four sectors are one sector turned.
Point turn(Point p, int s) {
  for (int q = 0; q < s; ++q) p = {-p.y, p.x};
  return p;
}
// Along a sector (t in [0, 1]): nodes closer together near the sector's ends. t'(1 - t) = 1 - t'(t), so a
// face read backwards has the same nodes.
double along(double t) { return t - 0.3 * std::sin(2 * std::numbers::pi * t) / (2 * std::numbers::pi); }
// Across a ring (eta in [0, 1]): geometric stretching, nodes close together at eta = 0 when beta > 0.
double across(double eta, double beta) { return (std::exp(beta * eta) - 1) / (std::exp(beta) - 1); }

// Node (i, j) (0-based) of block b.
Point node_position(const MbMesh& m, int b, int i, int j) {
  const double t = along(double(i) / (m.n - 1)), eta = double(j) / (m.n - 1);
  const double theta = std::numbers::pi * (t / 2 - 0.25);  // the east sector: -45 to +45 degrees
  const Point unit{std::cos(theta), std::sin(theta)};
  const double a = m.square_half;
  if (b < kMbFluidBlocks) {  // fluid rings: sector b % 4
    const double r = b < 4 ? m.r_wall + (m.r_mid - m.r_wall) * across(eta, 3.0)
                           : m.r_mid + (m.r_far - m.r_mid) * across(eta, 3.0);
    return turn({r * unit.x, r * unit.y}, b % 4);
  }
  if (b == 8) return {-a + 2 * a * along(double(i) / (m.n - 1)), -a + 2 * a * along(double(j) / (m.n - 1))};
  // Solid ring sector b - 9: from the square's side to the cylinder surface, nodes close at the surface.
  const Point inner{a, -a + 2 * a * t}, outer{m.r_wall * unit.x, m.r_wall * unit.y};
  const double f = across(eta, -1.5);
  return turn({inner.x + (outer.x - inner.x) * f, inner.y + (outer.y - inner.y) * f}, b - 9);
}

// Local (0-based) node of face f at position k, `depth` nodes in from the face (-1: the ghost beyond).
void face_node(int n, int f, int k, int depth, int& i, int& j) {
  switch (f) {
    case kIMin: i = depth, j = k; break;
    case kIMax: i = n - 1 - depth, j = k; break;
    case kJMin: i = k, j = depth; break;
    default: i = k, j = n - 1 - depth; break;
  }
}

void set_links(MbMesh& m) {
  auto link = [&](int b, int f, int b2, int f2, bool rev) { m.links[b][f] = {MbBoundary::block, b2, f2, rev}; };
  for (int s = 0; s < 4; ++s) {
    const int prev = (s + 3) % 4, next = (s + 1) % 4;
    for (int ring : {0, 4, 9}) {  // sectors of a ring meet side by side
      link(ring + s, kIMin, ring + prev, kIMax, false);
      link(ring + s, kIMax, ring + next, kIMin, false);
    }
    link(s, kJMax, 4 + s, kJMin, false);
    link(4 + s, kJMin, s, kJMax, false);
    m.links[s][kJMin] = {MbBoundary::wall, 9 + s, kJMax, false};
    m.links[4 + s][kJMax] = {MbBoundary::far_field, -1, -1, false};
    m.links[9 + s][kJMax] = {MbBoundary::solid_interface, s, kJMin, false};
  }
  // The square's sides against the solid sectors' inner faces (sectors count counter-clockwise).
  const int square_face[4] = {kIMax, kJMax, kIMin, kJMin};
  const bool reversed[4] = {false, true, true, false};
  for (int s = 0; s < 4; ++s) {
    link(8, square_face[s], 9 + s, kJMin, reversed[s]);
    link(9 + s, kJMin, 8, square_face[s], reversed[s]);
  }
}

// Groups of padded indices that are one physical node (union-find over the point-matched faces).
void set_shared_nodes(MbMesh& m) {
  const Grid& g = m.grid;
  std::vector<std::uint32_t> parent(g.padded_points());
  std::iota(parent.begin(), parent.end(), 0u);
  auto root = [&](std::uint32_t a) {
    while (parent[a] != a) a = parent[a] = parent[parent[a]];
    return a;
  };
  std::vector<std::uint32_t> touched;  // the face nodes (groups form among them only)
  for (int b = 0; b < kMbBlocks; ++b)
    for (int f = 0; f < 4; ++f) {
      const MbFaceLink& l = m.links[b][f];
      if (l.kind != MbBoundary::block) continue;
      for (int k = 0; k < m.n; ++k) {
        int i, j, i2, j2;
        face_node(m.n, f, k, 0, i, j);
        face_node(m.n, l.face, l.reversed ? m.n - 1 - k : k, 0, i2, j2);
        const auto p = std::uint32_t(mb_idx(g, b, i + 1, j + 1)), q = std::uint32_t(mb_idx(g, l.block, i2 + 1, j2 + 1));
        touched.push_back(p), touched.push_back(q);
        const std::uint32_t a = root(p), c = root(q);
        parent[std::max(a, c)] = std::min(a, c);  // the lowest index (lowest block) is the root: the owner
      }
    }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_root;  // (root, node), nodes ascending in a group
  for (std::uint32_t p : touched) by_root.emplace_back(root(p), p);
  std::sort(by_root.begin(), by_root.end());
  for (std::size_t k = 0; k < by_root.size();) {
    std::vector<std::uint32_t> grp;
    const std::uint32_t r = by_root[k].first;
    for (; k < by_root.size() && by_root[k].first == r; ++k) grp.push_back(by_root[k].second);
    if (grp.size() > 1) m.shared.push_back(std::move(grp));
  }
}

void set_ghost_maps(MbMesh& m) {
  const Grid& g = m.grid;
  for (int b = 0; b < kMbBlocks; ++b)
    for (int f = 0; f < 4; ++f) {
      const MbFaceLink& l = m.links[b][f];
      for (int k = 0; k < m.n; ++k) {
        int i, j, ii, ji, ig, jg;
        face_node(m.n, f, k, 0, i, j);
        face_node(m.n, f, k, 1, ii, ji);
        face_node(m.n, f, k, -1, ig, jg);
        const auto node = std::uint32_t(mb_idx(g, b, i + 1, j + 1)), inner = std::uint32_t(mb_idx(g, b, ii + 1, ji + 1));
        const auto ghost = std::uint32_t(mb_idx(g, b, ig + 1, jg + 1));
        switch (l.kind) {
          case MbBoundary::block: {
            int is, js;
            face_node(m.n, l.face, l.reversed ? m.n - 1 - k : k, 1, is, js);
            m.ghost.push_back(ghost);
            m.ghost_source.push_back(std::uint32_t(mb_idx(g, l.block, is + 1, js + 1)));
            break;
          }
          case MbBoundary::wall: m.wall.push_back({node, inner, ghost, b}); break;
          case MbBoundary::far_field: m.far_field.push_back({node, inner, ghost, b}); break;
          case MbBoundary::solid_interface: m.solid_interface.push_back({node, inner, ghost, b}); break;
        }
      }
    }
}

void set_geometry(MbMesh& m) {
  const Grid& g = m.grid;
  m.x.assign(g.padded_points(), 0.0), m.y.assign(g.padded_points(), 0.0);
#pragma omp parallel for collapse(2) schedule(static)  // each node alone (seconds on one core for G4)
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 0; j < m.n; ++j)
      for (int i = 0; i < m.n; ++i) {
        const Point p = node_position(m, b, i, j);
        const std::size_t n = mb_idx(g, b, i + 1, j + 1);
        m.x[n] = p.x, m.y[n] = p.y;
      }
  // One coordinate per physical node: the owner's (the copies differ by rounding at most).
  for (const auto& grp : m.shared)
    for (std::uint32_t c : grp) m.x[c] = m.x[grp[0]], m.y[c] = m.y[grp[0]];
  for (std::size_t k = 0; k < m.wall.size(); ++k) {
    const std::uint32_t s = m.solid_interface[k].node, f = m.wall[k].node;
    m.x[s] = m.x[f], m.y[s] = m.y[f];
  }
  for (std::size_t k = 0; k < m.ghost.size(); ++k)
    m.x[m.ghost[k]] = m.x[m.ghost_source[k]], m.y[m.ghost[k]] = m.y[m.ghost_source[k]];
  for (const auto* list : {&m.wall, &m.far_field, &m.solid_interface})
    for (const auto& bn : *list) {
      m.x[bn.ghost] = 2 * m.x[bn.node] - m.x[bn.inner];
      m.y[bn.ghost] = 2 * m.y[bn.node] - m.y[bn.inner];
    }
}

void set_metrics_and_volumes(MbMesh& m) {
  const Grid& g = m.grid;
  const std::size_t np = g.padded_points();
  m.xi_x.assign(np, 0.0), m.xi_y.assign(np, 0.0), m.eta_x.assign(np, 0.0), m.eta_y.assign(np, 0.0);
  m.hlen.assign(np, 0.0), m.vol.assign(np, 0.0);
  const std::ptrdiff_t sj = g.sy();
  // Each node alone; a zero Jacobian is counted (an exception may not leave an OpenMP loop).
  int zero_jacobians = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : zero_jacobians)
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 1; j <= m.n; ++j)
      for (int i = 1; i <= m.n; ++i) {
        const std::size_t n = mb_idx(g, b, i, j);
        const double x_xi = (m.x[n + 1] - m.x[n - 1]) / 2, y_xi = (m.y[n + 1] - m.y[n - 1]) / 2;
        const double x_eta = (m.x[n + sj] - m.x[n - sj]) / 2, y_eta = (m.y[n + sj] - m.y[n - sj]) / 2;
        const double jac = x_xi * y_eta - x_eta * y_xi;
        if (!(std::abs(jac) > 0)) {
          ++zero_jacobians;
          continue;
        }
        m.xi_x[n] = y_eta / jac, m.xi_y[n] = -x_eta / jac, m.eta_x[n] = -y_xi / jac, m.eta_y[n] = x_xi / jac;
        m.hlen[n] = 1 / std::sqrt(m.xi_x[n] * m.xi_x[n] + m.xi_y[n] * m.xi_y[n] + m.eta_x[n] * m.eta_x[n] + m.eta_y[n] * m.eta_y[n]);
      }
  if (zero_jacobians > 0) throw std::logic_error("multiblock mesh: a node with a zero Jacobian");
  // A cell adds to its four corners, all of its own block: blocks in parallel, the cells of a block in
  // the serial order, so each node's sum is added up in the same order as on one core.
#pragma omp parallel for schedule(dynamic)
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 1; j < m.n; ++j)
      for (int i = 1; i < m.n; ++i) {
        const std::size_t c00 = mb_idx(g, b, i, j), c10 = c00 + 1, c01 = c00 + sj, c11 = c01 + 1;
        const double area = 0.5 * std::abs((m.x[c11] - m.x[c00]) * (m.y[c01] - m.y[c10]) -
                                           (m.x[c01] - m.x[c10]) * (m.y[c11] - m.y[c00]));
        for (std::size_t c : {c00, c10, c01, c11}) m.vol[c] += area / 4;
      }
  for (const auto& grp : m.shared) {
    double sum = 0;
    for (std::uint32_t c : grp) sum += m.vol[c];
    for (std::uint32_t c : grp) m.vol[c] = sum;
  }
}

}  // namespace

MbMesh make_mb_mesh(int n) {
  if (n < 9) throw std::invalid_argument("multiblock: blocks of at least 9 x 9 nodes, not " + std::to_string(n));
  MbMesh m;
  m.n = n;
  m.grid = mb_grid(n);
  set_links(m);
  set_shared_nodes(m);
  set_ghost_maps(m);
  set_geometry(m);
  set_metrics_and_volumes(m);
  return m;
}

std::vector<std::uint32_t> mb_boundary_band(const MbMesh& m, const std::vector<int>& blocks, int rows) {
  const int n = m.n;
  auto in_band = [&](int v) { return rows == 1 ? (v == 1 || v == n) : (v <= 2 || v >= n - 1); };
  const int lo = rows == 1 ? 1 : 0, hi = rows == 1 ? n : n + 1;
  std::vector<std::uint32_t> band;
  for (int b : blocks)
    for (int j = lo; j <= hi; ++j)
      for (int i = lo; i <= hi; ++i)
        if (in_band(i) || in_band(j)) band.push_back(std::uint32_t(mb_idx(m.grid, b, i, j)));
  return band;
}

}  // namespace nsb
