// The fractional-step solver as the executor sees it: its cases, sections and stages (SolverDef), and a
// case set up for runs (FracstepProblem: initial state, the solver, validation against exact solutions).
//
// Cases (all: x, z periodic; no-slip walls at y = 0 and y = ly; ly = 1, lx = nx / ny and lz = nz / ny
// (cells of side ly / ny in x and z: the paper gives no domain, notes Sec. 6.1); y clustered at both
// walls by tanh with --case-param y_stretch=S (default 3; 0: uniform; poisson/fft_solve.hpp
// tanh_wall_faces); --re is Re on the centreline velocity 1 and the channel height ly = 1, default 100):
//   poiseuille     laminar Poiseuille (channel) flow driven by the constant force f = 8 / (Re ly^2) along x. The
//                  discrete steady state (nu L_y u + f = 0 with the mirrored walls, solved on the host in
//                  double; uniform y: the parabola shifted by A dy^2 / 4, A = 4 / ly^2) starts the run; it
//                  must stay steady to round-off. Validation: max error against it; "parabola_error" is
//                  its (second-order) distance from the continuous parabola at the cell centres.
//   synthetic      the channel profile plus a deterministic random perturbation of amplitude 0.1 in
//                  u, v, w (not divergence-free: the first projection removes that): the "turbulent-like"
//                  timing run of notes Sec. 6.1 with the same kernels. No validation.
//   shear_wave_z   u = sin(pi y / ly) sin(2 pi z / lz) exp(-nu k^2 t), k^2 = (pi / ly)^2 + (2 pi / lz)^2,
//                  v = w = 0: an exact Navier-Stokes solution (no convection, uniform pressure) through
//                  the y walls and the periodic z ADI. Validation: max error against it at the points.
//   shear_wave_x   w = sin(pi y / ly) sin(2 pi x / lx) exp(-nu k^2 t), k^2 = (pi / ly)^2 + (2 pi / lx)^2,
//                  u = v = 0: the same through the periodic x ADI.
// Time step: --dt, else the paper's fixed CFL = 1.0 on a unit velocity: dt = the smallest cell size (the
// wall cell's height when y is stretched).
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>

#include "case_checks.hpp"
#include "fracstep/time_loop.hpp"
#include "omp_exceptions.hpp"
#include "slab_assigner.hpp"

namespace nsb {
namespace {

enum class FsCase { poiseuille, synthetic, shear_wave_z, shear_wave_x };

FsCase parse_case(const std::string& name) {
  if (name.empty() || name == "poiseuille") return FsCase::poiseuille;
  if (name == "synthetic") return FsCase::synthetic;
  if (name == "shear_wave_z") return FsCase::shear_wave_z;
  if (name == "shear_wave_x") return FsCase::shear_wave_x;
  throw std::invalid_argument("fracstep: no case '" + name + "'");
}
const char* case_name(FsCase c) {
  switch (c) {
    case FsCase::poiseuille: return "poiseuille";
    case FsCase::synthetic: return "synthetic";
    case FsCase::shear_wave_z: return "shear_wave_z";
    default: return "shear_wave_x";
  }
}

// A value in [-1, 1) from (field, index) alone (splitmix64), so every backend starts the same.
double hashed_unit(unsigned field, std::size_t n) {
  std::uint64_t z = (std::uint64_t(field) << 48) ^ std::uint64_t(n);
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 2.0 * double(z >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

class FracstepProblem final : public ProblemImpl<FracstepProblem>, public SlabAssigner {
 public:
  explicit FracstepProblem(const CaseOptions& o) : case_(parse_case(o.name)), re_(o.re) {
    const auto params = case_params(o, {"y_stretch", "variant", "y_ranks", "rank_phases", "split_factors", "gpu_messages", "batches"});
    stretch_ = number_param(params, "y_stretch", kDefaultStretch);
    if (stretch_ < 0) throw std::invalid_argument("fracstep: y_stretch must be >= 0 (0: uniform)");
    set_variant(params.count("variant") ? params.at("variant") : "V0", int(number_param(params, "y_ranks", 0)), o.ny);
    prm_.rank_phases = number_param(params, "rank_phases", 1) != 0;
    set_split_factors(params.count("split_factors") ? params.at("split_factors") : "per_line");
    if (params.count("gpu_messages")) prm_.gpu_messages = params.at("gpu_messages");
    else if (prm_.overlap) prm_.gpu_messages = "nccl";  // V2-async's one transport
    if (prm_.overlap && prm_.gpu_messages != "nccl")
      throw std::invalid_argument("fracstep: V2-async needs gpu_messages=nccl (its messages on a stream of their own; the "
                                  "peer copies wait on the host: nothing to overlap)");
    if (prm_.gpu_messages != "peer" && prm_.gpu_messages != "nccl")
      throw std::invalid_argument("fracstep: gpu_messages=" + prm_.gpu_messages + " is not one of peer (peer copies, the threads "
                                  "driver), nccl (NCCL, either driver, one GPU a rank)");
    if (params.count("gpu_messages") && prm_.variant == "V0")
      throw std::invalid_argument("fracstep: gpu_messages is how V2's GPU ranks talk; V0 runs on one rank (add "
                                  "--case-param variant=V2 --ranks P)");
    if (params.count("gpu_messages") && prm_.variant == "V1")
      throw std::invalid_argument("fracstep: gpu_messages is how V2's GPU ranks talk; V1's GPU ranks talk by peer copies only "
                                  "(the threads driver; V1 by NCCL or MPI on GPU ranks is not built)");
    set_batches(params);
    if (o.nx < 3 || o.nz < 3 || o.ny < 2)
      throw std::invalid_argument("fracstep: the grid needs nx, nz >= 3 (periodic ADI lines) and ny >= 2");
    if (!(o.re > 0)) throw std::invalid_argument("fracstep: --re must be positive");
    if (o.gamma != 0) throw std::invalid_argument("fracstep: --gamma (upwinding) has no meaning here");
    refuse_unused_case_options(o, "fracstep", {"safety"}, "its time step is --dt, or the paper's CFL 1 on a unit velocity");
    grid_.nx = o.nx, grid_.ny = o.ny, grid_.nz = o.nz;
    grid_.ly = 1.0, grid_.lx = double(o.nx) / o.ny, grid_.lz = double(o.nz) / o.ny;
    prm_.nu = 1.0 / o.re;
    prm_.y_faces = tanh_wall_faces(grid_.ny, grid_.ly, stretch_);
    prm_.y_stretch = stretch_;
    prm_.dt = o.dt > 0 ? o.dt : std::min({grid_.dx(), prm_.y_faces[1], grid_.dz()});  // CFL 1 on velocity 1
    if (case_ == FsCase::poiseuille || case_ == FsCase::synthetic) prm_.force[0] = 8.0 * prm_.nu / (grid_.ly * grid_.ly);
    channel_ = discrete_channel_profile();
  }

  const Grid& grid() const override { return grid_; }
  bool periodic_z() const override { return true; }
  double dt() const override { return prm_.dt; }
  nlohmann::json describe() const override {
    nlohmann::json d = {{"case", case_name(case_)}, {"re", re_}, {"nu", prm_.nu}, {"dt", prm_.dt}, {"y_stretch", stretch_},
            {"variant", prm_.variant}, {"y_ranks", y_ranks()}, {"emulated", y_ranks() > 1 && real_ranks_ <= 1},
            {"real_ranks", real_ranks_},
            {"adi_y", y_ranks() <= 1 ? "thomas" : prm_.momentum_exact ? "ppt" : "pdd"},
            {"tdma_c", y_ranks() <= 1 ? "thomas" : prm_.poisson_exact ? "ppt" : "pdd"},
            {"rank_phases", y_ranks() > 1 && !prm_.overlap && (prm_.rank_phases || real_ranks_ > 1)},
            {"split_factors", prm_.split_factors_shared ? "shared" : "per_line"},
            {"overlap", prm_.overlap},
            {"min_dy", prm_.y_faces[1]},
            {"domain", {grid_.lx, grid_.ly, grid_.lz}}, {"force_x", prm_.force[0]},
            {"velocity_scale", 1.0},  // the channel's centre line, the shear waves' amplitude
            {"time_scheme", "RK3 (Spalart-Moser-Rogers) + Crank-Nicolson, ADI z-y-x, 3 sub-steps a step"}};
    if (real_ranks_ > 1) d["gpu_messages"] = prm_.gpu_messages;  // on real ranks (GPU ranks use it; host ranks: the Communicator)
    if (prm_.overlap) d["batches"] = prm_.batches;
    return d;
  }
  void check_options(const SolverOptions& o) const override { check_fracstep_options(o, stretch_ > 0); }

  template <class T>
  HostState<T> initial() const {
    HostState<T> s{grid_, {}, 0, 0.0};
    const std::vector<std::string> names = FracstepSolver<T>::state_names();
    s.fields.resize(names.size());
    // A field a thread: on a large grid, first touching the fields' fresh pages (GBs) is most of the work.
    FirstException failed;  // std::bad_alloc on a grid too large: named by the caller, not a core dump
#pragma omp parallel for schedule(static, 1)
    for (int f = 0; f < int(names.size()); ++f)
      failed.run([&] { s.fields[std::size_t(f)] = {names[std::size_t(f)], std::vector<T>(grid_.padded_points(), T(0))}; });
    failed.rethrow();
    const char* vel[3] = {"u", "v", "w"};
    for (int c = 0; c < 3; ++c) {
      std::vector<T>& q = s.field(vel[c]);
      // Every point its own value (exact() reads the case only): the planes in parallel, the same numbers
      // (a 1536x256x512 grid is 600M points, seconds on one core).
#pragma omp parallel for schedule(static)
      for (int k = 1; k <= grid_.nz; ++k)
        for (int j = 1; j <= grid_.ny; ++j)
          for (int i = 1; i <= grid_.nx; ++i)
            if (is_unknown_row(grid_, c, j)) q[grid_.idx(i, j, k)] = T(exact(c, i, j, k, 0.0, true));
    }
    return s;
  }
  // --ranks P (P > 1): V2 on P y-slab ranks (decompose_y: the split y solves' blocks), V1 on P z-slab ranks
  // (decompose_z, z periodic: P <= nz, and P <= nx for its x-slabs); one rank: V0, or V2 emulated with
  // y_ranks virtual ranks (the reference of a real P-rank run: y_ranks = P; of V1's: V0).
  std::vector<Slab> assign_slabs(int ranks) const override {
    if (ranks == 1) return decompose_z(grid_, 1, true);
    if (prm_.variant == "V0")
      throw std::invalid_argument("fracstep: V0 runs on one rank; --ranks P runs V2 on P y-slab ranks: add --case-param "
                                  "variant=V2 (or V2-acc, V2-ppt), or V1 on P z-slab ranks (variant=V1)");
    if (prm_.variant == "V1") {
      if (ranks > grid_.nz || ranks > grid_.nx)
        throw std::invalid_argument("fracstep: V1 on " + std::to_string(ranks) + " ranks needs a z plane and an x column a rank "
                                    "(its z-slabs and x-slabs): nz = " + std::to_string(grid_.nz) + ", nx = " + std::to_string(grid_.nx));
      real_ranks_ = ranks;
      return decompose_z(grid_, ranks, true);
    }
    if (prm_.y_ranks != 0 && prm_.y_ranks != ranks)
      throw std::invalid_argument("fracstep: y_ranks=" + std::to_string(prm_.y_ranks) + " but --ranks " + std::to_string(ranks) +
                                  ": on real ranks y_ranks is the rank count (leave it out)");
    check_y_ranks(ranks);
    real_ranks_ = ranks;
    return decompose_y(grid_, ranks, 3);
  }

  template <class T>
  std::unique_ptr<Solver<T>> solver(const ResolvedRecipe& r, const SolverOptions& o, const RankContext* ctx) const {
    FracstepParameters prm = prm_;
    prm.y_ranks = y_ranks();
    if (prm.variant == "V1") return v1_solver<T>(prm, r, o, ctx);
    if (prm.variant != "V0" && prm.y_ranks < 2)
      throw std::invalid_argument("fracstep: " + prm.variant + (prm.overlap ? " needs --ranks P (P real GPU y-slab ranks)" :
                                  " needs y_ranks=P (P virtual ranks on one device) or --ranks P (P real y-slab ranks)"));
    if (prm.overlap && r.backend != Backend::cuda)
      throw std::invalid_argument("fracstep: V2-async overlaps the messages of GPU ranks (a stream for them beside the work): "
                                  "--backend cuda, not the CPU");
    if (!ctx || !ctx->decomposed()) {  // one rank: V0, the emulation, or a real run's reference: V2 emulated (the same numbers)
      prm.overlap = false;
      return std::make_unique<FracstepSolver<T>>(grid_, prm, r, o);
    }
    const Slab& slab = ctx->slab();
    const FracstepRank rank{ctx->comm, ctx->rank, int(ctx->slabs.size()), slab.y_begin - 1, grid_, ctx->device};
    return std::make_unique<FracstepSolver<T>>(slab_grid(grid_, slab), prm, r, o, rank);
  }
  // V1 (--ranks P, host ranks or GPU ranks of the threads driver): a rank's z-slab solver; the run's one-rank
  // reference is V0 (the same formulas, the same lines: on host ranks V1's numbers are V0's bit for bit, test
  // V1OnRealRanksEqualsV0; on GPU ranks asserted to 1e-12 and measured bit for bit, FracstepGpu.V1OnRealGpuRanksEqualsV0).
  template <class T>
  std::unique_ptr<Solver<T>> v1_solver(FracstepParameters prm, const ResolvedRecipe& r, const SolverOptions& o,
                                       const RankContext* ctx) const {
    if (real_ranks_ < 2)
      throw std::invalid_argument("fracstep: V1 runs on P real z-slab ranks: --ranks P (P >= 2); one rank is V0");
    if (!ctx || !ctx->decomposed()) return std::make_unique<FracstepSolver<T>>(grid_, prm, r, o);
    const Slab& slab = ctx->slab();
    const FracstepRank rank{ctx->comm, ctx->rank, int(ctx->slabs.size()), slab.z_begin - 1, grid_, ctx->device, true};
    return std::make_unique<FracstepSolver<T>>(slab_grid(grid_, slab), prm, r, o, rank);
  }

  template <class T>
  nlohmann::json check(const HostState<T>& s, bool) const {
    if (case_ == FsCase::synthetic) return {{"kind", "none"}, {"detail", "a timing case: no exact solution"}};
    double max_err = 0, sum2 = 0, count = 0, parabola = 0;
    const char* vel[3] = {"u", "v", "w"};
    for (int c = 0; c < 3; ++c) {
      const std::vector<T>& q = s.field(vel[c]);
      for (int k = 1; k <= grid_.nz; ++k)
        for (int j = 1; j <= grid_.ny; ++j)
          for (int i = 1; i <= grid_.nx; ++i) {
            if (!is_unknown_row(grid_, c, j)) continue;
            const double e = double(q[grid_.idx(i, j, k)]) - exact(c, i, j, k, s.time, true);
            max_err = std::max(max_err, std::abs(e)), sum2 += e * e, count += 1;
            if (case_ == FsCase::poiseuille)
              parabola = std::max(parabola, std::abs(exact(c, i, j, k, s.time, true) - exact(c, i, j, k, s.time, false)));
          }
    }
    nlohmann::json v = {{"kind", "exact"}, {"max_error", max_err}, {"rms_error", std::sqrt(sum2 / count)}};
    if (case_ == FsCase::poiseuille) v["parabola_error"] = parabola;
    return v;
  }
  template <class T>
  std::size_t bytes(const Grid& g, const SolverOptions&) const {
    if (prm_.variant == "V1" && real_ranks_ > 1) return FracstepSolver<T>::z_slab_device_bytes(g);  // a GPU z-slab rank's
    return FracstepSolver<T>::device_bytes(g, y_ranks(), prm_.momentum_exact, prm_.split_factors_shared, grid_.ny);
  }

 private:
  // --case-param variant=V0|V2|V2-acc|V2-ppt|V2-async, y_ranks=P (notes Sec. 6.1): V2's y-slabs are virtual ranks
  // on this device (emulated: the ranks' local work runs as one whole-grid launch, the y solves cut into
  // the ranks' blocks with their interfaces solved as PDD or PPT would). rank_phases=1 (default): ADI-Y
  // and TDMA-C run rank after rank, phase after phase, each timed (tridiag/split_phases.hpp), the
  // messages device copies; rank_phases=0: each line in one pass, the other blocks' rows read in place.
  // V2-async: V2 on real GPU ranks only (--ranks P), its messages overlapped (FracstepParameters::overlap).
  // ranks: y_ranks as given, 0 where it is not (V2: the run's --ranks, assign_slabs).
  void set_variant(const std::string& v, int ranks, int ny) {
    prm_.variant = v;
    ny_ = ny;
    if (v == "V0") {
      if (ranks > 1) throw std::invalid_argument("fracstep: V0 is one rank (y_ranks=1); V2 splits y");
      prm_.y_ranks = 1;
      return;
    }
    if (v == "V1") {  // z-slabs on real ranks, host or GPU (--ranks P; assign_slabs)
      if (ranks != 0)
        throw std::invalid_argument("fracstep: V1 splits z over real ranks (--ranks P), not y: drop y_ranks");
      prm_.y_ranks = 1;
      return;
    }
    if (v != "V2" && v != "V2-acc" && v != "V2-ppt" && v != "V2-async")
      throw std::invalid_argument("fracstep: variant=" + v + " is not one of V0, V1, V2, V2-acc, V2-ppt, V2-async");
    if (v == "V2-async" && ranks != 0)
      throw std::invalid_argument("fracstep: V2-async overlaps real ranks' messages: --ranks P, not y_ranks (virtual ranks "
                                  "have no messages to overlap)");
    if (ranks != 0) check_y_ranks(ranks);
    prm_.y_ranks = ranks;
    prm_.momentum_exact = v == "V2-ppt";
    prm_.poisson_exact = v != "V2-acc";
    prm_.overlap = v == "V2-async";  // V2's solves (PDD ADI-Y, PPT TDMA-C), their messages overlapped
  }
  // --case-param batches=K (V2-async): the split y solves' lines in K batches, batch b's messages beside
  // batch b + 1's work. Default 4: on Fig. 5's grid (4096x256x128) a batch is then 393K lines of ADI-Y and
  // 262K of TDMA-C, each batch's kernel still about one wave of an H100's 270K threads (132 SMs x 2048) or
  // more; more batches hide more of the messages but leave the SMs part idle at the end of each kernel.
  void set_batches(const std::map<std::string, std::string>& params) {
    if (!params.count("batches")) return;
    if (!prm_.overlap)
      throw std::invalid_argument("fracstep: batches is V2-async's (its split solves' lines in batches): add --case-param variant=V2-async");
    const double k = number_param(params, "batches", 4);
    if (!(k >= 1 && k <= 1024) || k != double(int(k)))  // the range first: int(k) of 1e20 is undefined
      throw std::invalid_argument("fracstep: batches must be a whole number, 1 to 1024");
    prm_.batches = int(k);
  }
  // --case-param split_factors=per_line|shared: V2's ADI-Y local phase as the paper's Algorithm 1 (x~, v,
  // w and c' of every line: per_line, the default, what the recorded V2 runs measured) or with v, w, c'
  // set up once a component and sub-step (shared: the x sweep alone; notes [A] of Sec. 6.4 asks for both
  // timed). V2 only: V0 has no split solve.
  void set_split_factors(const std::string& v) {
    if (v != "per_line" && v != "shared")
      throw std::invalid_argument("fracstep: split_factors=" + v + " is not per_line or shared");
    if (v == "shared" && (prm_.variant == "V0" || prm_.variant == "V1"))
      throw std::invalid_argument("fracstep: split_factors=shared is V2's split y solve (--case-param variant=V2, V2-acc or V2-ppt)");
    if (v == "shared" && !prm_.rank_phases && prm_.y_ranks > 1)
      throw std::invalid_argument("fracstep: split_factors=shared runs the y solves rank by rank (rank_phases=1)");
    prm_.split_factors_shared = v == "shared";
  }
  void check_y_ranks(int ranks) const {
    if (ranks < 2 || ranks > kPptMaxRanks || ny_ < 3 * ranks)  // v's last block, below the wall face, is a row shorter
      throw std::invalid_argument("fracstep: " + prm_.variant + " needs y_ranks=P (or --ranks P), 2 <= P <= 8, with 3 y cells a rank at least");
  }
  // V2's ranks: y_ranks as given, else the run's --ranks (0 before the drivers asked for slabs).
  int y_ranks() const { return prm_.y_ranks != 0 ? prm_.y_ranks : real_ranks_ > 1 ? real_ranks_ : 0; }

  // The channel's discrete steady profile at the centres j = 1..ny: nu L_y u = -f with L_y the solver's
  // y Laplacian (formulas.hpp laplacian: flux form, ghost = - inner at the walls), by Thomas in double.
  std::vector<double> discrete_channel_profile() const {
    const std::vector<double> m = y_metric_values(prm_.y_faces);
    const double* inv_cell = m.data();
    const double* inv_gap = inv_cell + grid_.ny + 2;
    const double rhs = -8.0 / (grid_.ly * grid_.ly);  // -f / nu
    std::vector<double> u(std::size_t(grid_.ny)), cp(u.size());
    ThomasRow<double> row{0, 0};
    for (int j = 1; j <= grid_.ny; ++j) {
      const double lo = inv_cell[j] * inv_gap[j - 1], up = inv_cell[j] * inv_gap[j];
      const double b = -(lo + up) - (j == 1 ? lo : 0) - (j == grid_.ny ? up : 0);
      row = thomas_forward(j == 1 ? 0.0 : lo, b, j == grid_.ny ? 0.0 : up, rhs, row);
      cp[std::size_t(j - 1)] = row.cp, u[std::size_t(j - 1)] = row.dp;
    }
    for (std::size_t j = u.size() - 1; j-- > 0;) u[j] = thomas_back(ThomasRow<double>{cp[j], u[j]}, u[j + 1]);
    return u;
  }

  // The case's velocity component c at its point (i, j, k) at time t; `discrete`: the channel's discrete
  // steady profile rather than the continuous parabola.
  double exact(int c, int i, int j, int k, double t, bool discrete) const {
    const double pi = std::numbers::pi;
    const double yc = 0.5 * (prm_.y_faces[std::size_t(j) - 1] + prm_.y_faces[std::size_t(j)]);
    const double xc = (i - 0.5) * grid_.dx(), zc = (k - 0.5) * grid_.dz();
    switch (case_) {
      case FsCase::poiseuille:
      case FsCase::synthetic: {
        const double a = 4.0 / (grid_.ly * grid_.ly);
        double q = c == 0 ? (discrete ? channel_[std::size_t(j) - 1] : a * yc * (grid_.ly - yc)) : 0.0;
        if (case_ == FsCase::synthetic) q += 0.1 * hashed_unit(unsigned(c), grid_.idx(i, j, k));
        return q;
      }
      case FsCase::shear_wave_z: {
        const double k2 = pi * pi / (grid_.ly * grid_.ly) + 4 * pi * pi / (grid_.lz * grid_.lz);
        return c == 0 ? std::sin(pi * yc / grid_.ly) * std::sin(2 * pi * zc / grid_.lz) * std::exp(-prm_.nu * k2 * t) : 0.0;
      }
      default: {
        const double k2 = pi * pi / (grid_.ly * grid_.ly) + 4 * pi * pi / (grid_.lx * grid_.lx);
        return c == 2 ? std::sin(pi * yc / grid_.ly) * std::sin(2 * pi * xc / grid_.lx) * std::exp(-prm_.nu * k2 * t) : 0.0;
      }
    }
  }

  static constexpr double kDefaultStretch = 3;
  FsCase case_;
  double re_;
  double stretch_ = kDefaultStretch;
  std::vector<double> channel_;
  Grid grid_;
  FracstepParameters prm_;
  int ny_ = 0;
  // The run's --ranks when V2 runs on real ranks, learnt when the drivers ask for the slabs (before any
  // solver, the one-rank reference's included, is made): 0 otherwise.
  mutable int real_ranks_ = 0;
};

const SolverRegistrar reg{SolverDef{
    .name = "fracstep",
    .description = "Ha, Park & You: semi-implicit fractional step (RK3 + Crank-Nicolson, ADI in x, y, z, FFT + "
                   "tridiagonal Poisson), staggered, x/z periodic, y walls stretched; V0 (one GPU), V2 / V2-acc / V2-ppt "
                   "emulated on virtual y-ranks (--case-param variant=V2 --case-param y_ranks=P) or on real y-slab ranks, host "
                   "or GPU (--ranks P --case-param variant=V2); V1 on real z-slab ranks, host or GPU (threads driver, peer copies), "
                   "with its global transposes (--ranks P --case-param variant=V1); V2-async: V2 on GPU ranks with the split y solves' NCCL "
                   "messages overlapping the next batch of lines (--ranks P --case-param variant=V2-async [batches=K])",
    .cases = {"poiseuille", "synthetic", "shear_wave_z", "shear_wave_x"},
    .sections = fracstep_sections(),
    .stages = std::vector<std::string>(std::begin(kFracstepStages), std::end(kFracstepStages)),
    .make_problem = [](const CaseOptions& o) -> std::unique_ptr<Problem> { return std::make_unique<FracstepProblem>(o); },
}};

}  // namespace
}  // namespace nsb
