// GPU ranks of one process (the threads driver, a thread and a compute stream a rank) working on each
// other's memory on the GPU, without a host round trip: direct peer reads and copies (NVLink or PCIe peer
// access, or one GPU shared), ordered by CUDA events that each rank's stream waits on. The host only
// meets the other ranks at a barrier (so that every rank's event of this round is recorded before anyone
// waits on it); it never waits for a GPU. Used by the IMLE solver's ranks (imle/imle_ranks.hpp) for
// CC-CCD's z-line gather and CG's sums over the ranks. Implemented in cuda/peer_ranks.cu (device_none.cpp:
// never possible without CUDA).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "comm.hpp"

namespace nsb {

class PeerRanks {
 public:
  static constexpr int kMaxRanks = 16;  // sum_in_rank_order's pointers travel as a kernel argument
  // Collective. Whether this run's ranks can use it: CUDA built, the threads driver, at most kMaxRanks
  // ranks, and every rank's GPU able to access every other rank's GPU directly (or the same GPU).
  static bool possible(Communicator& comm, int device);
  // Collective: enables this rank's GPU's access to every other rank's; `stream` is the rank's compute stream.
  PeerRanks(Communicator& comm, int device, void* stream);
  ~PeerRanks();
  PeerRanks(const PeerRanks&) = delete;
  PeerRanks& operator=(const PeerRanks&) = delete;

  // Collective: my stream waits (on the GPU) for everything every rank had queued on its stream before
  // this call. Returns every rank's `mine`, in rank order (a rank passes the address others will read).
  std::vector<const void*> wait_for_all(const void* mine = nullptr);
  int device_of(int rank) const;
  // On my stream: `bytes` from rank `from`'s memory at `src` into my memory at `dst`.
  void pull(void* dst, const void* src, int from, std::size_t bytes);
  // On my stream: out[k] = of_rank[0][k] + of_rank[1][k] + ..., added in rank order from 0.0 as the
  // host's Communicator::allreduce_sum adds, k < n (a single thread reads the ranks' memory directly).
  void sum_in_rank_order(double* out, const std::vector<const double*>& of_rank, int n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nsb
