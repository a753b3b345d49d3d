// V1's global transpose of one field on one real GPU rank (the threads driver, a GPU and a stream a rank):
// the local pass on the rank's own slabs and the all-to-all by peer pulls, each rank pulling its p - 1 blocks
// from the others' memory (harness/peer_ranks.hpp: the buffers' addresses exchanged at the call, CUDA events
// order the pulls after the senders' packs, and every rank's next writes after the others' pulls; the host
// never waits for a GPU). Shared by fracstep/transpose_*/ranks_peer (a stage that scatters a field to its
// ranks) and V1's GPU ranks (variants/fracstep/gpu_ranks.cu: ADI-Z's du, dv, dw; the Poisson solve's
// spectral field, variants/poisson/fft/spectral_z_slab.cuh).
#pragma once

#include <vector>

#include "peer_ranks.hpp"
#include "transpose/transpose_blocks.cuh"

namespace nsb {

// Rank r's z-slab (a view: compact, or a padded field's interior) -> its x-slab (z_to_x: M1, P1), or back
// (x_to_z: M2, P4). xslab: shape.nxs(r) x ny x nz points (x fastest, compact); buffer: the rank's send (z_to_x)
// or receive (x_to_z) blocks, a z-slab's words (nx ny nzs(r) words); everything on the rank's GPU, the work on
// `stream` (peers' stream). timer (null: untimed): the phases pack or unpack and all_to_all (from the moment
// every rank's blocks are ready), as sections kTransposePack.. of a transpose stage's call.
template <class T>
void transpose_on_gpu_rank(PeerRanks& peers, const TransposeShape& s, int r, ZSlabView<T> z, T* xslab, T* buffer,
                           TransposeDirection direction, int threads, cudaStream_t stream, SectionTimer* timer = nullptr) {
  if (direction == TransposeDirection::z_to_x) {
    {
      TransposeSection section(timer, kTransposePack);
      for (int d = 0; d < s.p; ++d)  // the own block straight into place
        transpose_block(true, s, r, d, z, d == r ? xslab + s.xslab_block_offset(r, r) : buffer + s.send_offset(r, d), threads, stream);
    }
    const std::vector<const void*> sends = peers.wait_for_all(buffer);  // every rank's blocks packed
    TransposeSection section(timer, kTransposeAllToAll);
    for (int src = 0; src < s.p; ++src)
      if (src != r)
        peers.pull(xslab + s.xslab_block_offset(src, r), static_cast<const T*>(sends[std::size_t(src)]) + s.send_offset(src, r),
                   src, s.block_words(src, r) * sizeof(T));
  } else {
    const std::vector<const void*> slabs = peers.wait_for_all(xslab);  // every x-slab written
    {
      TransposeSection section(timer, kTransposeAllToAll);
      for (int src = 0; src < s.p; ++src)
        if (src != r)
          peers.pull(buffer + s.send_offset(r, src), static_cast<const T*>(slabs[std::size_t(src)]) + s.xslab_block_offset(r, src),
                     src, s.block_words(r, src) * sizeof(T));
    }
    TransposeSection section(timer, kTransposeUnpack);
    for (int src = 0; src < s.p; ++src)  // the own block straight from its place
      transpose_block(false, s, r, src, z, src == r ? xslab + s.xslab_block_offset(r, r) : buffer + s.send_offset(r, src), threads,
                      stream);
  }
  peers.wait_for_all();  // nobody frees or overwrites a block another rank still reads
}

}  // namespace nsb
