// The fractional-step solver of Ha, Park & You (notes seed_002 Sec. 1.4), V0: one GPU (or the CPU),
// the whole grid; V2 on y-slabs: emulated on virtual ranks of one device, or one of P real ranks, host or
// GPU (FracstepRank: its slab's rows, ghost rows from its neighbours, its part of the split y solves); V1 on
// z-slabs: one of P real ranks, host or GPU (its planes, ghost planes from its ring neighbours, ADI-Z and the
// Poisson solve's z part on its x-slab through the all-to-all transposes; GPU ranks: peer copies, threads
// driver). A time step is three RK3 sub-steps (formulas.hpp), each:
//
//   rhs          explicit right-hand side (RK3 convection, CN viscous, pressure, force)   fracstep/rhs
//   adi_z        (1 - beta Lz)^-1 on du dv dw, cyclic (Sherman-Morrison)                    fracstep/adi_z
//   adi_y        (1 - beta Ly)^-1, Thomas (walls)                                           fracstep/adi_y
//   adi_x        (1 - beta Lx)^-1, cyclic                                                   fracstep/adi_x
//   divergence   div(u + du)                                                                fracstep/divergence
//   poisson      L phi = div / (2 alpha dt): the Poisson family's fft2_tridiag (transforms
//                in x and z, a Thomas solve in y: the paper's FFT + TDMA-C), or fft
//   correct      u += du - 2 alpha dt G phi; p += phi                                       fracstep/correct
//
// The sweep order z, y, x is the paper's (notes Sec. 1.5: its transposes go x->z, z->y, y->x). The
// timing sections are these seven (the six stages in step order, then poisson) (notes Sec. 6.3 names RHS, ADI-X, ADI-Y, ADI-Z, FFT and TDMA-C; the
// last two are one section here, the Poisson method's whole solve, since the method runs its transforms
// and its y solve inside one call).
// N(u) of the previous sub-step lives in one of two buffers: sub-step k writes buffer k % 2 and reads the
// other, so every step runs the same pointers (zeta_0 = 0: the first sub-step's read is multiplied by 0).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <map>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "comm.hpp"
#include "device.hpp"
#include "fields.hpp"
#include "fracstep/adi_tables.hpp"
#include "fracstep/gpu_ranks.hpp"
#include "fracstep/stage_call.hpp"
#include "transpose/transpose_ranks_host.hpp"
#include "nvtx.hpp"
#include "poisson/fft_solve.hpp"
#include "poisson/poisson.hpp"
#include "solver_base.hpp"
#include "tridiag/split_comm.hpp"

namespace nsb {

// The stages in step order (kFracstepStages), then the solver's own sections: the Poisson solve and,
// inside it, its transforms (`fft`: pack, forward and inverse x and z transforms, unpack, ghosts) and its
// y solve (`tdma_c`), the paper's FFT and TDMA-C components (notes Sec. 6.3, Fig. 5).
// V2 timed rank by rank (tridiag/split_phases.hpp) adds, inside adi_y and tdma_c, each virtual rank's
// phases: "adi_y/r<r>/<phase>" from kFsAdiYRanks, "tdma_c/r<r>/<phase>" from kFsTdmaCRanks (r < 8; phase
// local, pack, exchange, reduced, correct: notes Sec. 6.3's splits of ADI-Y and TDMA-C). A real y-slab
// rank also times its ghost-row exchanges ("ghost_rows": the paper's y halo; a V1 z-slab rank's ghost planes),
// a V1 rank its all-to-all transposes ("all_to_all", inside adi_z and fft: M1, M2, P1, P4).
enum FracstepSection : int { kFsRhs = 0, kFsAdiZ, kFsAdiY, kFsAdiX, kFsDivergence, kFsCorrect, kFsPoisson, kFsFft, kFsTdmaC,
                             kFsAdiYRanks, kFsTdmaCRanks = kFsAdiYRanks + kPptMaxRanks * kSplitPhases,
                             kFsGhostRows = kFsTdmaCRanks + kPptMaxRanks * kSplitPhases, kFsAllToAll };
inline std::vector<std::string> fracstep_sections() {
  std::vector<std::string> s(std::begin(kFracstepStages), std::end(kFracstepStages));
  for (const char* own : {"poisson", "fft", "tdma_c"}) s.push_back(own);
  for (const char* part : {"adi_y", "tdma_c"})
    for (int r = 0; r < kPptMaxRanks; ++r)
      for (const char* phase : kSplitPhaseNames) s.push_back(std::string(part) + "/r" + std::to_string(r) + "/" + phase);
  s.push_back("ghost_rows");
  s.push_back("all_to_all");
  return s;
}

// What a case hands the solver.
struct FracstepParameters {
  double dt = 0, nu = 0;
  double force[3] = {0, 0, 0};
  std::vector<double> y_faces;  // ny + 1 face positions, 0 .. ly (tanh_wall_faces)
  double y_stretch = 0;         // its tanh parameter (0: uniform, which the fft method can solve too)
  // The variant (notes Sec. 6.1): V0 whole grid; V2 y-slabs over y_ranks virtual ranks on this device,
  // ADI-Y by PDD (momentum_exact: PPT, V2-ppt) and TDMA-C by PPT (poisson_exact = false: PDD, V2-acc).
  std::string variant = "V0";
  int y_ranks = 1;
  bool momentum_exact = false, poisson_exact = true;
  bool rank_phases = true;  // V2: the y solves rank by rank, each rank's phases timed (split_phases.hpp)
  // V2's ADI-Y local phase: v, w, c' of every line (false: the paper's Algorithm 1, split_local) or set
  // up once a component and sub-step (true: AdiYSplitFactors, split_local_factored; notes [A] Sec. 6.4).
  bool split_factors_shared = false;
  // V2 on GPU ranks: how the ranks' GPUs talk (ghost rows, the y solves' messages): "peer" (peer copies,
  // the threads driver) or "nccl" (either driver, one GPU a rank; gpu_ranks.hpp).
  std::string gpu_messages = "peer";
  // V2-async (variant=V2-async: V2's PDD ADI-Y and PPT TDMA-C): on real GPU ranks, the split y solves'
  // messages on a stream of their own, beside the work of the next of `batches` batches of lines
  // (split_solve_rank_pipelined; gpu_messages=nccl).
  bool overlap = false;
  int batches = 4;
};

// The Poisson method: fft2_tridiag (the paper's), or fft; the generic default "jacobi" means the
// former here (a Jacobi sweep stage of its own is not part of this solver).
inline std::string fracstep_poisson_method(const SolverOptions& o) {
  return o.poisson_method == "jacobi" ? "fft2_tridiag" : o.poisson_method;
}
inline void check_fracstep_options(const SolverOptions& o, bool stretched_y) {
  const std::string m = fracstep_poisson_method(o);
  if (stretched_y && m == "fft")
    throw std::runtime_error("the fracstep solver's stretched y needs --poisson fft2_tridiag (fft transforms y: uniform "
                             "only; --case-param y_stretch=0 for a uniform y)");
  if (m != "fft2_tridiag" && m != "fft")
    throw std::runtime_error("the fracstep solver's pressure is a direct solve: --poisson fft2_tridiag (default) or fft, "
                             "not " + o.poisson_method);
  if (o.scheme != TimeScheme::euler) throw std::runtime_error("the fracstep solver's time scheme is RK3/CN; drop --scheme");
}

inline PoissonFaces fracstep_faces() {
  PoissonFaces f;
  f.face[0][0] = f.face[0][1] = PoissonFace::periodic;
  f.face[2][0] = f.face[2][1] = PoissonFace::periodic;
  return f;  // y: neumann
}

// A y-slab rank of a real V2 run (fracstep.md, "V2 on real ranks"; --ranks P, host arrays or a GPU of
// the threads driver): the solver's grid is its slab (its rows and a ghost row each side), `first` its
// first cell row of the channel (0-based), `whole` the channel's grid, `device` its GPU (cuda). comm
// null: one rank (V0, or V2 emulated on virtual ranks). z_slabs: a z-slab rank of a real V1 run, host or
// GPU (fracstep.md, "V1 on real ranks (host)" and "(GPU)"): the grid is its planes and a ghost plane each
// side, `first` its first plane of the channel (0-based).
struct FracstepRank {
  Communicator* comm = nullptr;
  int rank = 0, ranks = 1;
  int first = 0;
  Grid whole;
  int device = -1;
  bool z_slabs = false;
};

template <class T>
class FracstepSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::time_, Base::begin, Base::end, Base::sync;

 public:
  static std::vector<std::string> field_names() {
    return {"u", "v", "w", "p", "du", "dv", "dw", "n0_u", "n0_v", "n0_w", "n1_u", "n1_v", "n1_w", "phi", "div"};
  }
  static std::vector<std::string> state_names() { return {"u", "v", "w", "p"}; }

  // g: the grid (a y-slab rank's own, with `rank`); the ADI tables and the Poisson rows are the
  // channel's whole lines (a rank reads them by the channel's row index).
  FracstepSolver(const Grid& g, const FracstepParameters& prm, const ResolvedRecipe& r, const SolverOptions& o,
                 const FracstepRank& rank = {})
      : Base(prm.dt), grid_(g), prm_(prm), recipe_(r), rank_(rank), fields_(g.padded_points(), r.backend == Backend::cuda),
        metric_(rank.comm && !rank.z_slabs ? y_metric_rows(y_metric_values(prm.y_faces), rank.whole.ny, rank.first, g.ny) : y_metric_values(prm.y_faces),
                r.backend == Backend::cuda),
        tables_(rank.comm ? rank.whole : g, prm.dt, prm.nu, y_metric_values(prm.y_faces), r.backend == Backend::cuda),
        poisson_(make_poisson_method<T>(fracstep_poisson_method(o), {})) {
    check_fracstep_options(o, prm.y_stretch > 0);
    const bool gpu = r.backend == Backend::cuda;
    if (prm.y_ranks > 1 && prm.split_factors_shared && !rank.comm && !prm.rank_phases)  // refusals before the stream
      throw std::invalid_argument("fracstep: split_factors=shared runs the y solves rank by rank (rank_phases=1, or --ranks P)");
    if (prm.overlap && !(rank.comm && gpu))
      throw std::invalid_argument("fracstep: V2-async overlaps the messages of real GPU ranks: --ranks P --backend cuda");
    if (gpu) stream_ = device::stream_create();
    method_name_ = fracstep_poisson_method(o);
    for (const std::string& name : field_names()) fields_.add(name);
    if (prm.y_ranks > 1 && prm.split_factors_shared) {  // V2's ADI-Y factors, one line a component and sub-step
      y_factors_ = std::make_unique<AdiYSplitFactors<T>>(tables_, prm.y_ranks, rank.comm ? rank.whole.ny : g.ny, gpu);
    } else if (prm.y_ranks > 1) {  // V2's split y sweeps per line: v, w and c' of each component
      for (int c = 0; c < 3; ++c)
        for (int m = 0; m < 3; ++m) call_.y_scratch[c][m] = fields_.add("split_" + std::to_string(3 * c + m));
    }
    call_.y_ranks = prm.y_ranks, call_.y_exact = prm.momentum_exact;
    if (rank.comm && rank.z_slabs) {  // a real V1 rank: ADI-Z through its x-slabs; a GPU rank's ghost planes by peer copies
      if (gpu) {
        GpuZSlabLinks<T> links = make_gpu_z_slab_links<T>(*rank.comm, g, rank.whole, stream_, rank.device);
        ghost_rows_ = std::move(links.ghost_planes), z_transposes_ = std::move(links.transposes);
      } else {
        z_transposes_ = std::make_unique<HostZSlabTransposes<T>>(*rank.comm, g, rank.whole, rank.rank);
      }
      call_.z_slabs = z_transposes_.get(), call_.z_all_to_all = kFsAllToAll;
    } else if (rank.comm) {  // a real rank: its own part of ADI-Y, its messages (host: the Communicator; GPU: gpu_messages)
      if (gpu) {
        links_ = make_gpu_rank_links<T>(prm.gpu_messages, *rank.comm, g, stream_, rank.device, prm.overlap);
        messages_ = std::move(links_.messages), ghost_rows_ = std::move(links_.ghost_rows), overlap_ = std::move(links_.overlap);
        call_.y_overlap = overlap_.get(), call_.y_batches = prm.batches;
      } else {
        messages_ = std::make_unique<CommSplitMessages<T>>(*rank.comm);
      }
      split_words_ = Buffer<T>(adi_split_words(g, prm.y_ranks, prm.momentum_exact, 1), gpu, "fracstep: a rank's split buffers");
      call_.split_words = split_words_.get(), call_.rank_phases = kFsAdiYRanks;
      call_.y_messages = messages_.get(), call_.y_rank = rank.rank, call_.y_first = rank.first, call_.y_cells = rank.whole.ny;
    } else if (prm.y_ranks > 1 && prm.rank_phases) {  // the ranks' message buffers of the phased ADI-Y
      split_words_ = Buffer<T>(adi_split_words(g, prm.y_ranks, prm.momentum_exact), r.backend == Backend::cuda, "fracstep: split buffers");
      call_.split_words = split_words_.get(), call_.rank_phases = kFsAdiYRanks;
    }
    for (int s = 0; s < 6; ++s) stage_[s] = &recipe_[kFracstepStages[s]];
    exec_ = Exec{r.backend, o.threads, stream_, nullptr, 0};
    call_.grid = g;
    call_.spacing = metric_.spacing(spacing_grid());
    call_.spacing.walls = walls();
    call_.p = fields_["p"], call_.phi = fields_["phi"], call_.div = fields_["div"];
    const char* vel[3] = {"u", "v", "w"};
    const char* dvel[3] = {"du", "dv", "dw"};
    for (int c = 0; c < 3; ++c) {
      call_.vel[c] = fields_[vel[c]], call_.dvel[c] = fields_[dvel[c]];
      conv_[0][c] = fields_[std::string("n0_") + vel[c]], conv_[1][c] = fields_[std::string("n1_") + vel[c]];
    }
    call_.exec = exec_;
  }
  ~FracstepSolver() override {
    poisson_.reset();  // its plans may use the stream
    ghost_rows_.reset(), messages_.reset(), overlap_.reset(), links_ = {}, z_transposes_.reset();
    if (stream_) device::stream_destroy(stream_);
  }
  FracstepSolver(const FracstepSolver&) = delete;
  FracstepSolver& operator=(const FracstepSolver&) = delete;

  // Bytes on the GPU: the 15 fields, and the direct Poisson solve's working arrays (W and E, a complex
  // value a cell each, and a word of Thomas scratch: variants/poisson/fft/spectral_lines.cuh) with room for
  // cuFFT's work areas of its two plans (up to a complex value a cell each): 24 words a cell in all.
  // V2 (y_ranks > 1): the 9 scratch fields of the split y sweeps and 2 more words a cell of Poisson scratch.
  // Timed rank by rank (rank_phases), the ranks' message buffers too (split_buffer_words): of the ADI-Y
  // and, in the Poisson solve, of TDMA-C with 3 more scratch words a point (PPT's size, the larger): 6 a
  // point of TDMA-C scratch in all. With shared factors (split_factors=shared): ADI-Y's 27 short lines in
  // place of the 9 fields, and TDMA-C's v, w, c' shared by a line's two parts (3 words a point, not 6).
  static std::size_t adi_split_words(const Grid& g, int y_ranks, bool exact, int slots = -1) {
    return split_buffer_words(3 * std::size_t(g.nx) * g.nz, y_ranks, exact, slots);
  }
  // channel_ny: the channel's cell rows, where g is a y-slab rank's (the factors are lines of the channel's rows).
  static std::size_t device_bytes(const Grid& g, int y_ranks, bool momentum_exact = false, bool factors_shared = false,
                                  int channel_ny = 0) {
    if (y_ranks <= 1) return 24 * g.padded_points() * sizeof(T);
    const std::size_t split = adi_split_words(g, y_ranks, momentum_exact) + split_buffer_words(2 * std::size_t(g.nx) * g.nz, y_ranks, true);
    const std::size_t adi_y = factors_shared ? AdiYSplitFactors<T>::words(channel_ny > 0 ? channel_ny : g.ny) : 9 * g.padded_points();
    const std::size_t poisson = 8 + (factors_shared ? kTdmaSharedFactorsPerPoint : kTdmaPhasedScratchPerPoint);  // W, E, cuFFT; TDMA-C's scratch
    return ((15 + poisson) * g.padded_points() + adi_y + split) * sizeof(T);
  }

  // V1 on a GPU z-slab rank (g its slab): V0's 24 words a cell (the 15 fields, the Poisson solve's W and E,
  // Thomas's scratch, the work areas of its x and z plans) and, counting the x-slab as the z-slab's size
  // (columns x ny x nz against nx x ny x nz_r: equal for even splits, a column or a plane apart otherwise; the
  // padded count leaves a margin), ADI-Z's three x-slabs and transpose blocks (4 words), the Poisson solve's
  // x-slab W and E (4) and its transpose blocks (2 words: complex): 34 words a cell.
  static std::size_t z_slab_device_bytes(const Grid& g) { return 34 * g.padded_points() * sizeof(T); }

  // Whether the solver allocated this field (what V2's forms allocate: split_factors=shared has no split_*).
  bool has_field(const std::string& name) const { return fields_.has(name); }

  void load(const HostState<T>& s) override {
    for (const std::string& name : field_names()) {  // a field the state does not set starts at zero (a GPU memset)
      if (s.has(name)) fields_.upload(name, s.field(name));
      else fields_.zero(name);
    }
    step_ = s.step;
    time_ = s.time;
    if (rank_.z_slabs)
      for (const std::string& name : state_names())
        loaded_ghost_planes_[name] = s.has(name) ? ghost_planes(s.field(name)) : std::vector<T>(2 * std::size_t(grid_.sz()), T(0));
    sync();
  }
  // A z-slab rank's ghost planes are working copies of its neighbours' planes (the exchanges); its state
  // keeps the ghost planes it was loaded with, as one rank keeps its ghost layer (never written), so that
  // the gathered state is comparable with V0's arrays whole.
  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, time_};
    for (const std::string& name : state_names()) s.fields.emplace_back(name, fields_.buffer(name).download());
    if (rank_.z_slabs)
      for (auto& [name, values] : s.fields) {
        const std::vector<T>& kept = loaded_ghost_planes_.at(name);
        std::copy(kept.begin(), kept.begin() + grid_.sz(), values.begin());
        std::copy(kept.begin() + grid_.sz(), kept.end(), values.begin() + std::ptrdiff_t(grid_.idx(0, 0, grid_.nz + 1)));
      }
    return s;
  }

  void step() override {
    if (ghost_rows_ && device::stream_capturing(stream_))  // the host meets the other ranks inside a step (below)
      throw std::runtime_error("fracstep: V1 and V2 on GPU ranks cannot be recorded in a CUDA graph (the peer messages, V1's "
                               "transposes and V2's TDMA-C null-space line meet the other ranks on the host): --launch stream");
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    for (int k = 0; k < 3; ++k) substep(k);
    end(kStepSection);
    ++step_;
    time_ += prm_.dt;
  }

  // The divergence of the saved velocity (after the last projection): its largest |div| times the cell
  // size over the largest |velocity| is round-off when the projection works.
  // A y-slab rank: over its own cells (its ghost rows first taken from the neighbours), then the
  // largest over the ranks.
  nlohmann::json final_checks() override {
    exchange_ghost_rows({call_.vel[0], call_.vel[1], call_.vel[2]}, false);
    sync();  // the fields as they are (save() would put back a z-slab rank's loaded ghost planes)
    const std::vector<T> host[3] = {fields_.buffer("u").download(), fields_.buffer("v").download(), fields_.buffer("w").download()};
    const T* vel[3] = {host[0].data(), host[1].data(), host[2].data()};
    const std::vector<T> zero(grid_.padded_points(), T(0));
    const T* none[3] = {zero.data(), zero.data(), zero.data()};
    Spacing<T> sp = metric_.host_spacing(spacing_grid());
    sp.walls = walls();
    double max_div = 0, max_vel = 0;  // maxima: the same in any order (a large grid's cells on every core)
#pragma omp parallel for collapse(2) reduction(max : max_div, max_vel) schedule(static)
    for (int k = 1; k <= grid_.nz; ++k)
      for (int j = 1; j <= grid_.ny; ++j)
        for (int i = 1; i <= grid_.nx; ++i) {
          max_div = std::max(max_div, std::abs(double(divergence_point(vel, none, grid_, sp, i, j, k))));
          for (int c = 0; c < 3; ++c) max_vel = std::max(max_vel, std::abs(double(vel[c][grid_.idx(i, j, k)])));
        }
    if (rank_.comm) max_div = rank_.comm->allreduce_max(max_div), max_vel = rank_.comm->allreduce_max(max_vel);
    double h = std::min(spacing_grid().dx(), spacing_grid().dz());
    for (int j = 0; j < int(prm_.y_faces.size()) - 1; ++j) h = std::min(h, prm_.y_faces[std::size_t(j) + 1] - prm_.y_faces[std::size_t(j)]);
    return {{"max_divergence", max_div},
            {"relative_divergence", max_vel > 0 ? max_div * h / max_vel : max_div},
            {"max_velocity", max_vel},
            {"poisson_method", method_name_}};
  }
  WorkModel work_model(int section) const override {
    if (section == kFsPoisson) return fft_solve_model(grid_, fracstep_faces(), int(sizeof(T)), method_name_ == "fft2_tridiag");
    if (section == kFsFft || section == kFsTdmaC) return {};  // parts of poisson's model
    if (section < 0 || section > kFsCorrect) return {};
    return fracstep_model(kFracstepStages[section], grid_, int(sizeof(T)));
  }
  // fft: forward and inverse; ghost_rows: three exchanges a sub-step; all_to_all: four transposes a sub-step
  // (ADI-Z's there and back, of du, dv, dw each; the Poisson solve's there and back)
  double calls_per_step(int section) const override {
    return section == kFsFft ? 6 : section == kFsGhostRows ? 9 : section == kFsAllToAll ? 12 : 3;
  }

  void set_timer(SectionTimer* t) override { timer_ = call_.timer = t; }  // its stage calls time their phases
  int steps_per_graph() const override { return 1; }  // every step runs the same pointers

 private:
  void substep(int k) {
    call_.coef = substep_coef<T>(k, prm_.dt, prm_.nu, prm_.force);
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 3; ++c) call_.adi[a][c] = tables_.of_substep(k)[a][c];
    for (int c = 0; c < 3; ++c) call_.conv[c] = conv_[k % 2][c], call_.conv_old[c] = conv_[(k + 1) % 2][c];
    if (y_factors_)
      for (int c = 0; c < 3; ++c)
        for (int m = 0; m < 3; ++m) call_.y_factors[c][m] = y_factors_->of_substep(k)[c][m];
    exchange_ghost_rows({call_.vel[0], call_.vel[1], call_.vel[2], call_.p});  // convection, viscous term, G p
    run(kFsRhs);
    run(kFsAdiZ);
    run(kFsAdiY);
    run(kFsAdiX);
    exchange_ghost_rows({call_.dvel[0], call_.dvel[1], call_.dvel[2]});  // div(u + du): v + dv at the face below
    run(kFsDivergence);
    solve_pressure(k);
    exchange_ghost_rows({fields_["phi"]});  // G phi at the face above
    run(kFsCorrect);
  }

  void run(int section) {
    const ResolvedStage& st = *stage_[section];  // a stage's section is its index in kFracstepStages
    NvtxRange range(st.variant->id().c_str());
    begin(section);
    call_.tuning = st.tuning;
    call_.exec.backend = st.variant->backend;
    st.variant->template fn<FracstepCall<T>>()(call_);
    end(section);
  }

  void solve_pressure(int k) {
    NvtxRange range("poisson");
    begin(kFsPoisson);
    PoissonEquation<T> e;
    e.grid = grid_;
    e.faces = fracstep_faces();
    e.p = fields_["phi"];
    e.rhs = fields_["div"];
    e.rhs_scale = T(1.0 / (2 * Rk3::alpha(k) * prm_.dt));
    e.y_faces = prm_.y_stretch > 0 ? prm_.y_faces.data() : nullptr;
    e.y_ranks = prm_.y_ranks, e.y_exact = prm_.poisson_exact, e.y_factors_shared = prm_.split_factors_shared;
    e.phases = {timer_, kFsFft, kFsTdmaC, (rank_.comm && !rank_.z_slabs) || (prm_.y_ranks > 1 && prm_.rank_phases) ? int(kFsTdmaCRanks) : -1};
    if (rank_.z_slabs) e.z_slab = {rank_.comm, rank_.rank, rank_.whole.nz, rank_.first, rank_.whole.dz(), kFsAllToAll};
    else if (rank_.comm) e.y_slab = {rank_.comm, rank_.rank, rank_.first, rank_.whole.ny, rank_.whole.dy()};
    if (ghost_rows_) set_y_messages(e.y_slab, messages_.get());  // a GPU rank's TDMA-C talks as its ADI-Y
    e.y_slab.overlap = overlap_.get(), e.y_slab.batches = prm_.batches;  // and overlaps as it does (V2-async)
    e.exec = exec_;
    EquationOnlySystem<T> system(e, "the fracstep solver's pressure needs a direct Poisson method");
    poisson_->solve(system);
    end(kFsPoisson);
  }

  YWalls walls() const {
    if (rank_.z_slabs) return {true, true, false};  // the channel's walls; z read from the ghost planes
    return {rank_.rank == 0, rank_.rank == rank_.ranks - 1};
  }
  // The grid whose steps the formulas take: a z-slab rank's own lz / nz may differ from the channel's dz in
  // the last bit, so it takes the channel's (its nx, ny are the channel's too).
  Grid spacing_grid() const { return rank_.z_slabs ? rank_.whole : grid_; }
  // Planes 0 and nz + 1 of a padded field, one after the other.
  std::vector<T> ghost_planes(const std::vector<T>& f) const {
    std::vector<T> out(f.begin(), f.begin() + grid_.sz());
    const auto top = f.begin() + std::ptrdiff_t(grid_.idx(0, 0, grid_.nz + 1));
    out.insert(out.end(), top, top + grid_.sz());
    return out;
  }

  // A y-slab rank's ghost rows of these fields from its neighbours' edge rows (row 1 goes down, row ny
  // up): a row of a field is its nz + 2 padded planes' runs of NX values; host arrays through the
  // Communicator, GPU arrays by peer copies or NCCL (ghost_rows_, gpu_ranks.hpp). A global wall's ghost row is
  // never read (the formulas' wall rules). Timed as section ghost_rows (a step's, not final_checks').
  // One rank: nothing.
  // A z-slab rank of V1: its ghost planes instead (host: exchange_ghost_layers_host; GPU: ghost_rows_ made for
  // planes, peer copies), timed in the same section.
  void exchange_ghost_rows(std::initializer_list<T*> fields, bool timed = true) {
    if (!rank_.comm) return;
    if (timed) begin(kFsGhostRows);
    if (ghost_rows_) ghost_rows_->exchange(std::vector<T*>(fields));
    else exchange_ghost_layers_host(fields);
    if (timed) end(kFsGhostRows);
  }
  // A host rank's ghost layers of these fields from its neighbours' edge layers: a V2 y-slab rank's rows (its
  // neighbours rank - 1 and rank + 1, none past the channel's walls), a V1 z-slab rank's planes (a ring: z is
  // periodic). Its layer 1 goes below (their layer n + 1), its layer n above (their layer 0). A row of a field is
  // NZ runs of NX values a plane apart, a plane one run of NX NY values. Sent below first, received from above
  // first: at P = 2 a ring's two neighbours are one rank, whose two messages arrive in the order sent.
  void exchange_ghost_layers_host(std::initializer_list<T*> fields) {
    const bool planes = rank_.z_slabs;
    const int n = planes ? grid_.nz : grid_.ny, p = rank_.ranks, r = rank_.rank;
    const std::size_t plane = std::size_t(grid_.sz()), run = planes ? plane : std::size_t(grid_.NX());
    const std::size_t runs = planes ? 1 : std::size_t(grid_.NZ()), values = run * runs * fields.size();
    const auto copy_layer = [&](int layer, std::vector<T>& buffer, bool pack) {
      buffer.resize(values);
      std::size_t at = 0;
      for (T* f : fields)
        for (std::size_t q = 0; q < runs; ++q, at += run) {
          T* first = f + (planes ? grid_.idx(0, 0, layer) : grid_.idx(0, layer, 0)) + q * plane;
          if (pack) std::copy(first, first + run, buffer.begin() + std::ptrdiff_t(at));
          else std::copy(buffer.begin() + std::ptrdiff_t(at), buffer.begin() + std::ptrdiff_t(at + run), first);
        }
    };
    const int below = planes ? (r + p - 1) % p : r - 1, above = planes ? (r + 1) % p : r + 1 < p ? r + 1 : -1;
    const std::size_t bytes = values * sizeof(T);
    std::vector<Communicator::Send> sends;
    std::vector<Communicator::Recv> recvs;
    if (below >= 0) copy_layer(1, send_[0], true), sends.push_back({below, send_[0].data(), bytes});
    if (above >= 0) copy_layer(n, send_[1], true), sends.push_back({above, send_[1].data(), bytes});
    recv_[0].resize(values), recv_[1].resize(values);
    if (above >= 0) recvs.push_back({above, recv_[1].data(), bytes});
    if (below >= 0) recvs.push_back({below, recv_[0].data(), bytes});
    rank_.comm->neighbour_exchange(sends, recvs);
    if (below >= 0) copy_layer(0, recv_[0], false);
    if (above >= 0) copy_layer(n + 1, recv_[1], false);
  }


  Grid grid_;
  FracstepParameters prm_;
  ResolvedRecipe recipe_;
  FracstepRank rank_;
  std::unique_ptr<SplitMessages<T>> messages_;  // a real rank's ADI-Y messages
  std::unique_ptr<GhostRows<T>> ghost_rows_;     // a real GPU rank's ghost rows (V1: planes; host ranks: send_, recv_)
  std::unique_ptr<SplitOverlap> overlap_;        // V2-async: its compute stream against its message stream
  std::unique_ptr<ZSlabTransposes<T>> z_transposes_;  // a V1 rank's ADI-Z transposes (host or GPU)
  std::map<std::string, std::vector<T>> loaded_ghost_planes_;  // a V1 rank's state's ghost planes as loaded
  GpuRankLinks<T> links_;                        // what the two above share on GPU ranks (NCCL's communicator)
  std::vector<T> send_[2], recv_[2];             // a host rank's ghost layers' messages (below, above)
  const ResolvedStage* stage_[6] = {};
  FieldSet<T> fields_;
  Buffer<T> split_words_;
  YMetric<T> metric_;
  AdiTables<T> tables_;
  std::unique_ptr<AdiYSplitFactors<T>> y_factors_;  // V2's ADI-Y with shared factors
  std::unique_ptr<PoissonMethod<T>> poisson_;
  std::string method_name_ = "";
  T* conv_[2][3] = {};
  FracstepCall<T> call_;
  Exec exec_;
};

}  // namespace nsb
