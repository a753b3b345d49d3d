// A fracstep V2 y-slab rank on a GPU (harness/solvers/fracstep/gpu_ranks.hpp): its ghost rows by peer
// copies from the neighbours' GPUs, and its split y solves' messages (tridiag's PeerSplitMessages); the
// NCCL way is gpu_ranks_nccl.cu (built with NCCL). A fracstep V1 z-slab rank on a GPU: its ghost planes
// by peer copies from its ring neighbours' GPUs, and ADI-Z's transposes to its x-slabs and back
// (transpose/transpose_peer.cuh, the all-to-all by peer pulls).
//
// A row of a padded field is NZ runs of NX values, one a z plane, a plane (NX NY values) apart: one
// strided copy (cudaMemcpy3DPeerAsync, a 2D extent with the two ranks' own pitches: their slabs may
// differ by a row) a field a side, no pack kernel and no staging buffer. A plane is one contiguous run
// (NX NY values): one peer copy a field a side. Ordering (PeerRanks, events, no host wait for a GPU): before
// the copies, my stream waits for everything every rank had queued (the neighbours' edge layers are final);
// after them, every rank's stream waits for my copies (no rank writes its edge layer again before its
// neighbours have read it).
#include <cuda_runtime.h>

#include <map>
#include <stdexcept>
#include <string>

#include "cuda/check.cuh"
#include "fields.hpp"
#include "fracstep/gpu_ranks.hpp"
#include "transpose/transpose_peer.cuh"
#include "peer_ranks.hpp"
#include "tridiag/split_peer.cuh"

namespace nsb {
namespace {

template <class T>
class PeerGhostRows final : public GhostRows<T> {
 public:
  // planes: a V1 z-slab rank's ghost planes (its ring neighbours'), else a V2 y-slab rank's ghost rows.
  PeerGhostRows(Communicator& comm, const Grid& g, cudaStream_t stream, int device, bool planes = false)
      : comm_(comm), g_(g), stream_(stream), device_(device), planes_(planes), n_(comm.allgather_value(planes ? g.nz : g.ny)),
        peers_(comm, device, stream) {}

  void exchange(const std::vector<T*>& fields) override {
    const int r = comm_.rank(), p = comm_.size(), n = planes_ ? g_.nz : g_.ny;
    // rows: the neighbours r - 1 and r + 1, none past the channel's walls; planes: the ring (z periodic)
    const int below = planes_ ? (r + p - 1) % p : r - 1, above = planes_ ? (r + 1) % p : r + 1 < p ? r + 1 : -1;
    std::vector<const std::vector<const T*>*> all;
    for (T* f : fields) all.push_back(&addresses(f));
    peers_.wait_for_all();
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const std::vector<const T*>& of = *all[f];
      if (below >= 0) pull_layer(fields[f], 0, of[std::size_t(below)], n_[std::size_t(below)], below);
      if (above >= 0) pull_layer(fields[f], n + 1, of[std::size_t(above)], 1, above);
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
  // My layer (row or plane) `mine` of `field` = rank `from`'s layer `theirs_layer` of its copy (a slab of its own).
  void pull_layer(T* field, int mine, const T* theirs, int theirs_layer, int from) {
    if (!planes_) return pull_row(field, mine, theirs, theirs_layer, from);
    const std::size_t plane = std::size_t(g_.sz());  // every z-slab has the channel's NX, NY
    peers_.pull(field + std::size_t(mine) * plane, theirs + std::size_t(theirs_layer) * plane, from, plane * sizeof(T));
  }
  // My row `mine_row` of `field` = rank `from`'s row `their_row` of its copy (a slab of its own rows).
  void pull_row(T* field, int mine_row, const T* theirs, int their_row, int from) {
    const std::size_t run = std::size_t(g_.NX()) * sizeof(T), nz = std::size_t(g_.NZ());
    const int their_ny = n_[std::size_t(from)];
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
  bool planes_;
  std::vector<int> n_;  // every rank's rows (planes: its planes)
  PeerRanks peers_;
  std::map<const T*, std::vector<const T*>> known_;
};

// A V1 GPU rank's transposes of du, dv, dw around ADI-Z (ZSlabTransposes): its three x-slabs and one block
// buffer (a z-slab's words) on its GPU, each field moved by transpose_on_gpu_rank on the rank's stream.
template <class T>
class GpuZSlabTransposes final : public ZSlabTransposes<T> {
 public:
  GpuZSlabTransposes(Communicator& comm, const Grid& slab, const Grid& whole, cudaStream_t stream, int device)
      : ZSlabTransposes<T>({whole.nx, whole.ny, whole.nz, comm.size(), 1}, comm.rank()), slab_(slab), stream_(stream),
        buffer_(std::size_t(whole.nx) * whole.ny * slab.nz, true, "fracstep V1: a rank's transpose blocks"),
        peers_(comm, device, stream) {
    if (this->shape_.nzs(this->rank_) != slab.nz) throw std::logic_error("fracstep V1: a rank's planes are not its block of the whole z");
    for (int c = 0; c < 3; ++c) {
      slabs_[c] = Buffer<T>(std::size_t(this->columns()) * whole.ny * whole.nz, true, "fracstep V1: a rank's x-slabs");
      this->x_[c] = slabs_[c].get();
    }
  }
  void to_x_slabs(T* const fields[3]) override { move(fields, TransposeDirection::z_to_x); }
  void to_z_slabs(T* const fields[3]) override { move(fields, TransposeDirection::x_to_z); }

 private:
  void move(T* const fields[3], TransposeDirection d) {
    for (int c = 0; c < 3; ++c)
      transpose_on_gpu_rank(peers_, this->shape_, this->rank_, padded_z_slab(slab_, fields[c]), slabs_[c].get(), buffer_.get(), d,
                            kThreads, stream_);
  }
  static constexpr int kThreads = 256;  // the transpose stages' default block (transpose_threads)
  Grid slab_;
  cudaStream_t stream_;
  Buffer<T> slabs_[3];
  Buffer<T> buffer_;
  PeerRanks peers_;
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

template <class T>
GpuZSlabLinks<T> make_gpu_z_slab_links(Communicator& comm, const Grid& slab, const Grid& whole, void* stream, int device) {
  if (!PeerRanks::possible(comm, device))
    throw std::runtime_error("fracstep: V1 on GPU ranks runs by peer copies: the threads driver (--ranks P, not mpirun) and every "
                             "rank's GPU able to read the others' directly (peer access, or one GPU shared); V1 by MPI or NCCL "
                             "on GPU ranks is not built");
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  GpuZSlabLinks<T> links;
  links.ghost_planes = std::make_unique<PeerGhostRows<T>>(comm, slab, s, device, true);
  links.transposes = std::make_unique<GpuZSlabTransposes<T>>(comm, slab, whole, s, device);
  return links;
}

template GpuRankLinks<float> make_gpu_rank_links<float>(const std::string&, Communicator&, const Grid&, void*, int, bool);
template GpuRankLinks<double> make_gpu_rank_links<double>(const std::string&, Communicator&, const Grid&, void*, int, bool);
template GpuZSlabLinks<float> make_gpu_z_slab_links<float>(Communicator&, const Grid&, const Grid&, void*, int);
template GpuZSlabLinks<double> make_gpu_z_slab_links<double>(Communicator&, const Grid&, const Grid&, void*, int);

}  // namespace nsb
