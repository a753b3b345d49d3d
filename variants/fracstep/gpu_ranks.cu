// A fracstep V2 y-slab rank on a GPU (harness/solvers/fracstep/gpu_ranks.hpp): its ghost rows by peer
// copies from the neighbours' GPUs, and its split y solves' messages (tridiag's PeerSplitMessages); the
// NCCL way is gpu_ranks_nccl.cu (built with NCCL).
//
// A row of a padded field is NZ runs of NX values, one a z plane, a plane (NX NY values) apart: one
// strided copy (cudaMemcpy3DPeerAsync, a 2D extent with the two ranks' own pitches: their slabs may
// differ by a row) a field a side, no pack kernel and no staging buffer. Ordering (PeerRanks, events,
// no host wait for a GPU): before the copies, my stream waits for everything every rank had queued (the
// neighbours' edge rows are final); after them, every rank's stream waits for my copies (no rank writes
// its edge row again before its neighbours have read it).
#include <cuda_runtime.h>

#include <map>
#include <stdexcept>
#include <string>

#include "cuda/check.cuh"
#include "fracstep/gpu_ranks.hpp"
#include "peer_ranks.hpp"
#include "tridiag/split_peer.cuh"

namespace nsb {
namespace {

template <class T>
class PeerGhostRows final : public GhostRows<T> {
 public:
  PeerGhostRows(Communicator& comm, const Grid& g, cudaStream_t stream, int device)
      : comm_(comm), g_(g), stream_(stream), device_(device), ny_(comm.allgather_value(g.ny)),
        peers_(comm, device, stream) {}

  void exchange(const std::vector<T*>& fields) override {
    const int r = comm_.rank();
    const bool below = r > 0, above = r + 1 < comm_.size();
    std::vector<const std::vector<const T*>*> all;
    for (T* f : fields) all.push_back(&addresses(f));
    peers_.wait_for_all();
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::vector<const T*>& of = *all[f];
      if (below) pull_row(fields[f], 0, of[std::size_t(r - 1)], ny_[std::size_t(r - 1)], r - 1);
      if (above) pull_row(fields[f], g_.ny + 1, of[std::size_t(r + 1)], 1, r + 1);
    }
    peers_.wait_for_all();
  }

 private:
  // Every rank's address of my field f, gathered the first time f is exchanged (every rank exchanges the
  // same fields in the same order, so every rank gathers at the same call); the fields never move.
  const std::vector<const T*>& addresses(T* f) {
    auto it = known_.find(f);
    if (it == known_.end()) it = known_.emplace(f, comm_.allgather_value(static_cast<const T*>(f))).first;
    return it->second;
  }
  // My row `mine_row` of `field` = rank `from`'s row `their_row` of its copy (a slab of its own rows).
  void pull_row(T* field, int mine_row, const T* theirs, int their_row, int from) {
    const std::size_t run = std::size_t(g_.NX()) * sizeof(T), nz = std::size_t(g_.NZ());
    const int their_ny = ny_[std::size_t(from)];
    cudaMemcpy3DPeerParms p{};
    // (a pitched pointer's width is in bytes for linear memory, as cudaMalloc3D makes it)
    p.srcPtr = make_cudaPitchedPtr(const_cast<T*>(theirs) + std::size_t(their_row) * g_.NX(), run * std::size_t(their_ny + 2), run, nz);
    p.srcDevice = peers_.device_of(from);
    p.dstPtr = make_cudaPitchedPtr(field + std::size_t(mine_row) * g_.NX(), run * std::size_t(g_.NY()), run, nz);
    p.dstDevice = device_;
    p.extent = make_cudaExtent(run, nz, 1);
    NSB_CUDA(cudaMemcpy3DPeerAsync(&p, stream_));
  }

  Communicator& comm_;
  Grid g_;
  cudaStream_t stream_;
  int device_;
  std::vector<int> ny_;  // every rank's rows
  PeerRanks peers_;
  std::map<const T*, std::vector<const T*>> known_;
};

}  // namespace

#if defined(NSB_WITH_NCCL)
template <class T>  // variants/fracstep/gpu_ranks_nccl.cu
GpuRankLinks<T> make_nccl_gpu_rank_links(Communicator& comm, const Grid& g, cudaStream_t stream, int device, bool overlap);
#endif

template <class T>
GpuRankLinks<T> make_gpu_rank_links(const std::string& how, Communicator& comm, const Grid& g, void* stream, int device,
                                    bool overlap) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (how == "nccl") {
#if defined(NSB_WITH_NCCL)
    return make_nccl_gpu_rank_links<T>(comm, g, s, device, overlap);
#else
    throw std::runtime_error("fracstep: gpu_messages=nccl needs nsbench built with NCCL (none was found): gpu_messages=peer");
#endif
  }
  if (how != "peer") throw std::invalid_argument("fracstep: gpu_messages=" + how + " is not one of peer, nccl");
  if (overlap)
    throw std::invalid_argument("fracstep: V2-async overlaps the split solves' messages on a stream of their own: "
                                "gpu_messages=nccl (the peer copies wait on the host)");
  if (!PeerRanks::possible(comm, device))
    throw std::runtime_error(std::string("fracstep: V2 on GPU ranks by peer copies needs the threads driver and every rank's GPU "
                             "able to read the others' directly (peer access, or one GPU shared)") +
#if defined(NSB_WITH_NCCL)
                             "; --case-param gpu_messages=nccl runs under either driver, one GPU a rank"
#else
                             " (this build has no NCCL for gpu_messages=nccl)"
#endif
    );
  GpuRankLinks<T> links;
  links.ghost_rows = std::make_unique<PeerGhostRows<T>>(comm, g, s, device);
  links.messages = std::make_unique<PeerSplitMessages<T>>(comm, s, device);
  return links;
}

template GpuRankLinks<float> make_gpu_rank_links<float>(const std::string&, Communicator&, const Grid&, void*, int, bool);
template GpuRankLinks<double> make_gpu_rank_links<double>(const std::string&, Communicator&, const Grid&, void*, int, bool);

}  // namespace nsb
