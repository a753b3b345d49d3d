// V1's global transposes between real host ranks (fracstep.md, "V1 on real ranks (host)"): rank r holds
// z-slab r of a field (planes [z0(r), z0(r) + nzs(r)) of every row) and, after z_to_x, x-slab r (columns
// [x0(r), x0(r) + nxs(r)) of every row of every plane), in transpose.hpp's layouts (TransposeShape: the x-slab
// compact, x fastest; block (s, d) contiguous in it). The all-to-all goes through the Communicator as
// point-to-point messages (neighbour_exchange: every rank sends block (r, d) to each other rank d and
// receives block (s, r) from each other rank s; its own block (r, r) is copied, never sent). So a transpose
// moves over the links exactly what crosses between ranks, transpose_link_words(shape) words in all (the
// (p - 1) / p of the field), each message one block; an allgather (equal sizes, every rank every slab)
// would move p - 1 times the field.
//
// The z-slab side is a view (ZSlabView): where point (0, 0, 0) of the rank's planes lies and the pitches
// of its rows and planes, in values of V, so that a padded field of the solver (ghost rows and planes
// around the interior) and a compact spectral array (the Poisson solve's, a complex value = 2 words of
// double) both transpose without a copy of their own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "comm.hpp"
#include "fracstep/transpose.hpp"

namespace nsb {

template <class V>
struct ZSlabView {
  V* base = nullptr;              // value 0 of point (0, 0, 0) of the rank's first plane
  std::ptrdiff_t row_pitch = 0;   // values from row j to row j + 1
  std::ptrdiff_t plane_pitch = 0; // values from plane k to plane k + 1
  // Row `row` (= j + ny kk, a block's row numbering) of the slab, from point i.
  V* at(const TransposeShape& s, std::size_t row, int i) const {
    const std::ptrdiff_t j = std::ptrdiff_t(row % std::size_t(s.ny)), kk = std::ptrdiff_t(row / std::size_t(s.ny));
    return base + j * row_pitch + kk * plane_pitch + std::ptrdiff_t(i) * s.words;
  }
};

// Rank r's z-slab -> its x-slab (z_to_x: M1, P1) or back (x_to_z: M2, P4). xslab: shape.nxs(r) x ny x nz
// points (x fastest, compact); `buffer`: the rank's send (z_to_x) or receive (x_to_z) blocks, resized here.
template <class V>
void transpose_on_host_rank(Communicator& comm, const TransposeShape& s, int r, ZSlabView<V> z, V* xslab,
                            TransposeDirection direction, std::vector<V>& buffer) {
  const bool to_x = direction == TransposeDirection::z_to_x;
  buffer.resize(std::size_t(s.nx) * s.ny * s.nzs(r) * s.words);  // blocks (r, d) in destination order
  // Block (r, d) between the z-slab's rows and a contiguous block (row by row, nxs(d) points a row).
  const auto blocks = [&](int d, V* block, bool pack) {
    for (std::size_t row = 0; row < s.block_rows(r); ++row) {
      V* zrow = z.at(s, row, s.x0(d));
      V* brow = block + row * s.run_words(d);
      if (pack) std::copy(zrow, zrow + s.run_words(d), brow);
      else std::copy(brow, brow + s.run_words(d), zrow);
    }
  };
  std::vector<Communicator::Send> sends;
  std::vector<Communicator::Recv> recvs;
  for (int other = 0; other < s.p; ++other) {
    if (other == r) continue;
    V* mine = buffer.data() + s.send_offset(r, other);             // block (r, other) of the z-slab's side
    V* theirs = xslab + s.xslab_block_offset(other, r);            // block (other, r) of the x-slab
    if (to_x) {
      blocks(other, mine, true);
      sends.push_back({other, mine, s.block_words(r, other) * sizeof(V)});
      recvs.push_back({other, theirs, s.block_words(other, r) * sizeof(V)});
    } else {
      sends.push_back({other, theirs, s.block_words(other, r) * sizeof(V)});
      recvs.push_back({other, mine, s.block_words(r, other) * sizeof(V)});
    }
  }
  blocks(r, xslab + s.xslab_block_offset(r, r), to_x);  // the rank's own block stays here
  comm.neighbour_exchange(sends, recvs);
  if (!to_x)
    for (int other = 0; other < s.p; ++other)
      if (other != r) blocks(other, buffer.data() + s.send_offset(r, other), false);
}

// A V1 rank's transposes of du, dv, dw around ADI-Z (M1 before, M2 after): the rank's padded z-slab fields
// (grid `slab`: the channel's rows, its planes, a ghost layer) to its x-slab of each (kept here, compact:
// columns() x ny x nz, x fastest) and back. The z lines of the x-slab are whole: line (i, j) starts at
// i + columns() j, stride columns() ny.
template <class T>
class ZSlabTransposes {
 public:
  ZSlabTransposes(Communicator& comm, const Grid& slab, const Grid& whole, int rank)
      : comm_(comm), slab_(slab), rank_(rank) {
    shape_ = {whole.nx, whole.ny, whole.nz, comm.size(), 1};
    check_transpose_shape(shape_);
    for (std::vector<T>& x : x_) x.resize(std::size_t(columns()) * whole.ny * whole.nz);
  }
  int columns() const { return shape_.nxs(rank_); }
  const TransposeShape& shape() const { return shape_; }
  T* x_slab(int c) { return x_[c].data(); }
  void to_x_slabs(T* const fields[3]) { move(fields, TransposeDirection::z_to_x); }
  void to_z_slabs(T* const fields[3]) { move(fields, TransposeDirection::x_to_z); }

 private:
  void move(T* const fields[3], TransposeDirection d) {
    for (int c = 0; c < 3; ++c) {
      const ZSlabView<T> z{fields[c] + slab_.idx(1, 1, 1), std::ptrdiff_t(slab_.sy()), std::ptrdiff_t(slab_.sz())};
      transpose_on_host_rank(comm_, shape_, rank_, z, x_[c].data(), d, buffer_);
    }
  }
  Communicator& comm_;
  Grid slab_;
  int rank_;
  TransposeShape shape_;
  std::vector<T> x_[3];
  std::vector<T> buffer_;
};

}  // namespace nsb
