// What the CPU-side stages (ifsum, bc) need besides the arrays the stages run on: host copies of the
// fields, the boundary bands on the host and the device, the staging buffers (stage_call.hpp's
// MbHostSide, owned), and over ranks the exchange of the bands between ranks.
//
// Over ranks (the paper's MPI exchange, Sec. II.B and IV.C, through the host as the paper's GPU ranks
// did): every rank holds host arrays of all 13 blocks, filled only where it has received. Before a host
// routine the ranks exchange the routine's fields, one of two ways (--case-param exchange=...):
//   allgather   (default) each rank's whole band goes to every other rank (one allgather of packed
//               buffers, padded to the largest rank's band)
//   neighbours  the paper's messages between neighbouring blocks: rank r sends rank q only the nodes of its
//               band that q's routine reads for q's own nodes (boundary.hpp mb_*_reads), packed, one
//               message a pair that has any (Communicator::neighbour_exchange: MPI_Isend/MPI_Irecv under
//               mpirun, a mailbox between threads under --ranks; an empty message is not sent), so a
//               rank waits only on the ranks it receives from
// Every rank then runs the routine on everything it holds (for its own nodes, the inputs are the same as
// one rank's, so the same results) and takes back its own blocks' bands. The exchange counts the bytes it
// delivers to other ranks (the solver reports them a step). An undecomposed CPU run's host side is its own
// arrays and needs none of this.
#pragma once

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "comm.hpp"
#include "decomposition.hpp"
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

enum class MbExchange { allgather, neighbours };

// Messages of the neighbour-only exchange of one host routine, from this rank's point of view: to[q] the
// nodes it sends rank q, from[r] those it receives from rank r (both sorted; empty: no message).
struct MbMessages {
  std::vector<std::vector<std::uint32_t>> to, from;
};
// `bands[r]`: rank r's band of the routine; `needs[q]`: the nodes the routine reads for rank q's band
// (boundary.hpp), each sorted.
inline MbMessages mb_messages(const MbNodeSets& bands, const MbNodeSets& needs, int me) {
  const int ranks = int(bands.size());
  MbMessages msg{MbNodeSets(std::size_t(ranks)), MbNodeSets(std::size_t(ranks))};
  for (int q = 0; q < ranks; ++q) {
    for (int r = 0; r < ranks; ++r) {
      if (r == q || (r != me && q != me)) continue;
      std::vector<std::uint32_t> band = bands[std::size_t(r)], part;
      std::sort(band.begin(), band.end());
      std::set_intersection(needs[std::size_t(q)].begin(), needs[std::size_t(q)].end(), band.begin(), band.end(), std::back_inserter(part));
      (r == me ? msg.to[std::size_t(q)] : msg.from[std::size_t(r)]) = std::move(part);
    }
  }
  return msg;
}

// The exchange of a rank's bands with the other ranks.
template <class T>
class MbRankExchange {
 public:
  MbRankExchange(const MbMesh& m, Communicator& comm, const MbArrays<T>& host, MbExchange kind)
      : comm_(comm), host_(host), kind_(kind) {
    const std::vector<std::vector<int>> blocks = mb_rank_blocks(comm.size());
    for (const std::vector<int>& b : blocks) {
      edge_.push_back(mb_boundary_band(m, mb_blocks_of(b, MbStage::ifsum), 1));
      bc_.push_back(mb_boundary_band(m, b, 3));
    }
    if (kind_ == MbExchange::allgather) return;
    const MbNodeSets edge_needs = mb_interface_sum_reads(m, edge_), bc_needs = mb_boundary_conditions_reads(m, bc_);
    check_bands_cover(m, edge_, edge_needs);
    check_bands_cover(m, bc_, bc_needs);
    edge_msg_ = mb_messages(edge_, edge_needs, comm.rank());
    bc_msg_ = mb_messages(bc_, bc_needs, comm.rank());
    out_.resize(std::size_t(comm.size())), in_.resize(std::size_t(comm.size()));
  }
  void operator()(MbStage s) {
    if (kind_ == MbExchange::neighbours) return point_to_point(s);
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
    count(s, stride * sizeof(T) * std::size_t(comm_.size() - 1), comm_.size() - 1);
  }
  // Bytes this rank delivered to other ranks and messages it sent in the last call of each routine (a P2P
  // variant, which replaces the exchange: the bytes it pulled from other ranks' GPUs and the copies).
  std::size_t bytes(MbStage s) const { return s == MbStage::ifsum ? bytes_[0] : bytes_[1]; }
  int messages(MbStage s) const { return s == MbStage::ifsum ? messages_[0] : messages_[1]; }
  bool neighbours() const { return kind_ == MbExchange::neighbours; }
  bool peer_to_peer() const { return peer_; }
  void count_peer(MbStage s, std::size_t bytes, int copies) { count(s, bytes, copies), peer_ = true; }
  // What the P2P variants need (collective: every rank's GPU and staging pointer, valid in this process only:
  // the threads driver). Neighbour messages only: the variants read the other ranks' bands where these send.
  MbPeers<T> peers(int device, const T* staging) const {
    MbPeers<T> p;
    p.comm = &comm_, p.device = device;
    p.devices = comm_.allgather_value(device);
    p.staging = comm_.allgather_value(staging);
    for (int k = 0; k < 2; ++k) {
      const MbNodeSets& bands = k == 0 ? edge_ : bc_;
      const MbMessages& msg = k == 0 ? edge_msg_ : bc_msg_;
      for (int r = 0; r < comm_.size(); ++r) {
        const std::vector<std::uint32_t>& band = bands[std::size_t(r)];
        std::vector<std::pair<std::uint32_t, std::uint32_t>> place;  // (node, its place in the band), by node
        for (std::size_t j = 0; j < band.size(); ++j) place.emplace_back(band[j], std::uint32_t(j));
        std::sort(place.begin(), place.end());
        p.band_size[k].push_back(band.size());
        p.nodes[k].push_back(msg.from[std::size_t(r)]);
        std::vector<std::uint32_t>& at = p.places[k].emplace_back();
        for (std::uint32_t n : msg.from[std::size_t(r)])
          at.push_back(std::lower_bound(place.begin(), place.end(), std::pair<std::uint32_t, std::uint32_t>{n, 0})->second);
        p.read_by[k].push_back(!msg.to[std::size_t(r)].empty());
      }
    }
    return p;
  }

 private:
  // This rank's messages only: one to each rank that reads some of its band, one from each rank whose band
  // it reads (the communicator's point-to-point call; no other rank waits on them).
  void point_to_point(MbStage s) {
    const MbMessages& msg = s == MbStage::ifsum ? edge_msg_ : bc_msg_;
    const std::vector<int> fields = mb_stage_fields(s).writes;
    std::vector<Communicator::Send> sends;
    std::vector<Communicator::Recv> recvs;
    std::size_t sent = 0;
    for (int q = 0; q < comm_.size(); ++q) {
      const std::vector<std::uint32_t>& to = msg.to[std::size_t(q)];
      const std::vector<std::uint32_t>& from = msg.from[std::size_t(q)];
      std::vector<T>& out = out_[std::size_t(q)];
      std::vector<T>& in = in_[std::size_t(q)];
      out.clear();
      for (int f : fields)
        for (std::uint32_t n : to) out.push_back(host_.f[f][n]);
      in.resize(from.size() * fields.size());
      if (!out.empty()) sends.push_back({q, out.data(), out.size() * sizeof(T)}), sent += out.size() * sizeof(T);
      if (!in.empty()) recvs.push_back({q, in.data(), in.size() * sizeof(T)});
    }
    comm_.neighbour_exchange(sends, recvs);
    for (const Communicator::Recv& r : recvs) {
      const std::vector<std::uint32_t>& from = msg.from[std::size_t(r.from)];
      const T* in = in_[std::size_t(r.from)].data();
      for (std::size_t f = 0; f < fields.size(); ++f)
        for (std::size_t k = 0; k < from.size(); ++k) host_.f[fields[f]][from[k]] = in[f * from.size() + k];
    }
    count(s, sent, int(sends.size()));
  }
  void count(MbStage s, std::size_t bytes, int messages) {
    bytes_[s == MbStage::ifsum ? 0 : 1] = bytes, messages_[s == MbStage::ifsum ? 0 : 1] = messages;
  }
  // Every node a routine reads must be in some rank's band (the part of its host arrays a rank's variant
  // brings from the device, the only part sent): else a rank would read a stale value.
  static void check_bands_cover(const MbMesh& m, const MbNodeSets& bands, const MbNodeSets& needs) {
    std::vector<std::uint32_t> all;
    for (const auto& b : bands) all.insert(all.end(), b.begin(), b.end());
    std::sort(all.begin(), all.end());
    for (const auto& need : needs)
      for (std::uint32_t n : need)
        if (!std::binary_search(all.begin(), all.end(), n))
          throw std::logic_error("multiblock exchange: node " + std::to_string(n) + " of block " +
                                 std::to_string(n / plane_elems(m.grid) - 1) + " is read but in no rank's band");
  }

  Communicator& comm_;
  MbArrays<T> host_;
  MbExchange kind_;
  MbNodeSets edge_, bc_;           // per rank
  MbMessages edge_msg_, bc_msg_;  // neighbours only
  std::vector<T> send_;                 // allgather
  std::vector<std::vector<T>> out_, in_;  // neighbours: per rank
  std::size_t bytes_[2] = {};
  int messages_[2] = {};
  bool peer_ = false;
};

template <class T>
class MbHostStore {
 public:
  // `fields`: the arrays the stages run on (host arrays for a CPU run); `blocks`: this rank's;
  // `comm`: the ranks of a decomposed run (null: one rank); `held_begin`: where, in the 13-block arrays,
  // this rank's first held element (its lower ghost plane) is; `kind`: how ranks exchange.
  // `device`: this rank's GPU (GPU runs over ranks).
  MbHostStore(const MbMesh& mesh, const FieldSet<T>& fields, const std::vector<int>& blocks, Communicator* comm = nullptr,
              std::size_t held_begin = 0, MbExchange kind = MbExchange::allgather, int device = 0) {
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
      exchange_ = std::make_shared<MbRankExchange<T>>(mesh, *comm, side_.arrays, kind);
      side_.exchange = [x = exchange_](MbStage s) { (*x)(s); };
    }
    if (fields.on_device()) device_side();
    if (ranks && fields.on_device() && kind == MbExchange::neighbours && comm->driver() == "threads") {
      side_.peers = std::make_shared<const MbPeers<T>>(exchange_->peers(device, side_.staging_device));
      side_.count_peer = [x = exchange_](MbStage s, std::size_t bytes, int copies) { x->count_peer(s, bytes, copies); };
    }
  }
  MbHostSide<T>* side() { return &side_; }
  const MbRankExchange<T>* exchange() const { return exchange_.get(); }  // null: one rank

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
