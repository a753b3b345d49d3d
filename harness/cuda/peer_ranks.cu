// PeerRanks (peer_ranks.hpp) on CUDA: an event a rank, recorded on its compute stream at each
// wait_for_all, the others' streams waiting on it after a host barrier (the ordering of the peer halo
// variants' NeighboursReady, variants/halo/peer_common.cuh, here over every rank rather than the two
// neighbours); peer copies by cudaMemcpyPeerAsync; the sum a one-thread kernel reading the ranks' memory.
// Two events a rank, alternate rounds: a rank past round n's barrier may record round n + 1 before a slower
// rank has issued its waits of round n; with one event that slower rank would wait on round n + 1's record,
// after work (an NCCL halo's kernels) that may need a launch the slower rank has yet to make: a deadlock. It
// records round n + 2 (the same event again) only after round n + 1's barrier, past every wait of round n.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "../peer_ranks.hpp"
#include "halo/peer_access.cuh"

namespace nsb {
namespace {

struct RankPointers {
  const double* of_rank[PeerRanks::kMaxRanks];
};

// One thread: the same additions in the same order on every rank, so every rank holds the same sum, equal
// to the host's allreduce_sum of the same values.
__global__ void sum_in_rank_order_kernel(double* out, RankPointers p, int ranks, int n) {
  for (int k = 0; k < n; ++k) {
    double s = 0;
    for (int r = 0; r < ranks; ++r) s += p.of_rank[r][k];
    out[k] = s;
  }
}

}  // namespace

struct PeerRanks::Impl {
  Communicator* comm = nullptr;
  int device = -1;
  cudaStream_t stream = nullptr;
  cudaEvent_t ready[2] = {nullptr, nullptr};
  std::vector<cudaEvent_t> of_rank[2];
  int round = 0;  // the same on every rank: every rank calls wait_for_all in the same order
  std::vector<int> devices;
};

bool PeerRanks::possible(Communicator& comm, int device) {
  const std::vector<int> devices = comm.allgather_value(device);
  bool ok = comm.driver() == "threads" && comm.size() <= kMaxRanks && device >= 0;
  for (const int peer : devices) {
    int can = 1;
    if (ok && peer != device) NSB_CUDA(cudaDeviceCanAccessPeer(&can, device, peer));
    ok = ok && can != 0 && peer >= 0;
  }
  return comm.allreduce_max(ok ? 0.0 : 1.0) == 0.0;  // every rank's answer
}

PeerRanks::PeerRanks(Communicator& comm, int device, void* stream) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.comm = &comm, m.device = device, m.stream = static_cast<cudaStream_t>(stream);
  m.devices = comm.allgather_value(device);
  for (const int peer : m.devices)
    if (!enable_peer_access(device, peer))
      throw std::runtime_error("PeerRanks: GPU " + std::to_string(device) + " cannot access GPU " +
                               std::to_string(peer) + " directly");
  for (int e = 0; e < 2; ++e) {
    NSB_CUDA(cudaEventCreateWithFlags(&m.ready[e], cudaEventDisableTiming));
    m.of_rank[e] = comm.allgather_value(m.ready[e]);
  }
}

PeerRanks::~PeerRanks() {
  if (impl_)
    for (cudaEvent_t e : impl_->ready)
      if (e) cudaEventDestroy(e);
}

std::vector<const void*> PeerRanks::wait_for_all(const void* mine) {
  Impl& m = *impl_;
  const int e = m.round;
  m.round ^= 1;
  NSB_CUDA(cudaEventRecord(m.ready[e], m.stream));
  // The gather is the barrier: every rank has recorded this round's event before any rank waits on it.
  std::vector<const void*> addresses = m.comm->allgather_value(mine);
  for (std::size_t r = 0; r < m.of_rank[e].size(); ++r)
    if (int(r) != m.comm->rank()) NSB_CUDA(cudaStreamWaitEvent(m.stream, m.of_rank[e][r], 0));
  return addresses;
}

int PeerRanks::device_of(int rank) const { return impl_->devices[std::size_t(rank)]; }

void PeerRanks::pull(void* dst, const void* src, int from, std::size_t bytes) {
  NSB_CUDA(cudaMemcpyPeerAsync(dst, impl_->device, src, device_of(from), bytes, impl_->stream));
}

void PeerRanks::sum_in_rank_order(double* out, const std::vector<const double*>& of_rank, int n) {
  if (of_rank.size() > std::size_t(kMaxRanks)) throw std::logic_error("PeerRanks: more ranks than kMaxRanks");
  RankPointers p{};
  for (std::size_t r = 0; r < of_rank.size(); ++r) p.of_rank[r] = of_rank[r];
  sum_in_rank_order_kernel<<<1, 1, 0, impl_->stream>>>(out, p, int(of_rank.size()), n);
  NSB_CUDA(cudaGetLastError());
}

}  // namespace nsb
