// What a y-slab rank of the fracstep solver's V2 needs on a GPU (fracstep.md, "V2 on real ranks"; the
// threads driver, a rank's GPU r % count): its ghost rows from the neighbours' edge rows, and the
// messages of its split y solves (ADI-Y; TDMA-C's are the Poisson variant's own), both between the ranks'
// GPUs by peer copies. The solver's header is host C++ compiled without CUDA too: the GPU side is
// variants/fracstep/gpu_ranks.cu, and a build without CUDA refuses by name.
#pragma once

#include <memory>
#include <stdexcept>
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

#if defined(NSB_WITH_CUDA)
// Collective (every rank of comm, each with its GPU `device` and compute stream). The ghost rows: peer
// copies ordered by CUDA events (PeerRanks), refused where a rank's GPU cannot reach another's directly
// or the driver is not the threads one. The split messages: tridiag's PeerSplitMessages.
template <class T>
std::unique_ptr<GhostRows<T>> make_peer_ghost_rows(Communicator& comm, const Grid& g, void* stream, int device);
template <class T>
std::unique_ptr<SplitMessages<T>> make_peer_split_messages(Communicator& comm, void* stream, int device);
#else
[[noreturn]] inline void fracstep_gpu_ranks_need_cuda() {
  throw std::runtime_error("fracstep: V2 on GPU ranks needs nsbench built with CUDA");
}
template <class T>
std::unique_ptr<GhostRows<T>> make_peer_ghost_rows(Communicator&, const Grid&, void*, int) {
  fracstep_gpu_ranks_need_cuda();
}
template <class T>
std::unique_ptr<SplitMessages<T>> make_peer_split_messages(Communicator&, void*, int) {
  fracstep_gpu_ranks_need_cuda();
}
#endif

}  // namespace nsb
