// NOT IN THE PAPER: the host routines' (ifsum, bc) band variant whose other ranks' nodes come by NCCL
// (boundary_band_nccl), beside boundary_band_p2p (host_copies.cuh, the peer way) and the host messages
// (host_side.hpp). Built only where NCCL is found (CMakeLists.txt, as variants/halo/nccl.cu).
//
// The band as boundary_band; then, in place of the host exchange, each rank sends its whole packed band
// (its staging buffer on its GPU) to every rank that reads it and receives the bands of the ranks it reads,
// in one NCCL group on the call's stream, copies them down in one copy and takes the nodes it reads (their
// places in the sender's band: MbPeers). No host messages keep the staging buffers safe, as the P2P variant
// needs: a send follows the rank's packing on its stream and precedes the copy that rewrites the staging on
// the way back up. Threads-driver GPU ranks with --case-param exchange=neighbours (the neighbour lists), one
// GPU a rank (NCCL refuses two ranks on one GPU); one rank: as boundary_band. It moves what the P2P variant
// moves (whole bands GPU to GPU, then down): with the routines on the CPU it cannot beat the host messages
// (docs/solvers/multiblock.md, Ranks); it is the exchange a GPU ifsum and bc would keep.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

#include "cuda/nccl_comm.cuh"
#include "multiblock/host_copies.cuh"

namespace nsb {

// The run's NCCL communicator and the receive buffer, made on the first call (every rank calls ifsum and bc,
// multiblock/time_loop.hpp, so every rank joins the collective communicator set-up) and kept as the host side's peer buffer.
template <class T>
struct MbNcclBands {
  NcclComm comm;
  Buffer<T> received;
  MbNcclBands(const MbPeers<T>& p, std::size_t elems)
      : comm(*p.comm, p.device, "multiblock boundary_band_nccl", "boundary_band_p2p runs them"),
        received(elems, true, "multiblock nccl bands") {}
};

// The other ranks' nodes for stage S's routine, by NCCL (an MbPull, host_copies.cuh).
template <MbStage S, class T>
void mb_pull_by_nccl(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields) {
  const MbPeers<T>& p = *h.peers;
  const int k = S == MbStage::ifsum ? 0 : 1, ranks = int(p.devices.size()), me = p.comm->rank();
  std::vector<std::size_t> at(std::size_t(ranks) + 1, 0);  // each sender's band in the receive buffer
  int messages = 0;
  for (int r = 0; r < ranks; ++r) {
    const bool reads = !p.nodes[k][std::size_t(r)].empty();
    messages += reads ? 1 : 0;
    at[std::size_t(r) + 1] = at[std::size_t(r)] + (reads ? p.band_size[k][std::size_t(r)] * fields.size() : 0);
  }
  if (!h.peer_buffer) {  // big enough for either routine: every rank's whole band of bc's 7 fields
    std::size_t most = 0;
    for (int r = 0; r < ranks; ++r) most += std::max(p.band_size[0][std::size_t(r)] * 6, p.band_size[1][std::size_t(r)] * 7);
    h.peer_buffer = std::make_shared<MbNcclBands<T>>(p, std::max<std::size_t>(most, 1));
  }
  MbNcclBands<T>& nccl = *static_cast<MbNcclBands<T>*>(h.peer_buffer.get());
  const cudaStream_t stream = stream_of(c.exec);
  const ncclDataType_t type = nccl_type<T>();
  const std::size_t mine = p.band_size[k][std::size_t(me)] * fields.size();
  nccl_check(ncclGroupStart(), "ncclGroupStart");
  for (int r = 0; r < ranks; ++r) {
    if (p.read_by[k][std::size_t(r)]) nccl_check(ncclSend(h.staging_device, mine, type, r, nccl.comm.get(), stream), "ncclSend");
    if (at[std::size_t(r) + 1] > at[std::size_t(r)])
      nccl_check(ncclRecv(nccl.received.get() + at[std::size_t(r)], at[std::size_t(r) + 1] - at[std::size_t(r)], type, r,
                             nccl.comm.get(), stream), "ncclRecv");
  }
  nccl_check(ncclGroupEnd(), "ncclGroupEnd");
  h.peer_received.resize(std::max<std::size_t>(at.back(), 1));
  if (at.back() > 0)
    NSB_CUDA(cudaMemcpyAsync(h.peer_received.data(), nccl.received.get(), at.back() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  for (int r = 0; r < ranks; ++r) {  // the nodes this rank reads, from their places in the sender's band
    const std::size_t nb = p.band_size[k][std::size_t(r)];
    for (std::size_t f = 0; f < fields.size() && at[std::size_t(r) + 1] > at[std::size_t(r)]; ++f)
      for (std::size_t j = 0; j < p.nodes[k][std::size_t(r)].size(); ++j)
        h.arrays.f[fields[f]][p.nodes[k][std::size_t(r)][j]] = h.peer_received[at[std::size_t(r)] + f * nb + p.places[k][std::size_t(r)][j]];
  }
  if (h.count_peer) h.count_peer(S, at.back() * sizeof(T), messages);
}

template <MbStage S, class T>
void mb_host_routine_nccl(const MbCall<T>& c) {
  if (!c.host || !c.host->mesh) throw std::logic_error("multiblock host routine: the call has no host side");
  MbHostSide<T>& h = *c.host;
  if (h.exchange && !h.peers)
    throw std::invalid_argument(std::string("multiblock/") + kMbStageNames[int(S)] + "/boundary_band_nccl over ranks needs GPU ranks "
                                "of the threads driver (--ranks P), one GPU a rank, and --case-param exchange=neighbours");
  mb_band<S>(c, h, mb_stage_fields(S).writes, h.staging_pageable->data(), true, h.peers ? &mb_pull_by_nccl<S, T> : nullptr);
}

template <MbStage S>
Variant mb_nccl_band_variant(const char* status) {
  Variant v = mb_host_routine_variant<S, true, MbHostMemory::peer>(status);
  v.name = "boundary_band_nccl";
  v.run_float = StageFn(&mb_host_routine_nccl<S, float>);
  v.run_double = StageFn(&mb_host_routine_nccl<S, double>);
  return v;
}

}  // namespace nsb
