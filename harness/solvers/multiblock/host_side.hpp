// What the CPU-side stages (ifsum, bc) need besides the arrays the stages run on: host copies of the
// fields, the boundary bands on the host and the device, the staging buffers (stage_call.hpp's
// MbHostSide, owned), and over ranks the exchange of the bands between ranks.
//
// Over ranks (the paper's MPI exchange, Sec. II.B and IV.C, through the host as the paper's GPU ranks
// did): every rank holds host arrays of all 13 blocks, filled only on the boundary bands. Before a host
// routine each rank's band of the routine's fields goes to every other rank (one allgather of packed
// buffers, padded to the largest rank's band); every rank then runs the routine on all bands (the same
// inputs everywhere, so the same results) and takes back its own blocks' bands. An undecomposed CPU run's
// host side is its own arrays and needs none of this.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>
#include <vector>

#include "comm.hpp"
#include "fields.hpp"
#include "multiblock/boundary.hpp"
#include "multiblock/stage_call.hpp"

namespace nsb {

// The band a host routine works through: the fluid blocks' edges (ifsum) or every block's ghosts, edges
// and the rows one in (bc).
template <class T>
const std::vector<std::uint32_t>& mb_band_of(const MbHostSide<T>& h, MbStage s) {
  return s == MbStage::ifsum ? h.edge_band : h.bc_band;
}

template <class T>
void mb_host_routine_on(MbStage s, const MbMesh& m, const MbArrays<T>& a) {
  if (s == MbStage::ifsum) mb_interface_sum(m, a);
  else mb_boundary_conditions(m, a);
}

// The CPU routine of stage s on the host arrays, after the other ranks' bands have arrived.
template <class T>
void mb_run_host_routine(MbStage s, MbHostSide<T>& h) {
  if (h.exchange) h.exchange(s);
  mb_host_routine_on(s, *h.mesh, h.arrays);
}

// A CPU run's ifsum or bc: on its own arrays, or over ranks through its band in the host arrays.
template <class T>
void mb_cpu_host_routine(MbStage s, const MbCall<T>& c) {
  MbHostSide<T>& h = *c.host;
  if (!h.exchange) return mb_host_routine_on(s, *h.mesh, c.a);
  const std::vector<std::uint32_t>& band = mb_band_of(h, s);
  const std::vector<int> fields = mb_stage_fields(s).writes;
  for (int f : fields)
    for (std::uint32_t n : band) h.arrays.f[f][n] = c.a.f[f][n];
  mb_run_host_routine(s, h);
  for (int f : fields)
    for (std::uint32_t n : band) c.a.f[f][n] = h.arrays.f[f][n];
}

// The exchange of a rank's bands with every other rank.
template <class T>
class MbRankExchange {
 public:
  MbRankExchange(const MbMesh& m, Communicator& comm, const MbArrays<T>& host) : comm_(comm), host_(host) {
    const std::vector<std::vector<int>> blocks = mb_rank_blocks(comm.size());
    for (const std::vector<int>& b : blocks) {
      edge_.push_back(mb_boundary_band(m, mb_blocks_of(b, MbStage::ifsum), 1));
      bc_.push_back(mb_boundary_band(m, b, 3));
    }
  }
  void operator()(MbStage s) {
    const std::vector<std::vector<std::uint32_t>>& bands = s == MbStage::ifsum ? edge_ : bc_;
    const std::vector<int> fields = mb_stage_fields(s).writes;
    std::size_t largest = 0;
    for (const auto& b : bands) largest = std::max(largest, b.size());
    const std::size_t stride = largest * fields.size();
    const std::vector<std::uint32_t>& mine = bands[std::size_t(comm_.rank())];
    send_.assign(stride, T(0));
    for (std::size_t f = 0; f < fields.size(); ++f)
      for (std::size_t k = 0; k < mine.size(); ++k) send_[f * largest + k] = host_.f[fields[f]][mine[k]];
    const std::vector<std::vector<char>> parts = comm_.allgather(send_.data(), stride * sizeof(T));
    for (std::size_t r = 0; r < parts.size(); ++r) {
      if (int(r) == comm_.rank()) continue;
      const T* in = reinterpret_cast<const T*>(parts[r].data());
      for (std::size_t f = 0; f < fields.size(); ++f)
        for (std::size_t k = 0; k < bands[r].size(); ++k) host_.f[fields[f]][bands[r][k]] = in[f * largest + k];
    }
  }

 private:
  Communicator& comm_;
  MbArrays<T> host_;
  std::vector<std::vector<std::uint32_t>> edge_, bc_;  // per rank
  std::vector<T> send_;
};

template <class T>
class MbHostStore {
 public:
  // `fields`: the arrays the stages run on (host arrays for a CPU run); `blocks`: this rank's;
  // `comm`: the ranks of a decomposed run (null: one rank); `held_begin`: where, in the 13-block arrays,
  // this rank's first held element (its lower ghost plane) is.
  MbHostStore(const MbMesh& mesh, const FieldSet<T>& fields, const std::vector<int>& blocks, Communicator* comm = nullptr,
              std::size_t held_begin = 0) {
    side_.mesh = &mesh;
    side_.edge_band = mb_boundary_band(mesh, mb_blocks_of(blocks, MbStage::ifsum), 1);  // fluid: the sums are theirs
    side_.bc_band = mb_boundary_band(mesh, blocks, 3);
    side_.held_begin = held_begin, side_.held_elems = fields.points();
    const bool ranks = comm && comm->size() > 1;
    if (!fields.on_device() && !ranks) {
      for (int f = 0; f < kMbFieldCount; ++f) side_.arrays.f[f] = fields.has(kMbFieldNames[f]) ? fields[kMbFieldNames[f]] : nullptr;
      return;
    }
    mirror_ = std::make_unique<FieldSet<T>>(mesh.grid.padded_points(), false);
    for (int f = 0; f < kMbScratch; ++f)
      if (fields.has(kMbFieldNames[f])) side_.arrays.f[f] = mirror_->add(kMbFieldNames[f]);
    if (ranks) {
      exchange_ = std::make_shared<MbRankExchange<T>>(mesh, *comm, side_.arrays);
      side_.exchange = [x = exchange_](MbStage s) { (*x)(s); };
    }
    if (fields.on_device()) device_side();
  }
  MbHostSide<T>* side() { return &side_; }

 private:
  // The bands on the device and the staging (at least one element: a rank without fluid blocks has no edge band).
  void device_side() {
    for (auto [band, buffer, device] : {std::tuple{&side_.edge_band, &edge_, &side_.edge_band_device},
                                        std::tuple{&side_.bc_band, &bc_, &side_.bc_band_device}}) {
      std::vector<std::uint32_t> padded = *band;
      padded.resize(std::max<std::size_t>(padded.size(), 1), 0);
      *buffer = Buffer<std::uint32_t>(padded.size(), true, "multiblock band");
      buffer->upload(padded);
      *device = buffer->get();
    }
    const std::size_t staging = std::max<std::size_t>({side_.edge_band.size() * 6, side_.bc_band.size() * 7, 1});
    staging_device_ = Buffer<T>(staging, true, "multiblock staging");
    side_.staging_device = staging_device_.get();
    staging_host_.assign(staging, T(0));
    side_.staging_pageable = &staging_host_;
    side_.staging_elems = staging;
  }

  std::unique_ptr<FieldSet<T>> mirror_;
  std::shared_ptr<MbRankExchange<T>> exchange_;
  Buffer<std::uint32_t> edge_, bc_;
  Buffer<T> staging_device_;
  std::vector<T> staging_host_;
  MbHostSide<T> side_;  // last: destroyed first, so its deleters unregister the mirror before it is freed
};

}  // namespace nsb
