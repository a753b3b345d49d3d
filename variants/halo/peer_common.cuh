// What the threads-driver GPU halo variants share: every rank's arrays and GPU, peer access between
// neighbours, and the addresses of the planes one rank writes into its neighbours.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/check.cuh"
#include "halo.hpp"
#include "halo/peer_access.cuh"

namespace nsb {

template <class T>
class PeerArrays {
 public:
  // Collective: every rank passes its arrays, in the same order.
  void attach(const RankContext& c, const std::vector<T*>& mine) {
    mine_ = mine;
    devices_ = c.comm->allgather_value(c.device);
    of_rank_.assign(devices_.size(), {});
    for (T* a : mine)
      for (std::size_t r = 0; const auto p : c.comm->allgather_value(a)) of_rank_[r++].push_back(p);
  }
  // Where my `field`'s edge plane goes on the lower / upper neighbour: its top / bottom ghost plane.
  T* lo_ghost_of_neighbour(const RankContext& c, const T* field) const {
    const Slab& lo = c.slabs[std::size_t(c.slab().lo_rank)];
    return plane(of_rank_[std::size_t(lo.rank)][buffer_index(mine_, field)], c.grid, lo.nz + 1);
  }
  T* hi_ghost_of_neighbour(const RankContext& c, const T* field) const {
    return plane(of_rank_[std::size_t(c.slab().hi_rank)][buffer_index(mine_, field)], c.grid, 0);
  }
  int device(int rank) const { return devices_[std::size_t(rank)]; }

 private:
  std::vector<T*> mine_;
  std::vector<int> devices_;
  std::vector<std::vector<T*>> of_rank_;  // [rank][array]
};

// Pushes my edge planes of `fields` into my neighbours' ghost planes on `stream`.
template <class T>
void push_edges(const RankContext& c, const PeerArrays<T>& peers, const std::vector<T*>& fields, cudaStream_t stream) {
  const Slab& s = c.slab();
  const std::size_t bytes = plane_elems(c.grid) * sizeof(T);
  for (T* f : fields) {
    if (s.has_lo())
      NSB_CUDA(cudaMemcpyPeerAsync(peers.lo_ghost_of_neighbour(c, f), peers.device(s.lo_rank), plane(f, c.grid, 1),
                                   c.device, bytes, stream));
    if (s.has_hi())
      NSB_CUDA(cudaMemcpyPeerAsync(peers.hi_ghost_of_neighbour(c, f), peers.device(s.hi_rank),
                                   plane(f, c.grid, s.nz), c.device, bytes, stream));
  }
}

// Orders a rank's pushes into its neighbours' ghost planes after everything each neighbour queued on its
// own compute stream before this exchange: its reads of the ghosts' previous values, and its own writes
// into them (the Poisson family's CG writes a cut face's ghosts as a periodic wrap just before exchanging
// them, poisson.hpp; a push that landed first was overwritten: NaN in the IMLE solver on an H100, 7b4dec2).
// Each rank records `ready` on its compute stream; a host barrier makes every rank's record of this round
// precede every wait on it; the pushing stream then waits on the neighbours' records, on the GPU.
class NeighboursReady {
 public:
  NeighboursReady() { NSB_CUDA(cudaEventCreateWithFlags(&ready_, cudaEventDisableTiming)); }
  ~NeighboursReady() { cudaEventDestroy(ready_); }
  NeighboursReady(const NeighboursReady&) = delete;
  NeighboursReady& operator=(const NeighboursReady&) = delete;
  void attach(const RankContext& c) { of_rank_ = c.comm->allgather_value(ready_); }  // collective
  // Collective: `pushing` (the compute stream or one that pushes for it) waits for this rank's compute
  // stream and its neighbours' as they are now.
  void wait(const RankContext& c, cudaStream_t pushing) const {
    NSB_CUDA(cudaEventRecord(ready_, static_cast<cudaStream_t>(c.stream)));
    c.comm->barrier();
    const Slab& s = c.slab();
    NSB_CUDA(cudaStreamWaitEvent(pushing, ready_, 0));
    if (s.has_lo()) NSB_CUDA(cudaStreamWaitEvent(pushing, of_rank_[std::size_t(s.lo_rank)], 0));
    if (s.has_hi()) NSB_CUDA(cudaStreamWaitEvent(pushing, of_rank_[std::size_t(s.hi_rank)], 0));
  }

 private:
  cudaEvent_t ready_ = nullptr;
  std::vector<cudaEvent_t> of_rank_;
};

inline nlohmann::json peer_description(const RankContext& c, bool direct_lo, bool direct_hi) {
  return {{"direct_peer_access_lo", direct_lo}, {"direct_peer_access_hi", direct_hi}, {"device", c.device}};
}

}  // namespace nsb
