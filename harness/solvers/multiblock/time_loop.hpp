// The multi-block solver of Kemal, Davis & Owens (2015), one iteration of its loop (Fig. 1, notes
// Sec. 1.4), on the 13-block conjugate cylinder (mesh.hpp). A REPRESENTATIVE solver (formulas.hpp):
//
//   conjugatep    solid blocks: res_T                                  GPU (the paper's first routine)
//   lamvis        fluid: mu, mu_t                                      GPU
//   deltatp       fluid: local dt                                      GPU
//   dtmin         min of dt (reported; steady runs march local steps)  GPU reduction
//   stressp       fluid: stresses, heat flux                           GPU
//   stresstrb     fluid: k, omega diffusion fluxes and sources         GPU
//   zero          res = 0 (the scatter adds)                           (solver)
//   flux          fluid cells -> res of rho, rho u, rho v, E           GPU, 4-corner scatter
//   fluxtrb       fluid cells -> res of rho k, rho omega               GPU, 4-corner scatter
//   ifsum         interface nodes: res summed over the blocks sharing  CPU (boundary copies)
//   smthp         fluid: smoothing of the mean flow, res +=            GPU (smthp/smthu)
//   smthtrb       fluid: smoothing of k, omega, res +=                 GPU
//   multigrid     fluid: coarse-level corrections of res (a STAND-IN   CPU (whole planes down and up);
//                 for Ni's multigrid, multigrid.hpp)                   only with --case-param multigrid=L
//   update        U += res / vol (fluid), T += res_T (solid)           GPU
//   resmax        max |res_rho| / vol: the convergence residual        GPU reduction
//   bc            boundary conditions, shared-node copies, ghosts      CPU (boundary copies)
//
// Over ranks (--ranks P, or mpirun -np P) each rank runs its blocks of the paper's assignment (mesh.hpp
// mb_rank_blocks; a block is a z plane, so the rank's slab is its blocks' planes): its arrays hold only
// those planes, addressed by the 13-block indices through base pointers moved back by the planes before
// them (never dereferenced outside its own). The host routines exchange the bands between ranks
// (host_side.hpp); the two reductions are combined over ranks.
//
// Not done (docs/solvers/multiblock.md): Ni's own multigrid equations (the stand-in has its data movement).
#pragma once

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "multiblock/boundary.hpp"
#include "multiblock/host_side.hpp"
#include "multiblock/stage_call.hpp"
#include "nvtx.hpp"
#include "solver_base.hpp"

namespace nsb {

inline constexpr int kMbZeroSection = int(MbStage::count);  // after the stage sections
inline std::vector<std::string> mb_sections() {
  std::vector<std::string> s(std::begin(kMbStageNames), std::end(kMbStageNames));
  s.push_back("zero");
  return s;
}
// The state that defines a run (the rest is geometry or recomputed each iteration).
inline constexpr int kMbStateFields[] = {kRho, kRu, kRv, kE, kRk, kRw, kTs};

template <class T>
class MbSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::begin, Base::end, Base::sync;

 public:
  // `ctx`: a rank of a decomposed run (its slab is its blocks' planes), or null for all 13 blocks;
  // `multigrid_levels`: the stand-in's coarse levels (0: single grid, the stage is not run); `exchange`:
  // how ranks exchange the host routines' bands (host_side.hpp).
  MbSolver(std::shared_ptr<const MbMesh> mesh, const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx,
           int multigrid_levels = 0, MbExchange exchange = MbExchange::allgather)
      : Base(0), mesh_(std::move(mesh)), recipe_(r), multigrid_(multigrid_levels), local_(ctx ? slab_grid(mesh_->grid, ctx->slab()) : mesh_->grid),
        first_plane_(ctx ? ctx->slab().z_begin - 1 : 0), fields_(local_.padded_points(), r.backend == Backend::cuda),
        comm_(ctx ? ctx->comm : nullptr) {
    const std::size_t shift = std::size_t(first_plane_) * plane_elems(mesh_->grid);
    for (int f = 0; f < kMbFieldCount; ++f) arrays_.f[f] = fields_.add(kMbFieldNames[f]) - shift;
    gpu_ = r.backend == Backend::cuda;
    if (gpu_) {
      stream_ = device::stream_create();
      scratch_ = Buffer<double>(std::size_t(1) << 19, true, "multiblock reduction partials");
    }
    for (int b = first_plane_; b < first_plane_ + local_.nz; ++b) blocks_.push_back(b);
    store_ = std::make_unique<MbHostStore<T>>(*mesh_, fields_, blocks_, comm_, shift, exchange, ctx ? ctx->device : 0);
    for (int s = 0; s < int(MbStage::count); ++s) {
      const ResolvedStage& st = recipe_[kMbStageNames[s]];
      MbCall<T>& c = calls_[s];
      stage_[s] = &st;
      c.grid = mesh_->grid;
      c.a = arrays_;
      for (int b : mb_blocks_of(blocks_, MbStage(s))) c.blocks[c.nblocks++] = b;
      c.tuning = st.tuning;
      c.exec = Exec{r.backend, o.threads, stream_, scratch_.get(), scratch_.size() * sizeof(double)};
      c.host = store_->side();
      c.levels = multigrid_;
    }
    calls_[int(MbStage::dtmin)].scalar = &dt_min_;
    calls_[int(MbStage::resmax)].scalar = &res_max_;
    const std::vector<double>* geometry[] = {&mesh_->x, &mesh_->y, &mesh_->xi_x, &mesh_->xi_y,
                                             &mesh_->eta_x, &mesh_->eta_y, &mesh_->hlen, &mesh_->vol};
    for (int f = kX; f <= kVol; ++f) upload(f, *geometry[f - kX]);
  }
  ~MbSolver() override {
    if (stream_) device::stream_destroy(stream_);
  }
  MbSolver(const MbSolver&) = delete;
  MbSolver& operator=(const MbSolver&) = delete;

  // Every field on the GPU, the staging and the reduction partials.
  static std::size_t device_bytes(const Grid& g) { return (kMbFieldCount + 8) * g.padded_points() * sizeof(T) + (8u << 20); }

  void load(const HostState<T>& s) override {
    // Zero in place (on the GPU a memset, not a host array of zeros uploaded a field: 40 fields of GBs on G4).
    for (int f = 0; f < kX; ++f) fields_.zero(kMbFieldNames[f]);
    for (int f = kMbScratch; f < kMbFieldCount; ++f) fields_.zero(kMbFieldNames[f]);
    for (int f : kMbStateFields) fields_.upload(kMbFieldNames[f], s.field(kMbFieldNames[f]));
    step_ = s.step;
    history_.clear();
    sync();
  }
  HostState<T> save() const override {
    sync();
    HostState<T> s{local_, {}, step_, double(step_)};
    for (int f : kMbStateFields) s.fields.emplace_back(kMbFieldNames[f], fields_.buffer(kMbFieldNames[f]).download());
    return s;
  }

  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    for (MbStage s : {MbStage::conjugatep, MbStage::lamvis, MbStage::deltatp, MbStage::dtmin, MbStage::stressp, MbStage::stresstrb})
      run(s);
    zero_changes();
    for (MbStage s : {MbStage::flux, MbStage::fluxtrb, MbStage::ifsum, MbStage::smthp, MbStage::smthtrb}) run(s);
    if (multigrid_ > 0) run(MbStage::multigrid);
    for (MbStage s : {MbStage::update, MbStage::resmax, MbStage::bc}) run(s);
    end(kStepSection);
    history_.push_back(res_max_);
    ++step_;
  }

  // The convergence history (max |change of rho| per iteration), the last dt_min, and how many
  // iterations it took the residual to fall by a decade (0: it did not).
  nlohmann::json final_checks() override {
    sync();
    nlohmann::json j;
    j["residual_history"] = history_.size() <= 2000 ? history_ : std::vector<double>(history_.end() - 2000, history_.end());
    j["residual_first"] = history_.empty() ? 0.0 : history_.front();
    j["residual_last"] = history_.empty() ? 0.0 : history_.back();
    j["dt_min"] = dt_min_;
    if (const MbRankExchange<T>* x = store_->exchange()) j["exchange"] = exchange_report(*x);
    return j;
  }
  WorkModel work_model(int section) const override {
    if (section == kMbZeroSection) {
      const double nodes = double(mesh_->n) * mesh_->n * double(mb_blocks_of(blocks_, MbStage::flux).size());
      return {nodes, 6 * nodes * sizeof(T), 0};
    }
    if (section < 0 || section >= int(MbStage::count)) return {};
    return mb_work_model(MbStage(section), *mesh_, blocks_, int(sizeof(T)));
  }
  bool monitors_steady_state() const override { return true; }
  double steady_change() override { return res_max_; }

  int steps_per_graph() const override { return 1; }  // graph capture cannot hold the host routines (ifsum, bc)

  // The residual history so far (tests).
  const std::vector<double>& residual_history() const { return history_; }
  // Field f of this rank's planes as stored (tests: the changes the last iteration applied).
  std::vector<T> field(int f) const {
    sync();
    return fields_.buffer(kMbFieldNames[f]).download();
  }

 private:
  // The bytes and messages of an iteration's two exchanges (ifsum, bc), this rank's and all ranks' (every
  // rank calls final_checks: the gathers are collective).
  nlohmann::json exchange_report(const MbRankExchange<T>& x) const {
    const double bytes = double(x.bytes(MbStage::ifsum) + x.bytes(MbStage::bc));
    const double messages = double(x.messages(MbStage::ifsum) + x.messages(MbStage::bc));
    return {{"kind", x.peer_to_peer() ? "neighbours_p2p" : x.neighbours() ? "neighbours" : "allgather"},
            {"bytes_per_iteration_by_rank", comm_->allgather_value(bytes)},
            {"bytes_per_iteration", comm_->allreduce_sum(bytes)},
            {"messages_per_iteration", comm_->allreduce_sum(messages)},
            {"counts", x.peer_to_peer()
                           ? "bytes each rank pulled from other ranks' GPUs in one iteration (ifsum + bc: the P2P "
                             "variants, each neighbour's whole packed band), and its peer copies"
                           : "bytes each rank's data delivered to other ranks in one iteration (ifsum + bc); allgather: "
                             "its padded band to each of P - 1 ranks, one message each"}};
  }
  // A geometry field of the 13-block mesh: this rank's planes of it.
  void upload(int f, const std::vector<double>& values) {
    const auto first = values.begin() + std::ptrdiff_t(std::size_t(first_plane_) * plane_elems(mesh_->grid));
    std::vector<T> v(local_.padded_points());
    std::transform(first, first + std::ptrdiff_t(v.size()), v.begin(), [](double x) { return T(x); });
    fields_.upload(kMbFieldNames[f], v);
  }
  // A rank without blocks of a stage's kind skips it (a reduction then offers its neutral value).
  void run(MbStage s) {
    const ResolvedStage& st = *stage_[int(s)];
    NvtxRange range(st.variant->id().c_str());
    begin(int(s));
    MbCall<T>& c = calls_[int(s)];
    if (c.nblocks > 0 || s == MbStage::ifsum || s == MbStage::bc) st.variant->template fn<MbCall<T>>()(c);
    else if (c.scalar) *c.scalar = s == MbStage::dtmin ? std::numeric_limits<double>::infinity() : 0.0;
    if (comm_ && s == MbStage::dtmin) dt_min_ = -comm_->allreduce_max(-dt_min_);
    if (comm_ && s == MbStage::resmax) res_max_ = comm_->allreduce_max(res_max_);
    end(int(s));
  }
  // res of the fluid unknowns and res_T to zero (res_T is rewritten by conjugatep; zeroed for clarity).
  void zero_changes() {
    begin(kMbZeroSection);
    for (int f = kRes0; f <= kRes5; ++f) {
      T* local = fields_[kMbFieldNames[f]];
      if (gpu_) device::fill_bytes(local, 0, local_.padded_points() * sizeof(T), stream_);
      else std::fill(local, local + local_.padded_points(), T(0));
    }
    end(kMbZeroSection);
  }

  std::shared_ptr<const MbMesh> mesh_;
  ResolvedRecipe recipe_;
  int multigrid_;    // coarse levels of the multigrid stand-in (0: off)
  Grid local_;       // this rank's planes (all 13 blocks undecomposed)
  int first_plane_;  // the 13-block plane of its lower ghost plane
  FieldSet<T> fields_;
  Communicator* comm_;  // null: one rank
  MbArrays<T> arrays_{};
  bool gpu_ = false;
  Buffer<double> scratch_;
  std::vector<int> blocks_;
  std::unique_ptr<MbHostStore<T>> store_;
  const ResolvedStage* stage_[int(MbStage::count)] = {};
  MbCall<T> calls_[int(MbStage::count)];
  double dt_min_ = 0, res_max_ = 0;
  std::vector<double> history_;
};

}  // namespace nsb
