// V1's global transpose (Ha, Park & You Sec. 3.1, Fig. 2; notes seed_002 Sec. 1.8, 6.1): one field between
// p z-slabs and p x-slabs, the all-to-all of the paper's baseline (M1, P1: z-slabs -> x-slabs; M2, P4: back).
//
//   z-slab s   Nx x Ny x nz_s   planes [k_s, k_s + nz_s) of the field, x fastest (the field's own order:
//                               the p z-slabs one after another are the whole field, no ghosts)
//   x-slab d   nx_d x Ny x Nz   columns [i_d, i_d + nx_d) of every row, x fastest: idx = (i - i_d) + nx_d (j + Ny k)
//
// Why the x-slab keeps x fastest: a rank's x-slab is then a grid of nx_d x Ny x Nz in the solver's own layout,
// so the z solves run on it unchanged: ADI-Z's thread-a-line sweep walks z lines that are interleaved across the
// x row (neighbouring threads read neighbouring words); with z fastest each thread's line would be its own
// contiguous run, neighbours a line apart, the x sweep's case that needed shared-memory tiles (adi_x/warp_tiles).
// The z transform then reads strided lines (a batched FFT's stride; unit-stride lines would need z fastest and a
// local transpose, not built). It also makes the block that z-slab s sends to x-slab d, (planes of s) x (columns
// of d), contiguous in the x-slab: [k - k_s][j][i - i_d]. So z -> x needs one local pass (pack the
// z-slab's columns of each destination into a contiguous block) and the blocks land in place; x -> z is the
// mirror (the blocks leave from place; unpack scatters them into the z-slab's rows).
//
// A point is `words` values (1: a real field; 2: a complex one, re and im adjacent, P1/P4's spectral field).
// Uneven splits: the remainders go to the first ranks, as z-slabs are split (slab_block_start, decomposition.hpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "decomposition.hpp"
#include "grid.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "timer.hpp"

namespace nsb {

struct TransposeShape {
  int nx = 0, ny = 0, nz = 0;  // the whole field's points
  int p = 1;                   // ranks
  int words = 1;               // values a point
  NSB_HD int x0(int d) const { return slab_block_start(nx, p, d); }
  NSB_HD int nxs(int d) const { return x0(d + 1) - x0(d); }
  NSB_HD int z0(int s) const { return slab_block_start(nz, p, s); }
  NSB_HD int nzs(int s) const { return z0(s + 1) - z0(s); }
  NSB_HD std::size_t field_words() const { return std::size_t(nx) * ny * nz * words; }
  // Where z-slab s and x-slab d start in the arrays that hold the p slabs one after another.
  NSB_HD std::size_t zslab_offset(int s) const { return std::size_t(nx) * ny * z0(s) * words; }
  NSB_HD std::size_t xslab_offset(int d) const { return std::size_t(x0(d)) * ny * nz * words; }
  // Block (s, d): planes of z-slab s x columns of x-slab d, nxs(d) x ny x nzs(s) points, x fastest.
  NSB_HD std::size_t block_words(int s, int d) const { return std::size_t(nxs(d)) * ny * nzs(s) * words; }
  // Where block (s, d) lies in z-slab s's send buffer (its blocks in destination order) ...
  NSB_HD std::size_t send_offset(int s, int d) const { return std::size_t(x0(d)) * ny * nzs(s) * words; }
  // ... and in x-slab d (the blocks in source order: planes k_s.. of the slab).
  NSB_HD std::size_t xslab_block_offset(int s, int d) const { return std::size_t(nxs(d)) * ny * z0(s) * words; }
  // A block is ny nzs(s) rows (row = j + ny kk) of nxs(d) points, run_words(d) words a row (where a row starts
  // within a z-slab: ZSlabView).
  NSB_HD std::size_t run_words(int d) const { return std::size_t(nxs(d)) * words; }
  NSB_HD std::size_t block_rows(int s) const { return std::size_t(ny) * nzs(s); }
};

// The stage kinds' directions: fracstep/transpose_zx (M1, P1) and fracstep/transpose_xz (M2, P4).
enum class TransposeDirection { z_to_x, x_to_z };

// A rank's z-slab as the local pass sees it: where point (0, 0, 0) of its planes lies and the pitches of its
// rows and planes, in values of V, so that a padded field of the solver (ghost rows and planes around the
// interior: padded_z_slab) and a compact array (the stage kinds' slabs, the Poisson solve's complex field:
// compact_z_slab) both transpose without a copy of their own.
template <class V>
struct ZSlabView {
  V* base = nullptr;              // value 0 of point (0, 0, 0) of the rank's first plane
  std::ptrdiff_t row_pitch = 0;   // values from row j to row j + 1
  std::ptrdiff_t plane_pitch = 0; // values from plane k to plane k + 1
  // Row `row` (= j + ny kk, a block's row numbering) of the slab, from point i.
  NSB_HD V* at(const TransposeShape& s, std::size_t row, int i) const {
    const std::ptrdiff_t j = std::ptrdiff_t(row % std::size_t(s.ny)), kk = std::ptrdiff_t(row / std::size_t(s.ny));
    return base + j * row_pitch + kk * plane_pitch + std::ptrdiff_t(i) * s.words;
  }
};
// A compact z-slab (nx x ny x its planes, `words` values a point, no ghosts).
template <class V>
ZSlabView<V> compact_z_slab(const TransposeShape& s, V* slab) {
  return {slab, std::ptrdiff_t(s.nx) * s.words, std::ptrdiff_t(s.nx) * s.ny * s.words};
}
// The interior of a padded field of a z-slab rank's grid (one ghost layer; a real field).
template <class V>
ZSlabView<V> padded_z_slab(const Grid& slab, V* field) {
  return {field + slab.idx(1, 1, 1), std::ptrdiff_t(slab.sy()), std::ptrdiff_t(slab.sz())};
}

// Phases of a transpose, the sections a call records (TransposeCall::timer).
enum TransposePhase : int { kTransposePack = 0, kTransposeAllToAll = 1, kTransposeUnpack = 2 };
inline const char* const kTransposePhaseNames[] = {"pack", "all_to_all", "unpack"};

// What every variant of the two kinds receives. `from` holds the source slabs (z-slabs for z_to_x), `to`
// receives the destination slabs, `buffer` is scratch of field_words() (the send buffers of z_to_x, the
// receive buffers of x_to_z; contents undefined before and after). timer (may be null): sections
// kTransposePack.. on the call's stream.
template <class T>
struct TransposeCall {
  using value_type = T;
  TransposeShape shape;
  TransposeDirection direction = TransposeDirection::z_to_x;
  const T* from = nullptr;
  T* to = nullptr;
  T* buffer = nullptr;
  SectionTimer* timer = nullptr;
  Tuning tuning;
  Exec exec;
};

// The definition, point by point: where value q of point (i, j, k) lies in the z-slabs and in the x-slabs.
inline std::size_t zslabs_index(const TransposeShape& s, int i, int j, int k, int q) {
  return (std::size_t(i) + std::size_t(s.nx) * (std::size_t(j) + std::size_t(s.ny) * k)) * s.words + q;
}
inline std::size_t xslabs_index(const TransposeShape& s, int i, int j, int k, int q) {
  int d = 0;
  while (s.x0(d + 1) <= i) ++d;
  return s.xslab_offset(d) +
         (std::size_t(i - s.x0(d)) + std::size_t(s.nxs(d)) * (std::size_t(j) + std::size_t(s.ny) * k)) * s.words + q;
}

// Every rank needs one column and one plane at least.
inline void check_transpose_shape(const TransposeShape& s) {
  if (s.p < 1 || s.nx < s.p || s.nz < s.p || s.ny < 1 || (s.words != 1 && s.words != 2))
    throw std::invalid_argument("fracstep transpose: " + std::to_string(s.nx) + "x" + std::to_string(s.ny) + "x" +
                                std::to_string(s.nz) + " over " + std::to_string(s.p) +
                                " ranks (a rank needs a column and a plane; 1 or 2 words a point)");
}

// The work of one call: the local pass (pack or unpack) reads and writes every word once (a rank's own block
// (s, s) included: it goes straight between its slabs, never through a message); the all-to-all reads and
// writes the other (p - 1) / p of the field once (transpose_link_words: what crosses between ranks).
inline double transpose_link_words(const TransposeShape& s) {
  double words = 0;
  for (int src = 0; src < s.p; ++src)
    for (int d = 0; d < s.p; ++d)
      if (d != src) words += double(s.block_words(src, d));
  return words;
}
inline WorkModel transpose_model(const TransposeShape& s, int elem_bytes) {
  const double points = double(s.nx) * s.ny * s.nz;
  return {points, (2.0 * double(s.field_words()) + 2.0 * transpose_link_words(s)) * elem_bytes, 0.0};
}

// A V1 rank's transposes of du, dv, dw around ADI-Z (M1 before, M2 after): the rank's padded z-slab fields
// to its x-slab of each (kept by the implementation, in the backend's memory, compact: columns() x ny x nz,
// x fastest) and back. The z lines of the x-slab are whole: line (i, j) starts at i + columns() j, stride
// columns() ny. Host ranks: HostZSlabTransposes (transpose_ranks_host.hpp, the Communicator's messages);
// GPU ranks: make_gpu_z_slab_links (gpu_ranks.hpp, peer copies).
template <class T>
class ZSlabTransposes {
 public:
  virtual ~ZSlabTransposes() = default;
  int columns() const { return shape_.nxs(rank_); }
  const TransposeShape& shape() const { return shape_; }
  T* x_slab(int c) const { return x_[c]; }
  virtual void to_x_slabs(T* const fields[3]) = 0;
  virtual void to_z_slabs(T* const fields[3]) = 0;

 protected:
  ZSlabTransposes(const TransposeShape& s, int rank) : shape_(s), rank_(rank) { check_transpose_shape(s); }
  ZSlabTransposes(const ZSlabTransposes&) = delete;
  ZSlabTransposes& operator=(const ZSlabTransposes&) = delete;
  TransposeShape shape_;
  int rank_;
  T* x_[3] = {nullptr, nullptr, nullptr};  // the x-slabs, set by the implementation
};

}  // namespace nsb
