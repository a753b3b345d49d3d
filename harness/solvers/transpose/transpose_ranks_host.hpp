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
// The z-slab side is a view (ZSlabView, transpose.hpp): a padded field of the solver and a compact spectral
// array (the Poisson solve's, a complex value = 2 words of double) both transpose without a copy of their own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "comm.hpp"
#include "transpose/transpose.hpp"

namespace nsb {

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

// A V1 host rank's transposes of du, dv, dw around ADI-Z (ZSlabTransposes, transpose.hpp), its x-slabs host
// arrays, the all-to-all through the Communicator.
template <class T>
class HostZSlabTransposes final : public ZSlabTransposes<T> {
 public:
  HostZSlabTransposes(Communicator& comm, const Grid& slab, const Grid& whole, int rank)
      : ZSlabTransposes<T>({whole.nx, whole.ny, whole.nz, comm.size(), 1}, rank), comm_(comm), slab_(slab) {
    for (int c = 0; c < 3; ++c) slabs_[c].resize(std::size_t(this->columns()) * whole.ny * whole.nz), this->x_[c] = slabs_[c].data();
  }
  void to_x_slabs(T* const fields[3]) override { move(fields, TransposeDirection::z_to_x); }
  void to_z_slabs(T* const fields[3]) override { move(fields, TransposeDirection::x_to_z); }

 private:
  void move(T* const fields[3], TransposeDirection d) {
    for (int c = 0; c < 3; ++c)
      transpose_on_host_rank(comm_, this->shape_, this->rank_, padded_z_slab(slab_, fields[c]), slabs_[c].data(), d, buffer_);
  }
  Communicator& comm_;
  Grid slab_;
  std::vector<T> slabs_[3];  // the x-slabs
  std::vector<T> buffer_;
};

}  // namespace nsb
