// What a y-slab rank of the fracstep solver's V2 needs on a GPU (fracstep.md, "V2 on real ranks"; a rank's
// GPU r % count): its ghost rows from the neighbours' edge rows, and the
// messages of its split y solves (ADI-Y's and TDMA-C's), both between the ranks' GPUs, by peer copies or
// NCCL. What a z-slab rank of V1 needs on a GPU (fracstep.md, "V1 on real ranks (GPU)"): its ghost planes
// from the ring neighbours' edge planes and ADI-Z's transposes to its x-slabs and back, by peer copies. The
// solver's header is host C++ compiled without CUDA too: the GPU side is variants/fracstep/gpu_ranks.cu, and
// a build without CUDA refuses by name.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm.hpp"
#include "transpose/transpose.hpp"
#include "grid.hpp"
#include "tridiag/split_phases.hpp"

namespace nsb {

// A rank's ghost rows of some fields (padded arrays of the rank's grid) from its neighbours' edge rows:
// row 0 from rank r - 1's last row, row ny + 1 from rank r + 1's first row; or, a z-slab rank of V1, its
// ghost planes from its ring neighbours' (z periodic): plane 0 from rank r - 1's last plane, plane nz + 1
// from rank r + 1's first. Collective: every rank calls it with the same fields in the same order.
template <class T>
class GhostRows {
 public:
  virtual ~GhostRows() = default;
  virtual void exchange(const std::vector<T*>& fields) = 0;
};

// What a V2 rank on a GPU talks through: its ghost rows and its split y solves' messages (ADI-Y's, and
// TDMA-C's: PoissonYSlab), and what the two share (`keep`: NCCL's communicator; declared first so that
// it is destroyed last, after the two that use it). V2-async: `overlap` orders the rank's compute stream
// against the messages, which then run on a stream of their own (split_solve_rank_pipelined); null: the
// messages on the compute stream (V2).
template <class T>
struct GpuRankLinks {
  std::shared_ptr<void> keep;
  std::unique_ptr<GhostRows<T>> ghost_rows;
  std::unique_ptr<SplitOverlap> overlap;
  std::unique_ptr<SplitMessages<T>> messages;
};

// What a V1 z-slab rank on a GPU talks through, by peer copies (the threads driver): its ghost planes and
// ADI-Z's transposes of du, dv, dw (its x-slabs on its GPU). The Poisson solve's transposes are the cuFFT
// variant's own (PoissonZSlab, variants/poisson/fft/spectral_z_slab.cuh).
template <class T>
struct GpuZSlabLinks {
  std::unique_ptr<GhostRows<T>> ghost_planes;
  std::unique_ptr<ZSlabTransposes<T>> transposes;
};

// make_gpu_rank_links (V2): collective (every rank of comm, each with its GPU `device` current and its
// compute stream).
//   "peer": peer copies. The ghost rows ordered by CUDA events (PeerRanks), the messages tridiag's
//           PeerSplitMessages; refused where a rank's GPU cannot reach another's directly or the driver
//           is not the threads one.
//   "nccl": NCCL, either driver, one GPU a rank: a field's edge row packed by a strided device copy,
//           all fields' rows sent and received in one group, unpacked; the messages NcclSplitMessages.
//           All on the stream (no host wait). Refused by name in a build without NCCL.
// overlap (V2-async): the split solves' messages on a message stream of their own (`overlap`); NCCL only
// (the peer copies wait on the host, so there would be nothing to overlap): refused by name with "peer".
// make_gpu_z_slab_links (V1): collective likewise; slab: the rank's grid (its planes and a ghost plane each
// side), whole: the channel's. Refused by name where the driver is not the threads one or a rank's GPU cannot
// reach another's directly (V1 by MPI or NCCL on GPU ranks is not built).
#if defined(NSB_WITH_CUDA)
template <class T>
GpuRankLinks<T> make_gpu_rank_links(const std::string& how, Communicator& comm, const Grid& g, void* stream, int device,
                                    bool overlap = false);
template <class T>
GpuZSlabLinks<T> make_gpu_z_slab_links(Communicator& comm, const Grid& slab, const Grid& whole, void* stream, int device);
#else
template <class T>
GpuRankLinks<T> make_gpu_rank_links(const std::string&, Communicator&, const Grid&, void*, int, bool = false) {
  throw std::runtime_error("fracstep: V2 on GPU ranks needs nsbench built with CUDA");
}
template <class T>
GpuZSlabLinks<T> make_gpu_z_slab_links(Communicator&, const Grid&, const Grid&, void*, int) {
  throw std::runtime_error("fracstep: V1 on GPU ranks needs nsbench built with CUDA");
}
#endif

}  // namespace nsb
