#include "decomposition.hpp"

#include <stdexcept>
#include <string>

namespace nsb {

std::vector<Slab> decompose_z(const Grid& g, int ranks, bool periodic_z) {
  if (ranks < 1) throw std::runtime_error("decomposition: the rank count must be at least 1, not " + std::to_string(ranks));
  if (ranks > g.nz)
    throw std::runtime_error("decomposition: cannot split " + std::to_string(g.nz) + " z planes over " +
                             std::to_string(ranks) + " ranks (every rank needs at least one plane)");
  std::vector<Slab> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    Slab& s = out[std::size_t(r)];
    s.rank = r, s.ranks = ranks;
    s.z_begin = 1 + slab_block_start(g.nz, ranks, r);
    s.nz = slab_block_start(g.nz, ranks, r + 1) - slab_block_start(g.nz, ranks, r);
    if (ranks > 1) {
      s.lo_rank = r > 0 ? r - 1 : periodic_z ? ranks - 1 : -1;
      s.hi_rank = r < ranks - 1 ? r + 1 : periodic_z ? 0 : -1;
    }
  }
  return out;
}

std::vector<Slab> decompose_y(const Grid& g, int ranks, int min_rows) {
  if (ranks < 1) throw std::runtime_error("decomposition: the rank count must be at least 1, not " + std::to_string(ranks));
  if (g.ny < ranks * min_rows)
    throw std::runtime_error("decomposition: cannot split " + std::to_string(g.ny) + " y rows over " + std::to_string(ranks) +
                             " ranks (every rank needs at least " + std::to_string(min_rows) + ")");
  std::vector<Slab> out(static_cast<std::size_t>(ranks));
  const auto start = [&](int r) { return int((long long)(r) * g.ny / ranks); };
  for (int r = 0; r < ranks; ++r) {
    Slab& s = out[std::size_t(r)];
    s.rank = r, s.ranks = ranks;
    s.z_begin = 1, s.nz = g.nz;
    s.y_begin = 1 + start(r), s.ny = start(r + 1) - start(r);
    if (ranks > 1) s.lo_rank = r > 0 ? r - 1 : -1, s.hi_rank = r < ranks - 1 ? r + 1 : -1;
  }
  return out;
}

Grid slab_grid(const Grid& g, const Slab& s) {
  Grid l = g;
  l.nz = s.nz;
  l.lz = g.lz / g.nz * s.nz;
  if (s.ny > 0) l.ny = s.ny, l.ly = g.ly / g.ny * s.ny;
  return l;
}

}  // namespace nsb
