// How the CPU-side routines (ifsum: interface sums; bc: boundary conditions and ghost fill) of a GPU run
// get their data and give it back (Kemal et al. 2015 Sec. IV.C, Fig. 5):
//   whole_arrays   every field the routine touches copied whole, device to host and back (the naive way)
//   boundary_band  only the blocks' boundary bands (mesh.hpp: the edge rows for ifsum; ghosts, edges and
//                  the rows one in for bc), packed on the device by a gather kernel into one buffer, one
//                  copy each way, unpacked on the host into its arrays and back on the device by a
//                  scatter kernel (the paper: "copying only the boundary data into a host buffer")
// and the host memory and streams of Sec. IV.D:
//   pageable        (the two above) synchronous copies from ordinary host memory, the paper's default
//   registered      the host memory page-locked in place with cudaHostRegister (the paper's way: its arrays
//                   were Fortran's) on first use: whole arrays (async copies on the stream), or the band's
//                   staging buffer (still synchronous: "pinning alone also speeds up synchronous copies")
//   pinned          the boundary band through a cudaMallocHost staging buffer, async copies; the copy back
//                   and the device unpack are left in flight (the next kernels follow on the stream)
//   pinned_overlap  the same, field by field: each field's copy is queued with an event behind it, and the
//                   host unpacks a field as soon as its event has passed while the later fields still copy;
//                   on the way back it packs the next field while the previous one copies (the paper's
//                   streams overlapping copies with CPU work; its routine itself needs every field first)
//   peer            NOT IN THE PAPER (boundary_band_p2p; threads driver, --case-param exchange=neighbours):
//                   the band as boundary_band, but the other ranks' nodes this rank's routine reads come from
//                   their GPUs, not through the host exchange: each rank whose band it reads has packed it into
//                   its staging buffer on its GPU; this rank pulls that whole packed band (cudaMemcpyPeerAsync,
//                   NVLink where peer access is on) into a buffer on its own GPU and copies it down with one
//                   copy, then takes the nodes it reads. The routine runs on the host, so every node it reads
//                   must be on this rank's host: the variant moves the neighbours' bands GPU to GPU and then
//                   down again, one copy more than the host exchange's (their host copies are already down).
//                   It pays only where host-to-host messages cost more than a peer copy plus a copy down
//                   (ranks in different processes without CUDA-aware MPI would need the host anyway), and
//                   is the step towards ifsum and bc on the GPU, where the copies down go away. One rank: as
//                   boundary_band.
// The routine itself is the CPU reference's, on the host copy. The multigrid stand-in (multigrid.hpp) works
// on whole blocks, so it has whole_arrays only: the planes of its blocks (the rank's fluid blocks), its six
// change fields down and up (pageable or registered).
#pragma once

#include "decomposition.hpp"
#include "multiblock/common.cuh"
#include "multiblock/host_side.hpp"
#include "comm.hpp"
#include "halo/peer_access.cuh"
#include "multiblock/multigrid.hpp"

namespace nsb {

template <class T>
__global__ void mb_pack_kernel(const T* field, const std::uint32_t* band, std::size_t count, T* out) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count; m += std::size_t(gridDim.x) * blockDim.x)
    out[m] = field[band[m]];
}
template <class T>
__global__ void mb_unpack_kernel(T* field, const std::uint32_t* band, std::size_t count, const T* in) {
  for (std::size_t m = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; m < count; m += std::size_t(gridDim.x) * blockDim.x)
    field[band[m]] = in[m];
}

enum class MbHostMemory { pageable, registered, pinned, pinned_overlap, peer };

template <class T>
void mb_register_host_arrays(MbHostSide<T>& h, std::size_t bytes) {
  if (h.registration) return;
  auto arrays = std::make_shared<std::vector<void*>>();
  for (int f = 0; f < kMbScratch; ++f)
    if (h.arrays.f[f]) {
      NSB_CUDA(cudaHostRegister(h.arrays.f[f], bytes, cudaHostRegisterDefault));
      arrays->push_back(h.arrays.f[f]);
    }
  h.registration = std::shared_ptr<void>(arrays.get(), [arrays](void*) {
    for (void* p : *arrays) cudaHostUnregister(p);  // at teardown: nothing to report an error to
  });
}

template <class T>
T* mb_pinned_staging(MbHostSide<T>& h) {
  if (!h.staging_pinned) {
    void* p = nullptr;
    NSB_CUDA(cudaMallocHost(&p, h.staging_elems * sizeof(T)));
    h.pinned_owner = std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); });
    h.staging_pinned = static_cast<T*>(p);
  }
  return h.staging_pinned;
}

template <class T>
T* mb_registered_staging(MbHostSide<T>& h) {
  T* p = h.staging_pageable->data();
  if (!h.staging_registration) {
    NSB_CUDA(cudaHostRegister(p, h.staging_elems * sizeof(T), cudaHostRegisterDefault));
    h.staging_registration = std::shared_ptr<void>(p, [](void* q) { cudaHostUnregister(q); });
  }
  return p;
}

// One event per field a host routine moves (bc moves the most: 7).
inline constexpr std::size_t kMbMaxHostFields = 8;
inline cudaEvent_t* mb_field_events(std::shared_ptr<void>& owner) {
  if (!owner) {
    auto events = std::make_shared<std::vector<cudaEvent_t>>(kMbMaxHostFields);
    for (cudaEvent_t& e : *events) NSB_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    owner = std::shared_ptr<void>(events.get(), [events](void*) {
      for (cudaEvent_t e : *events) cudaEventDestroy(e);
    });
  }
  return static_cast<std::vector<cudaEvent_t>*>(owner.get())->data();
}

// Elements [at, at + elems) of the fields down, the host routine, and back.
template <class T, class Routine>
void mb_through_host(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields, std::size_t at, std::size_t elems,
                     const Routine& routine) {
  const std::size_t bytes = elems * sizeof(T);
  const cudaStream_t stream = stream_of(c.exec);
  for (int f : fields) NSB_CUDA(cudaMemcpyAsync(h.arrays.f[f] + at, c.a.f[f] + at, bytes, cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  routine();
  for (int f : fields) NSB_CUDA(cudaMemcpyAsync(c.a.f[f] + at, h.arrays.f[f] + at, bytes, cudaMemcpyHostToDevice, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));  // the host arrays are the next call's
}

template <MbStage S, class T>
void mb_whole_arrays(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields) {
  if constexpr (S == MbStage::multigrid) {  // the call's blocks are consecutive planes (block b: plane b + 1)
    const std::size_t plane = plane_elems(c.grid);
    const std::size_t at = std::size_t(c.blocks[0] + 1) * plane, elems = std::size_t(c.nblocks) * plane;
    mb_through_host(c, h, fields, at, elems, [&] { mb_multigrid(*h.mesh, h.arrays, c.blocks, c.nblocks, c.levels); });
  } else {
    mb_through_host(c, h, fields, h.held_begin, h.held_elems, [&] { mb_run_host_routine(S, h); });  // this rank's planes
  }
}

// The band of stage S's call: its node list on the host and on the device.
template <MbStage S, class T>
struct MbBand {
  const std::vector<std::uint32_t>& host;
  const std::uint32_t* device;
  unsigned launch_blocks;
  explicit MbBand(const MbHostSide<T>& h)
      : host(S == MbStage::ifsum ? h.edge_band : h.bc_band), device(S == MbStage::ifsum ? h.edge_band_device : h.bc_band_device),
        launch_blocks(std::max(1u, std::min(ceil_div((long long)host.size(), 256), 4096u))) {}
  void pack(const MbCall<T>& c, const MbHostSide<T>& h, int field, std::size_t slot) const {
    mb_pack_kernel<<<launch_blocks, 256, 0, stream_of(c.exec)>>>(c.a.f[field], device, host.size(), h.staging_device + slot * host.size());
    NSB_LAUNCHED("mb_pack_kernel");
  }
  void unpack(const MbCall<T>& c, const MbHostSide<T>& h, int field, std::size_t slot) const {
    mb_unpack_kernel<<<launch_blocks, 256, 0, stream_of(c.exec)>>>(c.a.f[field], device, host.size(), h.staging_device + slot * host.size());
    NSB_LAUNCHED("mb_unpack_kernel");
  }
  // Host side: staging slot <-> the host array of the field.
  void to_arrays(const MbHostSide<T>& h, int field, const T* slot) const {
    for (std::size_t k = 0; k < host.size(); ++k) h.arrays.f[field][host[k]] = slot[k];
  }
  void from_arrays(const MbHostSide<T>& h, int field, T* slot) const {
    for (std::size_t k = 0; k < host.size(); ++k) slot[k] = h.arrays.f[field][host[k]];
  }
};

// The other ranks' nodes for stage S's routine, from their GPUs (the `peer` way above). Two host messages
// a neighbour keep the staging buffers safe: "packed" (a rank's band is in its staging: it has waited for its
// copy down) before anyone pulls it, "pulled" before its owner may rewrite it (on the way back up).
template <MbStage S, class T>
void mb_pull_from_peers(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields) {
  const MbPeers<T>& p = *h.peers;
  const int k = S == MbStage::ifsum ? 0 : 1, ranks = int(p.devices.size());
  const char token = 1;
  std::vector<char> got(std::size_t(ranks) * 2);
  std::vector<Communicator::Send> tell;
  std::vector<Communicator::Recv> hear;
  std::vector<std::size_t> at(std::size_t(ranks) + 1, 0);  // each sender's band in the receive buffer
  for (int r = 0; r < ranks; ++r) {
    const bool reads = !p.nodes[k][std::size_t(r)].empty();
    if (p.read_by[k][std::size_t(r)]) tell.push_back({r, &token, 1});
    if (reads) hear.push_back({r, &got[std::size_t(r)], 1});
    at[std::size_t(r) + 1] = at[std::size_t(r)] + (reads ? p.band_size[k][std::size_t(r)] * fields.size() : 0);
  }
  if (!h.peer_buffer) {  // big enough for either routine: every rank's whole band of bc's 7 fields
    std::size_t most = 0;
    for (int r = 0; r < ranks; ++r) most += std::max(p.band_size[0][std::size_t(r)] * 6, p.band_size[1][std::size_t(r)] * 7);
    h.peer_buffer = std::make_shared<Buffer<T>>(std::max<std::size_t>(most, 1), true, "multiblock peer bands");
    for (int r = 0; r < ranks; ++r) enable_peer_access(p.device, p.devices[std::size_t(r)]);
  }
  T* received = static_cast<Buffer<T>*>(h.peer_buffer.get())->get();
  const cudaStream_t stream = stream_of(c.exec);
  p.comm->neighbour_exchange(tell, hear);  // packed
  for (const Communicator::Recv& m : hear)
    NSB_CUDA(cudaMemcpyPeerAsync(received + at[std::size_t(m.from)], p.device, p.staging[std::size_t(m.from)],
                                 p.devices[std::size_t(m.from)], (at[std::size_t(m.from) + 1] - at[std::size_t(m.from)]) * sizeof(T), stream));
  h.peer_received.resize(std::max<std::size_t>(at.back(), 1));
  if (at.back() > 0)
    NSB_CUDA(cudaMemcpyAsync(h.peer_received.data(), received, at.back() * sizeof(T), cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  std::vector<Communicator::Send> pulled;
  std::vector<Communicator::Recv> released;
  for (const Communicator::Recv& m : hear) pulled.push_back({m.from, &token, 1});
  for (const Communicator::Send& m : tell) released.push_back({m.to, &got[std::size_t(ranks + m.to)], 1});
  p.comm->neighbour_exchange(pulled, released);  // pulled
  for (const Communicator::Recv& m : hear) {
    const std::size_t r = std::size_t(m.from), nb = p.band_size[k][r];
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (std::size_t j = 0; j < p.nodes[k][r].size(); ++j)
        h.arrays.f[fields[f]][p.nodes[k][r][j]] = h.peer_received[at[r] + f * nb + p.places[k][r][j]];
  }
  if (h.count_peer) h.count_peer(S, at.back() * sizeof(T), int(hear.size()));
}

// How the other ranks' nodes reach the host mirror in place of the host exchange (peer: mb_pull_from_peers;
// nccl: nccl_bands.cuh); null: the host exchange (or one rank).
template <class T>
using MbPull = void (*)(const MbCall<T>&, MbHostSide<T>&, const std::vector<int>&);

template <MbStage S, class T>
void mb_band(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields, T* staging, bool wait_at_end,
             MbPull<T> pull = nullptr) {
  const MbBand<S, T> band(h);
  const std::size_t nb = band.host.size(), total = nb * fields.size();
  if (h.staging_elems < total) throw std::logic_error("multiblock host routine: staging buffer too small");
  const cudaStream_t stream = stream_of(c.exec);
  for (std::size_t f = 0; f < fields.size(); ++f) band.pack(c, h, fields[f], f);
  NSB_CUDA(cudaMemcpyAsync(staging, h.staging_device, total * sizeof(T), cudaMemcpyDeviceToHost, stream));
  NSB_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t f = 0; f < fields.size(); ++f) band.to_arrays(h, fields[f], staging + f * nb);
  if (pull) {
    pull(c, h, fields);
    mb_host_routine_on(S, *h.mesh, h.arrays);
  } else {
    mb_run_host_routine(S, h);
  }
  for (std::size_t f = 0; f < fields.size(); ++f) band.from_arrays(h, fields[f], staging + f * nb);
  NSB_CUDA(cudaMemcpyAsync(h.staging_device, staging, total * sizeof(T), cudaMemcpyHostToDevice, stream));
  for (std::size_t f = 0; f < fields.size(); ++f) band.unpack(c, h, fields[f], f);
  if (wait_at_end) NSB_CUDA(cudaStreamSynchronize(stream));
}

// Field by field through pinned staging: the host works on field f while fields after it are in flight.
template <MbStage S, class T>
void mb_band_overlapped(const MbCall<T>& c, MbHostSide<T>& h, const std::vector<int>& fields) {
  const MbBand<S, T> band(h);
  const std::size_t nb = band.host.size();
  if (h.staging_elems < nb * fields.size() || fields.size() > kMbMaxHostFields)
    throw std::logic_error("multiblock host routine: staging buffer too small");
  T* staging = mb_pinned_staging(h);
  cudaEvent_t* arrived = mb_field_events(h.field_events);
  const cudaStream_t stream = stream_of(c.exec);
  for (std::size_t f = 0; f < fields.size(); ++f) band.pack(c, h, fields[f], f);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    NSB_CUDA(cudaMemcpyAsync(staging + f * nb, h.staging_device + f * nb, nb * sizeof(T), cudaMemcpyDeviceToHost, stream));
    NSB_CUDA(cudaEventRecord(arrived[f], stream));
  }
  for (std::size_t f = 0; f < fields.size(); ++f) {
    NSB_CUDA(cudaEventSynchronize(arrived[f]));
    band.to_arrays(h, fields[f], staging + f * nb);
  }
  mb_run_host_routine(S, h);
  for (std::size_t f = 0; f < fields.size(); ++f) {
    band.from_arrays(h, fields[f], staging + f * nb);
    NSB_CUDA(cudaMemcpyAsync(h.staging_device + f * nb, staging + f * nb, nb * sizeof(T), cudaMemcpyHostToDevice, stream));
  }
  for (std::size_t f = 0; f < fields.size(); ++f) band.unpack(c, h, fields[f], f);
}

template <MbStage S, bool Band, MbHostMemory M, class T>
void mb_host_routine(const MbCall<T>& c) {
  if (!c.host || !c.host->mesh) throw std::logic_error("multiblock host routine: the call has no host side");
  MbHostSide<T>& h = *c.host;
  const std::vector<int> fields = mb_stage_fields(S).writes;
  if constexpr (!Band) {
    if constexpr (M == MbHostMemory::registered) mb_register_host_arrays(h, c.grid.padded_points() * sizeof(T));  // the 13-block mirror
    mb_whole_arrays<S>(c, h, fields);
  } else if constexpr (M == MbHostMemory::pinned) {
    mb_band<S>(c, h, fields, mb_pinned_staging(h), false);
  } else if constexpr (M == MbHostMemory::pinned_overlap) {
    mb_band_overlapped<S>(c, h, fields);
  } else if constexpr (M == MbHostMemory::registered) {
    mb_band<S>(c, h, fields, mb_registered_staging(h), true);
  } else if constexpr (M == MbHostMemory::peer) {
    if (h.exchange && !h.peers)
      throw std::invalid_argument(std::string("multiblock/") + kMbStageNames[int(S)] + "/boundary_band_p2p over ranks needs GPU ranks "
                                  "of the threads driver (--ranks P) and --case-param exchange=neighbours");
    mb_band<S>(c, h, fields, h.staging_pageable->data(), true, h.peers ? &mb_pull_from_peers<S, T> : nullptr);
  } else {
    mb_band<S>(c, h, fields, h.staging_pageable->data(), true);
  }
}

template <MbStage S, bool Band, MbHostMemory M>
Variant mb_host_routine_variant(const char* status) {
  static_assert(Band || M == MbHostMemory::pageable || M == MbHostMemory::registered, "whole arrays: pageable or registered");
  static constexpr const char* memory[] = {"pageable", "registered", "pinned", "pinned", "pageable"};
  static constexpr const char* suffix[] = {"", "_registered", "_pinned", "_pinned_overlap", "_p2p"};
  static constexpr const char* sync[] = {"blocking", "blocking", "async", "overlap", "blocking"};
  Variant v;
  v.stage = std::string("multiblock/") + kMbStageNames[int(S)];
  v.name = std::string(Band ? "boundary_band" : "whole_arrays") + suffix[int(M)];
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"copy", Band ? "boundary_band" : "whole_arrays"}, {"host_memory", memory[int(M)]},
            {"sync", sync[int(M)]}};
  v.status = status;
  v.synchronizes = true;
  v.run_float = StageFn(&mb_host_routine<S, Band, M, float>);
  v.run_double = StageFn(&mb_host_routine<S, Band, M, double>);
  if constexpr (Band)
    v.kernels = {{"mb_pack_kernel<float>", (const void*)&mb_pack_kernel<float>, 4},
                 {"mb_pack_kernel<double>", (const void*)&mb_pack_kernel<double>, 8}};
  return v;
}

}  // namespace nsb
