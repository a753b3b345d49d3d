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
// "patches all the data together" through the host; so does this: each rank sends its planes of phi
// (and the physical ghost plane it holds) through the host to every rank (Communicator::allgather), each
// solves every z line of the whole grid on its own device and keeps its planes of d1, d2. Cost a call:
// the whole field through host memory on every rank (copy to host, the gather, copy back) and the whole
// grid's z solve on every rank, so the z calls do not speed up with ranks (the paper: CC-CCD gets no
// further speedup beyond one GPU), plus six whole-grid arrays a rank (phi, d1, d2, the call's scratch).
// Splitting the lines between ranks (an all-to-all transpose) would divide the solve but not the traffic.
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

// Whole planes between arrays of one backend.
template <class T>
void copy_planes(T* dst, const T* src, std::size_t elems, const Exec& e) {
  if (e.backend == Backend::cuda) device::copy_device(dst, src, elems * sizeof(T), e.stream);
  else std::memcpy(dst, src, elems * sizeof(T));
}

template <class T>
class ImleRanks final : public PoissonRanks<T> {
 public:
  ImleRanks(const RankContext& ctx, const ImleLayout& l, Exec exec)
      : ctx_(ctx), l_(l), exec_(exec), whole_(l.global.padded_points(), exec.backend == Backend::cuda) {
    ctx_.grid = l.own, ctx_.stream = exec.stream;
    if (!ctx.halo) throw std::logic_error("imle: a decomposed run without a halo variant");
    for (const char* name : {"phi", "d1", "d2", "scratch_0", "scratch_1", "scratch_2"}) whole_.add(name);
    for (const Slab& s : ctx.slabs) most_planes_ = std::max(most_planes_, sent_planes(s).second);
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
  nlohmann::json describe() const { return halo_ ? halo_->describe() : nlohmann::json::object(); }

  // PoissonRanks: CG's vectors get a halo exchange of their own (the same variant).
  void attach(const std::vector<T*>& vectors) override {
    cg_halo_ = ctx_.halo->template factory<T>()(ctx_);
    cg_halo_->attach(vectors);
  }
  void exchange(T* vector) override { cg_halo_->exchange({vector}); }
  double sum(double x) override { return ctx_.comm->allreduce_sum(x); }
  double global_points() const override { return double(l_.global.interior_points()); }

  // The whole grid's phi (its ghost planes included) on this rank's backend, from every rank's planes.
  const T* gather(const T* phi_own) {
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
};

}  // namespace nsb
