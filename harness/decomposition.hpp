// Domain decomposition into z-slabs (thesis Sec. 3.2.3): rank r owns interior planes
// [z_begin, z_begin + nz) of the global grid, padded like a whole grid with one ghost plane below and
// above. The ghost plane of a z face cut by the decomposition is filled by the halo exchange from the
// neighbouring rank's edge plane (a solver's ghost rules leave such a face alone); periodic z wraps
// rank 0 and rank P-1.
//
// Because the padded layout is x fastest, a z plane (interior and its x/y ghost cells) is one
// contiguous run of NX*NY values: every halo message is a plain copy of whole planes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "grid.hpp"

namespace nsb {

struct Slab {
  int rank = 0, ranks = 1;
  int z_begin = 1;  // first owned interior plane, in global padded indices (1-based)
  int nz = 0;       // owned interior planes
  int lo_rank = -1, hi_rank = -1;  // neighbours below / above (-1: a physical boundary); y-slabs: in y
  // A y-slab (decompose_y: every z plane, rows [y_begin, y_begin + ny)); ny = 0: every row (a z-slab).
  int y_begin = 1, ny = 0;
  bool has_lo() const { return lo_rank >= 0; }
  bool has_hi() const { return hi_rank >= 0; }
};

// First index of rank r's block when n items are split over p ranks: n / p each, the first n % p ranks one
// more (z-slabs; also V1's x-slabs and z-slabs of a transposed field, transpose/transpose.hpp).
NSB_HD inline int slab_block_start(int n, int p, int r) { return r * (n / p) + (r < n % p ? r : n % p); }

// Splits nz planes over `ranks` (slab_block_start). Throws std::runtime_error naming the problem when a
// rank would get no plane.
std::vector<Slab> decompose_z(const Grid& global, int ranks, bool periodic_z);

// Y-slabs (Ha, Park & You's V2: fracstep.md): rank r owns every z plane and the rows
// [1 + r ny / ranks, 1 + (r + 1) ny / ranks) (the tridiag family's pdd_block_start, the blocks its split
// y solves cut), padded with one ghost row below and above; y is walled (no wrap). No halo variant moves
// y rows: a solver that decomposes so exchanges its own (a SlabAssigner's). Throws as decompose_z, below
// `min_rows` rows a rank.
std::vector<Slab> decompose_y(const Grid& global, int ranks, int min_rows = 1);

// The rank's own grid: same x/y, nz planes, the z extent scaled so that dz is the global dz (a y-slab:
// same x/z, ny rows, ly scaled the same way; a stretched y keeps its own face positions).
Grid slab_grid(const Grid& global, const Slab& s);

// Offset, in elements, of padded plane k (0 .. nz+1) of an array of grid g.
inline std::size_t plane_offset(const Grid& g, int k) { return std::size_t(k) * std::size_t(g.sz()); }
inline std::size_t plane_elems(const Grid& g) { return std::size_t(g.sz()); }

// A y-slab's rows of every plane, ghost rows (and planes) included, out of a whole padded field and
// back: its interior rows, and the whole grid's ghost rows from the first and last rank.
template <class T>
std::vector<T> scatter_rows(const std::vector<T>& global, const Grid& g, const Slab& s) {
  const std::size_t row = std::size_t(g.sy()), rows = std::size_t(s.ny + 2);
  std::vector<T> local;
  local.reserve(row * rows * std::size_t(g.nz + 2));
  for (int k = 0; k <= g.nz + 1; ++k) {
    const auto first = global.begin() + std::ptrdiff_t(plane_offset(g, k) + row * std::size_t(s.y_begin - 1));
    local.insert(local.end(), first, first + std::ptrdiff_t(row * rows));
  }
  return local;
}
// local: the slab's padded values (a received message's bytes need no copy into a vector first).
template <class T>
void gather_rows(std::vector<T>& global, const Grid& g, const Slab& s, const T* local) {
  const std::size_t row = std::size_t(g.sy()), rows = std::size_t(s.ny + 2);
  const int j0 = s.y_begin == 1 ? 0 : 1, j1 = s.y_begin + s.ny - 1 == g.ny ? s.ny + 1 : s.ny;
  for (int k = 0; k <= g.nz + 1; ++k)
    std::copy(local + row * (rows * std::size_t(k) + std::size_t(j0)),
              local + row * (rows * std::size_t(k) + std::size_t(j1) + 1),
              global.begin() + std::ptrdiff_t(plane_offset(g, k) + row * std::size_t(s.y_begin - 1 + j0)));
}

// Cuts the rank's padded slab (ghost planes included) out of a whole padded field ...
template <class T>
std::vector<T> scatter_slab(const std::vector<T>& global, const Grid& g, const Slab& s) {
  if (s.ny > 0) return scatter_rows(global, g, s);
  const std::size_t plane = plane_elems(g);
  const auto first = global.begin() + std::ptrdiff_t(plane * std::size_t(s.z_begin - 1));
  return std::vector<T>(first, first + std::ptrdiff_t(plane * std::size_t(s.nz + 2)));
}

// ... and puts it back: the rank's interior planes, and the whole grid's ghost planes from the first
// and last rank (a wall's ghost rule, or with periodic z the exchanged copy of the opposite plane).
template <class T>
void gather_slab(std::vector<T>& global, const Grid& g, const Slab& s, const T* local) {
  if (s.ny > 0) return gather_rows(global, g, s, local);
  const std::size_t plane = plane_elems(g);
  const int k0 = s.rank == 0 ? 0 : 1, k1 = s.rank == s.ranks - 1 ? s.nz + 1 : s.nz;
  std::copy(local + plane * std::size_t(k0), local + plane * std::size_t(k1 + 1),
            global.begin() + std::ptrdiff_t(plane * std::size_t(s.z_begin - 1 + k0)));
}
template <class T>
void gather_slab(std::vector<T>& global, const Grid& g, const Slab& s, const std::vector<T>& local) {
  gather_slab(global, g, s, local.data());
}

}  // namespace nsb
