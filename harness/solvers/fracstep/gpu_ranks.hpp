// What a y-slab rank of the fracstep solver's V2 needs on a GPU (fracstep.md, "V2 on real ranks"; a rank's
// GPU r % count): its ghost rows from the neighbours' edge rows, and the
// messages of its split y solves (ADI-Y's and TDMA-C's), both between the ranks' GPUs, by peer copies or
// NCCL. The solver's header is host C++ compiled without CUDA too: the GPU side is
// variants/fracstep/gpu_ranks.cu, and a build without CUDA refuses by name.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm.hpp"
#include "grid.hpp"
#include "tridiag/split_phases.hpp"

namespace nsb {

// A rank's ghost rows of some fields (padded arrays of the rank's grid) from its neighbours' edge rows:
// row 0 from rank r - 1's last row, row ny + 1 from rank r + 1's first row. Collective: every rank calls
// it with the same fields in the same order.
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

// Collective (every rank of comm, each with its GPU `device` current and its compute stream).
//   "peer": peer copies. The ghost rows ordered by CUDA events (PeerRanks), the messages tridiag's
//           PeerSplitMessages; refused where a rank's GPU cannot reach another's directly or the driver
//           is not the threads one.
//   "nccl": NCCL, either driver, one GPU a rank: a field's edge row packed by a strided device copy,
//           all fields' rows sent and received in one group, unpacked; the messages NcclSplitMessages.
//           All on the stream (no host wait). Refused by name in a build without NCCL.
// overlap (V2-async): the split solves' messages on a message stream of their own (`overlap`); NCCL only
// (the peer copies wait on the host, so there would be nothing to overlap): refused by name with "peer".
#if defined(NSB_WITH_CUDA)
template <class T>
GpuRankLinks<T> make_gpu_rank_links(const std::string& how, Communicator& comm, const Grid& g, void* stream, int device,
                                    bool overlap = false);
#else
template <class T>
GpuRankLinks<T> make_gpu_rank_links(const std::string&, Communicator&, const Grid&, void*, int, bool = false) {
  throw std::runtime_error("fracstep: V2 on GPU ranks needs nsbench built with CUDA");
}
#endif

}  // namespace nsb
