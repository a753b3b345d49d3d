// The IMLE solver on several ranks (Liu, Wu, Kao & Sheu 2019, Sec. 3.1 and Fig. 3; notes Sec. 2): z-slabs,
// one per GPU, each with its "inner", "boundary" (edge planes a neighbour needs) and "redundant" (the
// neighbours' edge planes) data.
//
// Layout. A rank stores its planes with the neighbours' edge planes beside them as planes of its own
// (`store`: own planes plus one plane on each cut side, each array one padded grid of that size), so that
// the stages which look one plane across a cut (MLS's 3x3x3 neighbourhood of particles, ppe_rhs's wide
// difference) run unchanged on `store` and see the neighbours' particles and velocities where a one-rank
// run sees them: their walls are the ghost planes of `store`, which lie at the physical walls only. Every
// other stage, the halo exchange and the pressure run on the view `own` (the rank's planes, whose ghost
// planes at a cut are the stored neighbour planes): the standard decomposition of harness/decomposition.hpp.
//
// What crosses the cut, each step:
//   u*, v*, w* (after predict)      halo exchange; move then runs on the neighbour planes too (it is
//                                   pointwise), so the particles' displacements need no exchange
//   w_interp (after MLS)            halo exchange (ppe_rhs's wide difference along z; u, v only in-plane)
//   CG's dot products and p         sums over the ranks and p's halo every iteration (poisson/cg.cpp); CG
//                                   writes p's cut ghosts (a periodic wrap) just before each exchange, so a
//                                   halo variant must order its writes after the receiver's (halo.hpp)
//   z lines of CC-CCD               gathered (below)
// Overlap (a halo variant that overlaps(): host_staged_async, p2p_async_overlap): the exchange of u*
// starts once predict is done and runs while move and MLS compute the planes that need no neighbour; the
// planes next to a cut wait for it (imle_step.hpp).
//
// CC-CCD's z lines cross the cut, and its block-tridiagonal solve is sequential along a line. The paper
// "patches all the data together" through the host; each rank gathers every rank's planes of phi (and
// the physical ghost plane each holds), solves every z line of the whole grid on its own device and keeps
// its planes of d1, d2. Two paths for the gather (ImleRankPaths, --case-param ccd_z=host|peer|auto):
//   host  the paper's: to host memory, Communicator::allgather, back to the device (a host wait a call)
//   peer  GPU ranks of the threads driver with peer access (peer_ranks.hpp): each rank pulls the others'
//         planes straight into its whole-grid phi on its stream (cudaMemcpyPeerAsync), after a GPU-side
//         wait for their streams; no host wait, (P-1)/P of the field over NVLink a call.
// Both copy the same values, so d1 and d2 are the same bits either way. Why a gather and not a transpose
// (each rank solving 1/P of the lines): a transpose sends phi's (P-1)/P^2 and brings back d1 and d2, 3
// (P-1)/P^2 of the field over the link, against (P-1)/P for the gather; at P = 2 that is 0.75 against 0.5
// of the field, and the link (~0.1-0.4 TB/s) is ten times slower than the memory (~3 TB/s) where the
// duplicated solve (3 fields read and written) costs. Cost either way: six whole-grid arrays a rank (phi,
// d1, d2, the call's scratch).
// CG's sums over the ranks likewise (--case-param rank_sums=host|peer|auto): host, the paper's (read back,
// Communicator::allreduce_sum, written back: two host waits an iteration), or peer: every rank's partial
// sums read by one GPU thread on each rank, added in rank order as the host adds, so the same bits.
// auto (the default): peer where possible (PeerRanks::possible), else host; the CPU and MPI take host.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "decomposition.hpp"
#include "device.hpp"
#include "fields.hpp"
#include "halo.hpp"
#include "peer_ranks.hpp"
#include "poisson/poisson.hpp"
#include "rank_context.hpp"

namespace nsb {

// Where a rank's fields lie in the whole grid (one rank: all three grids are the whole grid).
struct ImleLayout {
  Grid global, own, store;
  int lo = 0, hi = 0;  // 1 where a neighbour lies below / above
  int z_begin = 1;     // the first own plane's global padded index

  static ImleLayout whole(const Grid& g) { return {g, g, g, 0, 0, 1}; }
  static ImleLayout of(const Grid& global, const Slab& s) {
    ImleLayout l{global, slab_grid(global, s), global, s.has_lo() ? 1 : 0, s.has_hi() ? 1 : 0, s.z_begin};
    l.store = l.own;
    l.store.nz = s.nz + l.lo + l.hi;
    l.store.lz = global.lz / global.nz * l.store.nz;  // the same dz
    return l;
  }
  bool decomposed() const { return own.nz != global.nz; }
  std::size_t own_offset() const { return std::size_t(lo) * plane_elems(store); }
  ZRange own_in_store() const { return {1 + lo, store.nz + 1 - hi}; }
  ZRange all_in_store() const { return ZRange::interior(store); }
};

// How a decomposed run's z-line gather and CG sums cross between the ranks (imle_ranks.hpp's header).
struct ImleRankPaths {
  enum class Path { automatic, host, peer };
  Path ccd_z = Path::automatic, sums = Path::automatic;
  static Path parse(const std::string& key, const std::string& value) {
    if (value == "auto") return Path::automatic;
    if (value == "host") return Path::host;
    if (value == "peer") return Path::peer;
    throw std::invalid_argument("imle: --case-param " + key + "=" + value + ": auto, host or peer");
  }
};

// Whole planes between arrays of one backend.
template <class T>
void copy_planes(T* dst, const T* src, std::size_t elems, const Exec& e) {
  if (e.backend == Backend::cuda) device::copy_device(dst, src, elems * sizeof(T), e.stream);
  else std::memcpy(dst, src, elems * sizeof(T));
}

template <class T>
class ImleRanks final : public PoissonRanks<T> {
 public:
  // Collective (every rank, the same paths).
  ImleRanks(const RankContext& ctx, const ImleLayout& l, Exec exec, ImleRankPaths paths = {})
      : ctx_(ctx), l_(l), exec_(exec), whole_(l.global.padded_points(), exec.backend == Backend::cuda) {
    ctx_.grid = l.own, ctx_.stream = exec.stream;
    if (!ctx.halo) throw std::logic_error("imle: a decomposed run without a halo variant");
    for (const char* name : {"phi", "d1", "d2", "scratch_0", "scratch_1", "scratch_2"}) whole_.add(name);
    for (const Slab& s : ctx.slabs) most_planes_ = std::max(most_planes_, sent_planes(s).second);
    const bool possible = exec.backend == Backend::cuda && PeerRanks::possible(*ctx.comm, ctx.device);
    peer_gather_ = use_peer(paths.ccd_z, possible, "ccd_z");
    peer_sums_ = use_peer(paths.sums, possible, "rank_sums");
    if (peer_gather_ || peer_sums_) peers_ = std::make_unique<PeerRanks>(*ctx.comm, ctx.device, exec.stream);
    if (peer_sums_) published_ = Buffer<double>(2 * kMostSums, true, "imle rank sums");
  }
  ImleRanks(const ImleRanks&) = delete;
  ImleRanks& operator=(const ImleRanks&) = delete;

  // The velocity halo, over the own views of the fields it exchanges (every rank, the same order).
  void attach_velocity(const std::vector<T*>& own_fields) {
    halo_ = ctx_.halo->template factory<T>()(ctx_);
    halo_->attach(own_fields);
  }
  HaloExchange<T>& halo() { return *halo_; }
  const ImleLayout& layout() const { return l_; }
  Communicator& comm() const { return *ctx_.comm; }
  nlohmann::json describe() const {
    nlohmann::json d = halo_ ? halo_->describe() : nlohmann::json::object();
    d["imle_ccd_z_lines"] = peer_gather_ ? "peer_gather" : "host_gather";
    d["imle_rank_sums"] = peer_sums_ ? "peer" : "host";
    return d;
  }

  // PoissonRanks: CG's vectors get a halo exchange of their own (the same variant).
  void attach(const std::vector<T*>& vectors) override {
    cg_halo_ = ctx_.halo->template factory<T>()(ctx_);
    cg_halo_->attach(vectors);
  }
  void exchange(T* vector) override { cg_halo_->exchange({vector}); }
  double sum(double x) override { return ctx_.comm->allreduce_sum(x); }
  // Every rank publishes its partial sums into one of two buffers (alternate calls, so that a rank's next
  // publication cannot overwrite values a slower rank is still to read: that rank's reads precede its
  // next wait_for_all, which the writer's stream waits on first), waits on the GPU for every rank's, and
  // adds them in rank order into its slots.
  bool sum_on_device(double* slots, int n) override {
    if (!peer_sums_) return false;
    if (n > kMostSums) throw std::logic_error("imle: more sums at once than ImleRanks publishes");
    double* mine = published_.get() + std::size_t(parity_) * kMostSums;
    parity_ ^= 1;
    device::copy_device(mine, slots, std::size_t(n) * sizeof(double), exec_.stream);
    std::vector<const double*> of_rank;
    for (const void* a : peers_->wait_for_all(mine)) of_rank.push_back(static_cast<const double*>(a));
    peers_->sum_in_rank_order(slots, of_rank, n);
    return true;
  }
  double global_points() const override { return double(l_.global.interior_points()); }

  // The whole grid's phi (its ghost planes included) on this rank's backend, from every rank's planes.
  const T* gather(const T* phi_own) {
    if (peer_gather_) return gather_from_peers(phi_own);
    const std::size_t plane = plane_elems(l_.own);
    const auto [k0, count] = sent_planes(ctx_.slab());
    std::vector<T>& mine = send_host_;  // sized once; the ranks' sent planes fill every plane of whole
    std::vector<T>& whole = whole_host_;
    mine.resize(plane * std::size_t(most_planes_)), whole.resize(l_.global.padded_points());
    const T* from = phi_own + plane * std::size_t(k0);
    if (exec_.backend == Backend::cuda) {
      device::stream_sync(exec_.stream);
      device::copy_to_host(mine.data(), from, plane * std::size_t(count) * sizeof(T));
    } else {
      std::memcpy(mine.data(), from, plane * std::size_t(count) * sizeof(T));
    }
    const std::vector<std::vector<char>> all = ctx_.comm->allgather(mine.data(), mine.size() * sizeof(T));
    for (std::size_t r = 0; r < all.size(); ++r) {
      const Slab& s = ctx_.slabs[r];
      const auto [rk0, rcount] = sent_planes(s);
      std::memcpy(whole.data() + plane * std::size_t(s.z_begin - 1 + rk0), all[r].data(),
                  plane * std::size_t(rcount) * sizeof(T));
    }
    whole_.upload("phi", whole);
    return whole_["phi"];
  }
  T* whole(const std::string& name) const { return whole_[name]; }
  // This rank's interior planes of a whole-grid array, into its own view.
  void keep_own(T* own, const T* whole) const {
    const std::size_t plane = plane_elems(l_.own);
    copy_planes(own + plane, whole + plane * std::size_t(l_.z_begin), plane * std::size_t(l_.own.nz), exec_);
  }

 private:
  static constexpr int kMostSums = 8;  // the Poisson family's scalar slots (PoissonStages::kScalars)

  static bool use_peer(ImleRankPaths::Path p, bool possible, const char* key) {
    if (p == ImleRankPaths::Path::peer && !possible)
      throw std::runtime_error(std::string("imle: --case-param ") + key +
                               "=peer needs GPU ranks of the threads driver whose GPUs reach each other directly "
                               "(peer access); host works everywhere");
    return possible && p != ImleRankPaths::Path::host;
  }

  // gather() without the host: after a GPU-side wait for every rank's stream (its phi written), each rank
  // pulls the others' sent planes into its whole-grid phi; a second wait keeps every rank from writing its
  // phi again before every rank has pulled it.
  const T* gather_from_peers(const T* phi_own) {
    const std::size_t plane = plane_elems(l_.own);
    const std::vector<const void*> from = peers_->wait_for_all(phi_own + plane * std::size_t(sent_planes(ctx_.slab()).first));
    for (std::size_t r = 0; r < from.size(); ++r) {
      const Slab& s = ctx_.slabs[r];
      const auto [k0, count] = sent_planes(s);
      peers_->pull(whole_["phi"] + plane * std::size_t(s.z_begin - 1 + k0), from[r], int(r),
                   plane * std::size_t(count) * sizeof(T));
    }
    peers_->wait_for_all();
    return whole_["phi"];
  }

  // The planes a rank sends to the gather: its interior planes and the physical ghost plane it holds
  // (the wall value or mirror of a z line's end), as (first own padded index, count).
  static std::pair<int, int> sent_planes(const Slab& s) {
    const int k0 = s.has_lo() ? 1 : 0, k1 = s.has_hi() ? s.nz : s.nz + 1;
    return {k0, k1 - k0 + 1};
  }

  RankContext ctx_;
  ImleLayout l_;
  Exec exec_;
  FieldSet<T> whole_;  // the whole grid's phi, d1, d2 and CC-CCD scratch
  std::vector<T> send_host_, whole_host_;  // gather()'s host buffers, kept between its 4 calls a step
  int most_planes_ = 0;
  std::unique_ptr<HaloExchange<T>> halo_, cg_halo_;
  bool peer_gather_ = false, peer_sums_ = false;
  std::unique_ptr<PeerRanks> peers_;  // either peer path
  Buffer<double> published_;           // sum_on_device's two buffers of partial sums
  int parity_ = 0;
};

}  // namespace nsb
