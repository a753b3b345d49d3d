// The multi-block grid of Kemal, Davis & Owens (2015), Sec. III (notes: shared/papers/notes/seed_003.md
// Sec. 3): the 2D conjugate cylinder in 13 equal blocks of N x N nodes, 8 fluid then 5 solid, point-matched.
//
// This is a REPRESENTATIVE grid: the paper shows its blocks only as pictures (Figs. 7-9) and says they
// are structured, point-matched, non-uniform and of equal size. The topology chosen here (the notes'
// inferred one) is:
//   blocks 0-3   fluid, inner ring:  r from R to R2 around the cylinder, one 90-degree sector each (E, N, W, S)
//   blocks 4-7   fluid, outer ring:  r from R2 to R3, the same sectors; its outer face is the far field
//   block  8     solid, centre square of the "butterfly" disc
//   blocks 9-12  solid, ring sectors between the square and the cylinder surface r = R
// In each ring block i runs counter-clockwise along the sector and j outward; the square has i along x and
// j along y. The cylinder surface (fluid j = 0 of blocks 0-3, solid j = N-1 of blocks 9-12) is the
// conjugate interface: a no-slip wall for the flow whose temperature the solid shares. Spacing is
// non-uniform: geometric radial stretching towards the wall and the far-field ring, and a sine
// stretching along each sector (the same on every sector, so the faces match node for node).
//
// Storage (SoA with halo offsets): every field is one array of 13 blocks of (N + 2) x (N + 2) values,
// i fastest, one ghost layer around each block. It is an nsbench Grid{N, N, 13}: block b is the z plane
// k = b + 1, so idx = i + (N + 2) (j + (N + 2)(b + 1)), nodes at padded i, j = 1..N. The Grid's ghost
// planes k = 0 and 14 are never used (they cost two blocks of memory, no traffic). Node (i, j) of the
// paper's Fortran x(i, j, n) is here f[n][b][j][i], i fastest as in the paper (Sec. II.A).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grid.hpp"

namespace nsb {

inline constexpr int kMbBlocks = 13;
inline constexpr int kMbFluidBlocks = 8;  // blocks 0..7; 8..12 are solid (the paper's order)
NSB_HD inline bool mb_is_fluid(int b) { return b < kMbFluidBlocks; }

// The nsbench Grid of 13 blocks of n x n nodes.
inline Grid mb_grid(int n) { return Grid{n, n, kMbBlocks, 1, 1, 1}; }
// Padded index of node (i, j) (padded: 1..N are nodes, 0 and N + 1 ghosts) of block b.
NSB_HD inline std::size_t mb_idx(const Grid& g, int b, int i, int j) { return g.idx(i, j, b + 1); }

// The paper's grids (notes Sec. 3): G1 129^2 and G4 1033^2 per block are stated; G2 and G3 are not, so
// nsbench doubles G1 (257, 513), as the notes suggest.
inline constexpr int kMbGridSizes[4] = {129, 257, 513, 1033};

enum MbFace : int { kIMin = 0, kIMax = 1, kJMin = 2, kJMax = 3 };
enum class MbBoundary : int { block, wall, far_field, solid_interface };

// What lies beyond one face of a block: another block's face (point-matched; `reversed` when the two
// faces number their nodes in opposite directions) or a physical boundary.
struct MbFaceLink {
  MbBoundary kind = MbBoundary::block;
  int block = -1, face = -1;
  bool reversed = false;
};

// The block-to-rank assignment of the paper (notes Sec. 1.3): floor(13 / P) consecutive blocks per
// rank, the remainder to the last rank. Returns the blocks of each rank.
std::vector<std::vector<int>> mb_rank_blocks(int ranks);

// The 13-block mesh of n x n nodes a block: coordinates, connectivity, node metrics, node volumes, and
// the node maps the CPU-side boundary routines use.
struct MbMesh {
  int n = 0;
  Grid grid;
  std::array<std::array<MbFaceLink, 4>, kMbBlocks> links;
  // Radii: cylinder (solid/fluid interface), end of the inner fluid ring, far field; half side of the square.
  double r_wall = 0.5, r_mid = 2.0, r_far = 20.0, square_half = 0.2;
  // Padded arrays (grid.padded_points()), ghosts filled: from the neighbour block across a block face,
  // linearly extrapolated across a physical boundary.
  std::vector<double> x, y;
  std::vector<double> xi_x, xi_y, eta_x, eta_y;  // node metrics from central differences
  std::vector<double> hlen;  // 1 / sqrt(|grad xi|^2 + |grad eta|^2): below the node's smaller spacing (time step, DES filter width)
  std::vector<double> vol;   // node control volume: sum of |cell area| / 4 over the cells around it,
                             // over every block that shares the node
  // Nodes that several blocks hold (point-matched faces and corners): each group lists the padded
  // indices of one physical node; the first is the owner (lowest block).
  std::vector<std::vector<std::uint32_t>> shared;
  // Ghost nodes across block faces: ghost[m] takes its value from source[m] (the neighbour's node one in
  // from the shared face).
  std::vector<std::uint32_t> ghost, ghost_source;
  // Nodes on physical boundaries, with the node one inside (for extrapolation to the ghost beyond).
  struct BoundaryNode {
    std::uint32_t node, inner, ghost;
    int block;
  };
  std::vector<BoundaryNode> wall, far_field, solid_interface;
  // wall[m] and solid_interface[m] are the same physical point (built in that order).
};

// Builds the mesh (throws std::invalid_argument for n < 9: the smoothing's fourth differences need
// 5 nodes and the stretchings a few more).
MbMesh make_mb_mesh(int n);

// The padded indices of the blocks' boundary band, block by block: with rows = 1 the edge nodes (rows and
// columns 1 and N: what the interface sum reads and writes), with rows = 3 also the ghosts and the node
// rows one in (0, 1, 2 and N - 1, N, N + 1: what the boundary conditions and ghost fill read and write).
// What a boundary-only copy moves instead of whole arrays (Fig. 5).
std::vector<std::uint32_t> mb_boundary_band(const MbMesh& m, const std::vector<int>& blocks, int rows);

}  // namespace nsb
