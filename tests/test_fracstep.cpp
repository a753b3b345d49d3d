// The fractional-step solver (Ha, Park & You V0): the laminar channel is steady to round-off, the
// decaying shear waves decay at the exact rate with second order in space and in time, the divergence
// after projection is round-off, the ADI line solve solves its systems, serial = OpenMP, what it
// refuses; on a GPU (skipped without one), every variant against the CPU reference and whole runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <memory>
#include <numbers>

#include "device.hpp"
#include "fracstep/adi_tables.hpp"
#include "fracstep/time_loop.hpp"
#include "fracstep/gpu_ranks.hpp"
#include "fracstep/stage_call.hpp"
#include "comm.hpp"
#include "decomposition.hpp"
#include "recipe.hpp"
#include "registry.hpp"
#include "slab_assigner.hpp"
#include "solver.hpp"
#include "stage_kind.hpp"
#include "timer.hpp"
#include "poisson/fft_solve.hpp"
#include "tridiag/systems.hpp"
#include "thread_ranks.hpp"
#include "gpu_test_support.hpp"

namespace nsb {
namespace {

// y_stretch < 0: the case's default (tanh, s = 3).
CaseOptions options(const char* name, int nx, int ny, int nz, double dt = 0, double y_stretch = -1) {
  CaseOptions o;
  o.name = name;
  o.nx = nx, o.ny = ny, o.nz = nz;
  o.dt = dt;
  if (y_stretch >= 0) o.params = {"y_stretch=" + std::to_string(y_stretch)};
  return o;
}

std::unique_ptr<Problem> problem(const CaseOptions& o) { return SolverRegistry::instance().get("fracstep").make_problem(o); }

template <class T>
struct Ran {
  HostState<T> state;
  nlohmann::json checks;
};

template <class T>
Ran<T> run(const Problem& p, const std::string& recipe, int steps, int threads = 0) {
  SolverOptions o;
  o.threads = threads;
  const auto s = p.make_solver(Precision<T>{}, resolve(find_recipe("fracstep", recipe), {}), o, nullptr);
  s->load(p.initial_state(Precision<T>{}));
  for (int i = 0; i < steps; ++i) s->step();
  return {s->save(), s->final_checks()};
}

double max_error(const Problem& p, const HostState<double>& s) { return p.validate(s, false)["max_error"].get<double>(); }

// Poiseuille: the discrete steady profile (uniform y: the parabola + A dy^2 / 4) starts the run and must
// not move, on the stretched y (default) and the uniform one.
TEST(Fracstep, LaminarChannelIsSteadyToRoundOff) {
  const auto uniform = problem(options("poiseuille", 16, 12, 8, 0, 0));
  const nlohmann::json u = uniform->validate(run<double>(*uniform, "cpu-serial", 20).state, false);
  EXPECT_LT(u["max_error"].get<double>(), 1e-13);
  const double dy = 1.0 / 12;
  EXPECT_NEAR(u["parabola_error"].get<double>(), dy * dy, 1e-14);  // A dy^2 / 4 with A = 4
  const auto p = problem(options("poiseuille", 16, 12, 8));
  const Ran<double> r = run<double>(*p, "cpu-serial", 20);
  const nlohmann::json v = p->validate(r.state, false);
  std::cout << "stretched channel: max error " << v["max_error"] << ", parabola error " << v["parabola_error"] << "\n";
  EXPECT_LT(v["max_error"].get<double>(), 1e-13);
  EXPECT_GT(v["parabola_error"].get<double>(), 1e-4);  // a stretched grid's discrete state is not the parabola
  EXPECT_LT(v["parabola_error"].get<double>(), 0.1);
  const Ran<float> f = run<float>(*p, "cpu-serial", 20);
  double worst = 0;
  for (std::size_t n = 0; n < f.state.field("u").size(); ++n)
    worst = std::max(worst, std::abs(double(f.state.field("u")[n]) - r.state.field("u")[n]));
  EXPECT_LT(worst, 1e-5);
}

// The shear waves decay at the exact rate; refining y and the periodic axis halves h: the error falls 4x.
// Uniform y (n = 8, 16, 32) and the stretched default (tanh s = 3, shear_wave_z, n = 16, 32, 64: its
// coarse centre cells, where sin(pi y) peaks, need the finer grids to be in the asymptotic range).
// To t = 0.1 in `steps` steps (the time error, ~1e-7 at 10 steps, is far below the space error).
double shear_wave_error(const char* name, int n, double y_stretch, int steps) {
  const bool z = std::string(name) == "shear_wave_z";
  const auto p = problem(options(name, z ? 4 : n, n, z ? n : 4, 0.1 / steps, y_stretch));
  return max_error(*p, run<double>(*p, "cpu-serial", steps).state);
}
TEST(Fracstep, ShearWavesConvergeAtSecondOrderInSpace) {
  struct Series {
    const char* name;
    double y_stretch;
    int n[3], steps;
    double min_ratio[2], finest;
  };
  for (const Series& s : {Series{"shear_wave_z", 0, {8, 16, 32}, 50, {3.6, 3.6}, 2e-4}, Series{"shear_wave_x", 0, {8, 16, 32}, 50, {3.6, 3.6}, 2e-4},
                          Series{"shear_wave_z", 3, {16, 32, 64}, 10, {3.2, 3.6}, 1.2e-4}}) {
    double previous = 0;
    for (int m = 0; m < 3; ++m) {
      const double e = shear_wave_error(s.name, s.n[m], s.y_stretch, s.steps);
      std::cout << s.name << " y_stretch " << s.y_stretch << " n " << s.n[m] << ": max error " << e
                << (previous > 0 ? " ratio " + std::to_string(previous / e) : "") << "\n";
      if (previous > 0) {
        EXPECT_GT(previous / e, s.min_ratio[m - 1]) << s.name << " n " << s.n[m] << " error " << e;
      }
      previous = e;
    }
    EXPECT_LT(previous, s.finest) << s.name;
  }
}

// In time: against the semi-discrete solution (the mode is an eigenvector of the discrete operator: the
// DST-II basis of the mirrored walls, the Fourier basis of z), so only the time error is left.
TEST(Fracstep, ShearWaveIsSecondOrderInTime) {
  const int n = 16;
  const double pi = std::numbers::pi, h = 1.0 / n, nu = 0.01, t_end = 0.8;
  const double lambda = 4 / (h * h) * (std::pow(std::sin(pi * h / 2), 2) + std::pow(std::sin(pi * h), 2));
  double previous = 0;
  for (int steps : {10, 20, 40}) {
    const auto p = problem(options("shear_wave_z", 4, n, n, t_end / steps, 0));  // uniform y: the DST-II mode
    const HostState<double> s = run<double>(*p, "cpu-serial", steps).state;
    const HostState<double> s0 = p->initial_state(Precision<double>{});
    double e = 0;
    for (std::size_t m = 0; m < s.field("u").size(); ++m)
      e = std::max(e, std::abs(s.field("u")[m] - s0.field("u")[m] * std::exp(-nu * lambda * t_end)));
    std::cout << "shear_wave_z " << steps << " steps: time error " << e << (previous > 0 ? " ratio " + std::to_string(previous / e) : "") << "\n";
    if (previous > 0) {
      EXPECT_GT(previous / e, 3.5) << steps << " steps, error " << e;
    }
    previous = e;
  }
}

// A non-solenoidal start: after one step (three projections) the divergence is round-off (stretched y:
// the Poisson rows are the divergence of the gradient on it).
TEST(Fracstep, DivergenceAfterProjectionIsRoundOff) {
  const auto p = problem(options("synthetic", 20, 12, 10));
  EXPECT_LT(run<double>(*p, "cpu-serial", 1).checks["relative_divergence"].get<double>(), 1e-13);
  EXPECT_LT(run<float>(*p, "cpu-serial", 1).checks["relative_divergence"].get<double>(), 1e-5);
  const HostState<double> start = p->initial_state(Precision<double>{});
  EXPECT_GT(start.field("v")[start.grid.idx(3, 4, 5)] * start.field("v")[start.grid.idx(3, 4, 5)], 0);
}

// Every ADI table solves its system (1 - beta L) x = d: the residual of the full matrix (with the
// periodic corners, or the mirrored walls) is round-off, for uniform rows and for rows varying as on a
// stretched y.
TEST(Fracstep, AdiLineSolvesTheFullSystem) {
  for (bool varying : {false, true})
    for (AdiEnds ends : {AdiEnds::periodic, AdiEnds::wall_centred, AdiEnds::wall_faces}) {
      const int n = 13;
      std::vector<double> lo(n, 3.7), up(n, 3.7);
      for (int j = 0; varying && j < n; ++j)
        lo[std::size_t(j)] = 3.7 + 2 * tridiag_random(4, 0, std::size_t(j)), up[std::size_t(j)] = 3.7 + 2 * tridiag_random(4, 1, std::size_t(j));
      const AdiTableValues v = adi_table_values(lo, up, ends);
      AdiTable<double> t;
      t.n = n, t.cyclic = v.cyclic, t.a0 = v.a0, t.gamma = v.gamma;
      t.a = v.packed.data(), t.b = t.a + n, t.c = t.b + n, t.cp = t.c + n, t.z = t.cp + n;
      std::vector<double> d(n), x(n);
      for (int j = 0; j < n; ++j) d[std::size_t(j)] = x[std::size_t(j)] = tridiag_random(3, 0, std::size_t(j));
      adi_line(t, x.data(), 1);
      const bool cyclic = ends == AdiEnds::periodic;
      double worst = 0;
      for (int j = 0; j < n; ++j) {
        const std::size_t m = std::size_t(j);
        const double below = j > 0 ? x[m - 1] : cyclic ? x[std::size_t(n - 1)] : ends == AdiEnds::wall_centred ? -x[0] : 0;
        const double above = j < n - 1 ? x[m + 1] : cyclic ? x[0] : ends == AdiEnds::wall_centred ? -x[std::size_t(n - 1)] : 0;
        const double lhs = x[m] - (lo[m] * (below - x[m]) + up[m] * (above - x[m]));
        worst = std::max(worst, std::abs(lhs - d[m]));
      }
      EXPECT_LT(worst, 1e-13) << int(ends) << " varying " << varying;
    }
}

// The convection term is in conservative form: summed over the unknowns of u (or w) of any field, each
// times its cell's height (the stretched y's control volumes), it is zero (x and z fluxes wrap, the y
// fluxes at the walls vanish by the mirror rule), so an index error in a flux shows. (v's control
// volumes end half a cell short of the walls, so its sum is not zero.)
TEST(Fracstep, ConvectionOfUAndWIsConservative) {
  const Grid g{11, 7, 9, 1.1, 0.7, 0.9};
  std::vector<double> f[3];
  for (int c = 0; c < 3; ++c) {
    f[c].assign(g.padded_points(), 0.0);
    for (std::size_t n = 0; n < f[c].size(); ++n) f[c][n] = tridiag_random(7, unsigned(c), n);
  }
  const double* vel[3] = {f[0].data(), f[1].data(), f[2].data()};
  const std::vector<double> faces = tanh_wall_faces(g.ny, g.ly, 3), metric = y_metric_values(faces);
  const Spacing<double> s = spacing_of<double>(g, metric.data());
  for (int comp : {0, 2}) {
    double sum = 0, size = 0;
    for (int k = 1; k <= g.nz; ++k)
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
          const double n = convection(vel, g, s, comp, i, j, k) * (faces[std::size_t(j)] - faces[std::size_t(j) - 1]);
          sum += n, size += std::abs(n);
        }
    EXPECT_LT(std::abs(sum), 1e-13 * size) << "component " << comp;
    EXPECT_GT(size, 0.1);
  }
}

// V2 on virtual y-ranks (variant=..., y_ranks=P): the largest difference of u, v, w from V0 after
// `steps` steps of the synthetic case (stretched y), over the largest |velocity|.
// split_factors: V2's ADI-Y local phase (per_line, the default; shared: its factors set up once).
double difference_from_v0(const char* variant, int ranks, int steps, const char* split_factors = "per_line") {
  CaseOptions o = options("synthetic", 16, 32, 10);
  const auto v0 = problem(o);
  o.params = {std::string("variant=") + variant, "y_ranks=" + std::to_string(ranks), std::string("split_factors=") + split_factors};
  const auto v2 = problem(o);
  const HostState<double> a = run<double>(*v0, "cpu-serial", steps).state, b = run<double>(*v2, "cpu-serial", steps).state;
  double diff = 0, size = 0;
  for (const char* f : {"u", "v", "w"})
    for (std::size_t n = 0; n < a.field(f).size(); ++n)
      diff = std::max(diff, std::abs(a.field(f)[n] - b.field(f)[n])), size = std::max(size, std::abs(a.field(f)[n]));
  return diff / size;
}

// V2 (PDD for ADI-Y, PPT for TDMA-C) and V2-ppt (PPT for both) equal V0 to round-off over 3 steps: PDD's
// dropped couplings decay across a block at the ADI rows of a CFL-1 step (the paper's "machine
// accuracy"), PPT is exact.
TEST(Fracstep, V2EqualsV0ToRoundOff) {
  for (const auto& [variant, ranks] : {std::pair{"V2", 2}, std::pair{"V2", 4}, std::pair{"V2-ppt", 4}, std::pair{"V2-ppt", 8}}) {
    const double d = difference_from_v0(variant, ranks, 3);
    std::cout << variant << " y_ranks " << ranks << ": max |u - u_V0| / max |u| after 3 steps " << d << "\n";
    EXPECT_LT(d, 1e-13) << variant << " " << ranks;
  }
  for (const auto& [variant, ranks] : {std::pair{"V2", 4}, std::pair{"V2-ppt", 8}}) {  // ADI-Y's factors set up once
    const double d = difference_from_v0(variant, ranks, 3, "shared");
    std::cout << variant << " y_ranks " << ranks << " split_factors=shared: max |u - u_V0| / max |u| after 3 steps " << d << "\n";
    EXPECT_LT(d, 1e-13) << variant << " " << ranks << " shared";
  }
}

// V2-acc (PDD for the Poisson rows too): exact at p = 2 (the reduced system is its one 2x2 block), wrong
// from p = 3 (eps = the modified wavenumbers, down to 0 for the mean line): the paper's "inaccurate"
// claim, as the error of one step against p.
TEST(Fracstep, V2AccIsVisiblyWrong) {
  EXPECT_LT(difference_from_v0("V2-acc", 2, 1), 1e-13);
  for (int ranks : {3, 4, 8}) {
    const double d = difference_from_v0("V2-acc", ranks, 1);
    std::cout << "V2-acc y_ranks " << ranks << ": max |u - u_V0| / max |u| after 1 step " << d << "\n";
    EXPECT_GT(d, 1e-4) << ranks;
  }
}

// V2 rank by rank (rank_phases=1, the default: split_phases.hpp) gives the one-pass split's numbers bit for
// bit, PDD and PPT, ADI-Y and TDMA-C; and every rank's five phases of both are timed (PDD: the last
// rank has no interface to solve), inside the adi_y and tdma_c sections.
// A y-slab owns the v faces above its cells (the wall face excluded), so V2 cuts v's y lines (ny - 1
// unknowns) where it cuts the cells (u's and w's lines), its last block a row shorter: what a real rank
// holds (fracstep.md, "V2 on real ranks").
TEST(Fracstep, V2CutsTheVLinesWhereTheCellsAre) {
  const Grid g{4, 14, 3, 1, 1, 1};
  FracstepCall<double> c;
  c.grid = g, c.y_ranks = 4;
  for (int comp = 0; comp < 3; ++comp) c.adi[1][comp].n = comp == 1 ? g.ny - 1 : g.ny;
  const AdiYLines<double> lines = adi_y_lines(c);
  const std::size_t per = lines.count() / 3;
  for (int r = 0; r <= 4; ++r) {
    const int cells = r < 4 ? pdd_block_start(g.ny, 4, r) : g.ny;
    EXPECT_EQ(lines.line(0).block_start(4, r), cells) << "u, rank " << r;
    EXPECT_EQ(lines.line(per).block_start(4, r), r < 4 ? cells : g.ny - 1) << "v, rank " << r;
    EXPECT_EQ(lines.line(2 * per).block_start(4, r), cells) << "w, rank " << r;
  }
  EXPECT_NE(pdd_block_start(g.ny - 1, 4, 3), pdd_block_start(g.ny, 4, 3));  // the even cut of v's rows would differ
}

TEST(Fracstep, V2RankByRankEqualsOnePassAndTimesEachRank) {
  for (const auto& [variant, ranks] : {std::pair{"V2", 3}, std::pair{"V2-ppt", 4}, std::pair{"V2-acc", 4}}) {
    CaseOptions o = options("synthetic", 12, 24, 9);
    o.params = {std::string("variant=") + variant, "y_ranks=" + std::to_string(ranks), "rank_phases=0"};
    const HostState<double> one_pass = run<double>(*problem(o), "cpu-serial", 2).state;
    o.params.back() = "rank_phases=1";
    const auto p = problem(o);
    SolverOptions so;
    const auto s = p->make_solver(Precision<double>{}, resolve(find_recipe("fracstep", "cpu-serial"), {}), so, nullptr);
    CpuTimer timer;
    s->set_timer(&timer);
    s->load(p->initial_state(Precision<double>{}));
    for (int i = 0; i < 2; ++i) s->step();
    const HostState<double> phased = s->save();
    for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(phased.field(f), one_pass.field(f)) << variant << " " << f;
    std::map<std::string, int> calls;
    const SolverDef& def = SolverRegistry::instance().get("fracstep");
    for (const Sample& smp : timer.samples()) ++calls[def.section_name(smp.section)];
    for (int r = 0; r < 8; ++r)
      for (const char* part : {"adi_y", "tdma_c"})
        for (const char* phase : kSplitPhaseNames) {
          const std::string name = std::string(part) + "/r" + std::to_string(r) + "/" + phase;
          const bool pdd_last = r + 1 == ranks && std::string(phase) == "reduced" &&
                                (std::string(part) == "adi_y" ? std::string(variant) != "V2-ppt" : std::string(variant) == "V2-acc");
          EXPECT_EQ(calls[name] > 0, r < ranks && !pdd_last) << variant << " " << name;
        }
    EXPECT_EQ(calls["adi_y/r0/local"], 6) << "a call a sub-step";
  }
}

// V2 on `ranks` real y-slab ranks (the problem's own slabs), one host thread each (ThreadComm, as the
// threads driver), `steps` steps of the recipe (a GPU recipe: rank r on GPU r % count, as the driver
// puts it); the slabs gathered back into the whole grid. `calls`: how many samples each rank's timer
// took of each section.
struct RealRanks {
  HostState<double> state;
  std::vector<std::map<std::string, int>> calls;
  double max_divergence = -1;
};
RealRanks run_real_ranks(const Problem& p, int ranks, int steps, const std::string& recipe_name = "cpu-serial", int omp_threads = 0) {
  const ResolvedRecipe recipe = resolve(find_recipe("fracstep", recipe_name), {});
  SolverOptions so;
  so.threads = omp_threads;
  const SolverDef& def = SolverRegistry::instance().get("fracstep");
  RealRanks out{{}, std::vector<std::map<std::string, int>>(std::size_t(ranks)), -1};
  std::vector<CpuTimer> timers(static_cast<std::size_t>(ranks));
  test::RankHooks<double> hooks;
  hooks.context = [&](RankContext& ctx) {
    if (recipe.backend == Backend::cuda) ctx.device = ctx.rank % device::count(), device::set_device(ctx.device);
  };
  hooks.before = [&](int r, Solver<double>& s) { s.set_timer(&timers[std::size_t(r)]); };
  hooks.after = [&](int r, Solver<double>& s) {
    for (const Sample& smp : timers[std::size_t(r)].samples()) ++out.calls[std::size_t(r)][def.section_name(smp.section)];
    s.set_timer(nullptr);
    const double div = s.final_checks()["max_divergence"].get<double>();
    if (r == 0) out.max_divergence = div;
  };
  const std::vector<Slab> slabs = dynamic_cast<const SlabAssigner&>(p).assign_slabs(ranks);
  out.state = test::run_on_thread_ranks<double>(p, p.initial_state(Precision<double>{}), slabs, recipe, steps, so, hooks);
  return out;
}

// The whole V2 solver on 2 and 3 real ranks equals its emulation with y_ranks = P (the one-rank run of
// the same variant) bit for bit: the same formulas on the same values in the same order (the y metric
// a slice of the whole one, the split y solves' phases the emulation's, the null-space line's sums over
// its gathered rows). ny = 20: 3 ranks hold 6, 7 and 7 rows.
TEST(Fracstep, V2OnRealRanksEqualsTheEmulation) {
  for (const auto& [variant, ranks] : {std::pair{"V2", 2}, std::pair{"V2", 3}, std::pair{"V2-ppt", 3}, std::pair{"V2-acc", 3}}) {
    CaseOptions o = options("synthetic", 12, 20, 9);
    o.params = {std::string("variant=") + variant};
    const auto real = problem(o);
    const RealRanks got = run_real_ranks(*real, ranks, 3);
    o.params.push_back("y_ranks=" + std::to_string(ranks));
    const Ran<double> emulated = run<double>(*problem(o), "cpu-serial", 3);
    for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(got.state.field(f), emulated.state.field(f)) << variant << " p = " << ranks << " " << f;
    EXPECT_EQ(got.max_divergence, emulated.checks["max_divergence"].get<double>()) << "final checks: the largest over the ranks";
    for (int r = 0; r < ranks; ++r) {  // each rank times its own phases, in its own sections
      const std::string me = "/r" + std::to_string(r) + "/";
      EXPECT_EQ(got.calls[std::size_t(r)].at("adi_y" + me + "local"), 9) << variant << " a call a sub-step";
      EXPECT_EQ(got.calls[std::size_t(r)].at("tdma_c" + me + "correct"), 9) << variant;
      EXPECT_EQ(got.calls[std::size_t(r)].count("adi_y/r" + std::to_string((r + 1) % ranks) + "/local"), 0u) << "not another rank's";
      EXPECT_EQ(got.calls[std::size_t(r)].at("ghost_rows"), 27) << "three exchanges a sub-step";
    }
  }
  CaseOptions o = options("synthetic", 12, 20, 9);  // cpu_omp ranks, 2 threads each: the same numbers
  o.params = {"variant=V2"};
  const RealRanks omp = run_real_ranks(*problem(o), 2, 2, "cpu-omp", 2);
  o.params.push_back("y_ranks=2");
  const Ran<double> emulated = run<double>(*problem(o), "cpu-serial", 2);
  for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(omp.state.field(f), emulated.state.field(f)) << "cpu_omp ranks " << f;
}

// ADI-Y with its factors set up once (split_factors=shared: v, w, c' a component and sub-step,
// AdiYSplitFactors; the local phase sweeps x alone) gives the per-line form's numbers bit for bit: emulated
// at y_ranks = 2, 3, 4 (V2: PDD; V2-ppt, V2-acc), and on 2 and 3 real host ranks against the per-line
// emulation. Its memory estimate drops the 9 scratch fields (27 short lines in their place), and the
// solver allocates none of them.
TEST(Fracstep, V2SharedFactorsEqualThePerLineFormBitForBit) {
  for (const auto& [variant, ranks] : {std::pair{"V2", 2}, std::pair{"V2", 3}, std::pair{"V2", 4}, std::pair{"V2-ppt", 3},
                                       std::pair{"V2-acc", 4}}) {
    CaseOptions o = options("synthetic", 12, 24, 9);
    o.params = {std::string("variant=") + variant, "y_ranks=" + std::to_string(ranks)};
    const HostState<double> per_line = run<double>(*problem(o), "cpu-serial", 2).state;
    o.params.push_back("split_factors=shared");
    const auto shared_problem = problem(o);
    const HostState<double> shared = run<double>(*shared_problem, "cpu-serial", 2).state;
    for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(shared.field(f), per_line.field(f)) << variant << " p = " << ranks << " " << f;
    EXPECT_EQ(shared_problem->describe()["split_factors"], "shared");
  }
  for (int ranks : {2, 3}) {
    CaseOptions o = options("synthetic", 12, 20, 9);
    o.params = {"variant=V2", "split_factors=shared"};
    const RealRanks got = run_real_ranks(*problem(o), ranks, 3);
    o.params = {"variant=V2", "y_ranks=" + std::to_string(ranks)};
    const Ran<double> per_line = run<double>(*problem(o), "cpu-serial", 3);
    for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(got.state.field(f), per_line.state.field(f)) << "real ranks " << ranks << " " << f;
    for (int r = 0; r < ranks; ++r)
      EXPECT_EQ(got.calls[std::size_t(r)].at("adi_y/r" + std::to_string(r) + "/local"), 9) << "the x sweep, timed as the local phase";
  }
  CaseOptions o = options("synthetic", 12, 24, 9);
  o.params = {"variant=V2", "y_ranks=3"};
  const Grid g{12, 24, 9, 1, 1, 1};
  const std::size_t per_line_bytes = problem(o)->device_bytes(Precision<double>{}, g, SolverOptions{});
  o.params.push_back("split_factors=shared");
  const std::size_t shared_bytes = problem(o)->device_bytes(Precision<double>{}, g, SolverOptions{});
  // ADI-Y: 9 fields less its 27 short lines; TDMA-C: v, w, c' shared by a line's two parts, 3 words a point less
  EXPECT_EQ(per_line_bytes - shared_bytes, ((9 + 3) * g.padded_points() - 27 * std::size_t(g.ny)) * sizeof(double));
  const auto s = problem(o)->make_solver(Precision<double>{}, resolve(find_recipe("fracstep", "cpu-serial"), {}), SolverOptions{}, nullptr);
  const auto& solver = dynamic_cast<const FracstepSolver<double>&>(*s);
  EXPECT_FALSE(solver.has_field("split_0")) << "the per-line scratch is not allocated";
}

// V1 on P real z-slab host ranks (threads driver; ghost planes from the ring neighbours, ADI-Z and the
// Poisson solve's z transform, y lines and inverse z transform on x-slabs through the all-to-alls) equals
// V0 on one rank BIT FOR BIT: every point's and every line's arithmetic is V0's in V0's order (the formulas
// read the ghost planes where V0 wraps; a z line is solved whole on its x-slab; the x and z transforms sum
// each line as V0 does; the y lines get the global kx's eigenvalue). 11x10x9: the z-slabs and the x-slabs
// uneven at P = 2 (5 + 4 planes, 6 + 5 columns) and P = 4 (3 + 2 + 2 + 2, 3 + 3 + 3 + 2); at P = 2 both ring
// neighbours are one rank. 3 steps of the synthetic case (stretched y).
TEST(Fracstep, V1OnRealRanksEqualsV0) {
  CaseOptions o = options("synthetic", 11, 10, 9);
  const Ran<double> v0 = run<double>(*problem(o), "cpu-serial", 3);
  o.params = {"variant=V1"};
  for (int ranks : {2, 3, 4}) {
    const auto v1 = problem(o);
    const RealRanks got = run_real_ranks(*v1, ranks, 3);
    for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(got.state.field(f), v0.state.field(f)) << "V1 p = " << ranks << " " << f;
    EXPECT_EQ(got.max_divergence, v0.checks["max_divergence"].get<double>()) << "final checks over the ranks' own cells";
    EXPECT_LT(got.max_divergence, 1e-12) << "projected";
    EXPECT_EQ(v1->describe()["real_ranks"], ranks);
    EXPECT_EQ(v1->describe()["emulated"], false);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_EQ(got.calls[std::size_t(r)].at("adi_z"), 9) << "a call a sub-step";
      EXPECT_EQ(got.calls[std::size_t(r)].at("tdma_c"), 9) << "the y lines of its x-slab";
      EXPECT_EQ(got.calls[std::size_t(r)].at("ghost_rows"), 27) << "three ghost-plane exchanges a sub-step";
      EXPECT_EQ(got.calls[std::size_t(r)].at("all_to_all"), 36) << "ADI-Z's two transposes and the Poisson solve's two a sub-step";
      EXPECT_EQ(got.calls[std::size_t(r)].count("adi_y/r0/local"), 0u) << "no split y solve";
    }
  }
  const RealRanks omp = run_real_ranks(*problem(o), 2, 3, "cpu-omp", 2);  // cpu_omp ranks, 2 threads each
  for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(omp.state.field(f), v0.state.field(f)) << "cpu_omp ranks " << f;
}

// What V1 refuses: y_ranks (it splits z over real ranks), one rank (V1 is --ranks P; one rank is V0), more
// ranks than z planes or x columns, V2's options (gpu_messages: its GPU ranks talk by peer copies only); and
// the message says which.
TEST(Fracstep, V1RefusesWhatItCannotRun) {
  const auto refusal = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no refusal");
  };
  CaseOptions o = options("synthetic", 11, 10, 9);
  o.params = {"variant=V1", "y_ranks=2"};
  EXPECT_NE(refusal([&] { problem(o); }).find("V1 splits z over real ranks (--ranks P), not y"), std::string::npos);
  for (const char* other : {"split_factors=shared", "gpu_messages=peer", "batches=2"}) {
    o.params = {"variant=V1", other};
    EXPECT_THROW(problem(o), std::invalid_argument) << other;
  }
  o.params = {"variant=V1"};
  const ResolvedRecipe cpu = resolve(find_recipe("fracstep", "cpu-serial"), {});
  EXPECT_NE(refusal([&] { problem(o)->make_solver(Precision<double>{}, cpu, SolverOptions{}, nullptr); }).find("V1 runs on P real z-slab ranks: --ranks P"),
            std::string::npos);
  const auto v1 = problem(o);
  const auto& slabs = dynamic_cast<const SlabAssigner&>(*v1);
  EXPECT_NE(refusal([&] { slabs.assign_slabs(10); }).find("needs a z plane and an x column a rank"), std::string::npos) << "nz = 9";
  o = options("synthetic", 4, 10, 9);
  o.params = {"variant=V1"};
  EXPECT_NE(refusal([&] { dynamic_cast<const SlabAssigner&>(*problem(o)).assign_slabs(5); }).find("an x column a rank"), std::string::npos)
      << "nx = 4";
  EXPECT_EQ(slabs.assign_slabs(2).size(), 2u);
  o.params = {"variant=V1", "gpu_messages=nccl"};  // its GPU ranks talk by peer copies only
  EXPECT_NE(refusal([&] { problem(o); }).find("V1 by NCCL or MPI on GPU ranks is not built"), std::string::npos);
}

TEST(Fracstep, RealRanksRefuseV0AndAnotherYRanks) {
  const auto v0 = problem(options("synthetic", 12, 20, 9));
  EXPECT_THROW(dynamic_cast<const SlabAssigner&>(*v0).assign_slabs(2), std::invalid_argument);
  EXPECT_EQ(dynamic_cast<const SlabAssigner&>(*v0).assign_slabs(1).size(), 1u);
  CaseOptions o = options("synthetic", 12, 20, 9);
  o.params = {"variant=V2", "y_ranks=4"};
  EXPECT_THROW(dynamic_cast<const SlabAssigner&>(*problem(o)).assign_slabs(2), std::invalid_argument);
  o.params = {"variant=V2"};
  EXPECT_THROW(dynamic_cast<const SlabAssigner&>(*problem(o)).assign_slabs(7), std::invalid_argument);  // 3 rows a rank at least
  EXPECT_THROW(problem(o)->make_solver(Precision<double>{}, resolve(find_recipe("fracstep", "cpu-serial"), {}), SolverOptions{}, nullptr),
               std::invalid_argument);  // V2 on one rank needs y_ranks
}

#if !defined(NSB_WITH_CUDA)
// A build without CUDA refuses GPU ranks by name (the factories of gpu_ranks.hpp: V2's and V1's).
TEST(Fracstep, GpuRanksWithoutCudaAreRefusedByName) {
  auto group = std::make_shared<ThreadGroup>(1);
  ThreadComm comm(group, 0);
  for (const char* how : {"peer", "nccl"}) {
    try {
      make_gpu_rank_links<double>(how, comm, Grid{4, 4, 4, 1, 1, 1}, nullptr, 0);
      ADD_FAILURE() << "no refusal: " << how;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("V2 on GPU ranks needs nsbench built with CUDA"), std::string::npos) << e.what();
    }
  }
  try {
    make_gpu_z_slab_links<double>(comm, Grid{4, 4, 4, 1, 1, 1}, Grid{4, 4, 8, 1, 1, 2}, nullptr, 0);
    ADD_FAILURE() << "no refusal: V1";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("V1 on GPU ranks needs nsbench built with CUDA"), std::string::npos) << e.what();
  }
}
#endif

TEST(Fracstep, SerialAndOpenMpAgreeBitForBit) {
  const auto p = problem(options("synthetic", 12, 10, 9));
  const HostState<double> a = run<double>(*p, "cpu-serial", 2).state, b = run<double>(*p, "cpu-omp", 2, 2).state;
  for (const char* f : {"u", "v", "w", "p"}) EXPECT_EQ(a.field(f), b.field(f)) << f;
}

TEST(Fracstep, RefusesWhatItCannotRun) {
  EXPECT_THROW(problem(options("poiseuille", 2, 8, 8)), std::invalid_argument);
  EXPECT_THROW(problem(options("poiseuille", 8, 1, 8)), std::invalid_argument);
  EXPECT_THROW(problem(options("no_such_case", 8, 8, 8)), std::invalid_argument);
  const auto p = problem(options("poiseuille", 8, 8, 8));
  SolverOptions o;
  o.poisson_method = "cg";
  EXPECT_THROW(p->check_options(o), std::runtime_error);
  o.poisson_method = "fft";
  EXPECT_THROW(p->check_options(o), std::runtime_error);  // fft transforms y: not on the stretched default
  EXPECT_NO_THROW(problem(options("poiseuille", 8, 8, 8, 0, 0))->check_options(o));
  CaseOptions bad = options("poiseuille", 8, 8, 8);
  bad.params = {"y_stretch=-1"};
  EXPECT_THROW(problem(bad), std::invalid_argument);
  bad.params = {"stretch=1"};
  EXPECT_THROW(problem(bad), std::invalid_argument);
  for (const std::vector<std::string>& v : {std::vector<std::string>{"variant=V1", "y_ranks=2"}, {"variant=V3"}, {"variant=V2", "y_ranks=1"},
                                            {"variant=V2", "y_ranks=9"}, {"variant=V2", "y_ranks=3"}, {"y_ranks=2"},
                                            {"split_factors=shared"}, {"variant=V2", "y_ranks=2", "split_factors=once"},
                                            {"variant=V2", "y_ranks=2", "rank_phases=0", "split_factors=shared"},
                                            {"variant=V2-async", "y_ranks=2"}, {"variant=V2-async", "gpu_messages=peer"},
                                            {"variant=V2", "batches=4"}, {"variant=V2-async", "batches=0"},
                                            {"variant=V2-async", "batches=2.5"}}) {
    bad.params = v;
    EXPECT_THROW(problem(bad), std::invalid_argument) << v.front();  // 8 y cells: at most 2 ranks (3 cells a rank)
  }
  // variant=V2 alone is --ranks P's (real ranks): its one-rank solver is refused (RealRanksRefuseV0AndAnotherYRanks)
}

// ---------------------------------------------------------------------------------------------- GPU

template <class T>
void expect_variants_match_reference(const std::string& stage, const Grid& g) {
  const StageKind& kind = StageKindRegistry::instance().get("fracstep/" + stage);
  const Variant& reference = Registry::instance().get("fracstep/" + stage, "cpu_serial");
  FixtureSpec spec;
  spec.stage = stage, spec.grid = g, spec.backend = Backend::cpu_serial, spec.seed = 5, spec.verify = true;
  const auto cpu = kind.fixture<T>()(spec);
  cpu->run(reference, reference.tunings.front());
  spec.backend = Backend::cuda;
  for (const Variant* v : Registry::instance().of_stage("fracstep/" + stage)) {
    if (v->backend != Backend::cuda) continue;
    for (const Tuning& t : v->tunings) {
      const auto gpu = kind.fixture<T>()(spec);
      gpu->run(*v, t);
      EXPECT_LE(test::fixture_difference(*gpu, *cpu), kind.tolerance<T>()) << v->id() << ":" << t.name << " elem " << sizeof(T);
    }
  }
}

TEST(FracstepGpu, EveryVariantMatchesTheCpuReference) {
  NSB_NEEDS_GPU();
  for (const char* stage : kFracstepStages)
    for (const Grid& g : {Grid{37, 23, 19, 3.7, 2.3, 1.9}, Grid{64, 8, 5, 8, 1, 0.625}}) {
      expect_variants_match_reference<float>(stage, g);
      expect_variants_match_reference<double>(stage, g);
    }
}

// GPU = CPU after 10 steps of the synthetic case (every kernel and the GPU Poisson solve), with each GPU
// recipe (tiled: the x sweep through warp tiles; nx = 48 is a chunk and a half of it, ny nz = 480 lines 15 warps).
TEST(FracstepGpu, GlobalRecipeMatchesTheCpuSolverAfterTenSteps) {
  NSB_NEEDS_GPU();
  const auto p = problem(options("synthetic", 48, 20, 24));
  const HostState<double> cpu = run<double>(*p, "cpu-serial", 10).state;
  for (const char* recipe : {"global", "tiled"}) {
    const HostState<double> gpu = run<double>(*p, recipe, 10).state;
    for (const char* f : {"u", "v", "w"}) {
      double d = 0;
      for (std::size_t n = 0; n < cpu.field(f).size(); ++n) d = std::max(d, std::abs(cpu.field(f)[n] - gpu.field(f)[n]));
      EXPECT_LT(d, 1e-11) << recipe << " " << f;
    }
    const Ran<float> g32 = run<float>(*p, recipe, 10);
    EXPECT_LT(g32.checks["relative_divergence"].get<double>(), 1e-5) << recipe;
  }
}

// V2, V2-acc, V2-ppt on 4 virtual y-ranks: the GPU's split y sweeps and TDMA-C (PDD, PPT) = the CPU's
// after 3 steps (V2-acc: 1); and V2, V2-ppt with ADI-Y's factors set up once (split_factors=shared: the
// GPU's x sweep against the host's factors) = the CPU's per-line form.
TEST(FracstepGpu, V2MatchesTheCpuSolver) {
  NSB_NEEDS_GPU();
  for (const auto& [variant, factors] : {std::pair{"V2", "per_line"}, std::pair{"V2-acc", "per_line"}, std::pair{"V2-ppt", "per_line"},
                                         std::pair{"V2", "shared"}, std::pair{"V2-ppt", "shared"}}) {
    CaseOptions o = options("synthetic", 48, 32, 24);
    o.params = {std::string("variant=") + variant, "y_ranks=4"};
    const auto p = problem(o);
    o.params.push_back(std::string("split_factors=") + factors);
    const auto p_gpu = problem(o);
    const int steps = std::string(variant) == "V2-acc" ? 1 : 3;  // V2-acc grows without bound: one step
    const HostState<double> cpu = run<double>(*p, "cpu-serial", steps).state, gpu = run<double>(*p_gpu, "global", steps).state;
    for (const char* f : {"u", "v", "w"}) {
      double d = 0, size = 0;
      for (std::size_t n = 0; n < cpu.field(f).size(); ++n)
        d = std::max(d, std::abs(cpu.field(f)[n] - gpu.field(f)[n])), size = std::max(size, std::abs(cpu.field(f)[n]));
      EXPECT_LT(d, 1e-11 * size) << variant << " split_factors=" << factors << " " << f;
    }
  }
}

// V2, V2-ppt, V2-acc on 2 real GPU ranks (threads, GPU r % count: one GPU shared, or one each): ghost
// rows and the split y solves' messages by peer copies, TDMA-C by the cuFFT variant's rank path. Equal to
// the emulated V2 (y_ranks = 2) on the GPU to round-off (the ranks' transforms are cuFFT's of a slab, not
// of the whole grid: not bit for bit). ny = 31: slabs of 15 and 16 rows (the two ranks' pitches differ).
// The ranks' GPUs talk by peer copies (gpu_messages=peer, the default) or by NCCL (gpu_messages=nccl,
// one GPU a rank: with fewer than 2 GPUs, or in a build without NCCL, that test is skipped, said so).
// With split_factors=shared (V2, V2-ppt: ADI-Y's factors set up once) on both sides too.
void expect_v2_on_gpu_ranks_equals_the_emulation(const std::string& messages) {
  for (const auto& [variant, factors] : {std::pair{"V2", "per_line"}, std::pair{"V2-ppt", "per_line"}, std::pair{"V2-acc", "per_line"},
                                         std::pair{"V2", "shared"}, std::pair{"V2-ppt", "shared"}}) {
    CaseOptions o = options("synthetic", 48, 31, 24);
    o.params = {std::string("variant=") + variant, std::string("split_factors=") + factors, "gpu_messages=" + messages};
    const RealRanks got = run_real_ranks(*problem(o), 2, 3, "global");
    o.params = {std::string("variant=") + variant, std::string("split_factors=") + factors, "y_ranks=2"};
    const Ran<double> emulated = run<double>(*problem(o), "global", 3);
    for (const char* f : {"u", "v", "w", "p"}) {
      double d = 0, size = 0;
      for (std::size_t n = 0; n < emulated.state.field(f).size(); ++n)
        d = std::max(d, std::abs(got.state.field(f)[n] - emulated.state.field(f)[n])), size = std::max(size, std::abs(emulated.state.field(f)[n]));
      EXPECT_LT(d, 1e-12 * size) << variant << " " << f;
      std::cout << variant << " split_factors=" << factors << " gpu_messages=" << messages << " " << f
                << ": max |real - emulated| / max |emulated| = " << d / size << "\n";
    }
    // final_checks over the ranks: round-off as the emulation's (a wrong ghost row or message: O(1e-2))
    EXPECT_LT(got.max_divergence, 1e-11) << variant << " emulated: " << emulated.checks["max_divergence"].get<double>();
    for (int r = 0; r < 2; ++r) {
      const std::string me = "/r" + std::to_string(r) + "/";
      EXPECT_EQ(got.calls[std::size_t(r)].at("adi_y" + me + "local"), 9) << variant;
      EXPECT_EQ(got.calls[std::size_t(r)].at("tdma_c" + me + "correct"), 9) << variant;
      EXPECT_EQ(got.calls[std::size_t(r)].count("adi_y/r" + std::to_string(1 - r) + "/local"), 0u) << "not another rank's";
      EXPECT_EQ(got.calls[std::size_t(r)].at("ghost_rows"), 27) << variant << " three exchanges a sub-step";
    }
  }
}
TEST(FracstepGpu, V2OnRealGpuRanksEqualsTheEmulation) {
  NSB_NEEDS_GPU();
  expect_v2_on_gpu_ranks_equals_the_emulation("peer");
}
TEST(FracstepGpu, V2OnRealGpuRanksByNcclEqualsTheEmulation) {
  NSB_NEEDS_GPU();
  if (device::count() < 2) GTEST_SKIP() << "SKIPPED: NCCL needs one GPU a rank, 2 ranks (" << device::count() << " usable)";
  if (!Registry::instance().find("multiblock/ifsum", "boundary_band_nccl")) GTEST_SKIP() << "SKIPPED: built without NCCL";
  expect_v2_on_gpu_ranks_equals_the_emulation("nccl");
}

// V1 on real GPU z-slab ranks (threads driver, rank r on GPU r % count: one GPU shared, or one each; peer copies
// between the ranks' GPUs: the ghost planes, ADI-Z's transposes of du, dv, dw, the Poisson solve's of its
// spectral field) equals V0 on one GPU to round-off after 3 steps: every point's and line's arithmetic is V0's,
// but the ranks' cuFFT transforms run batched over fewer lines (not promised bit for bit). 25x20x19 stretched:
// uneven z-slabs and x-slabs at P = 2 (10 + 9 planes, 13 + 12 columns; both ring neighbours one rank), 3 (7 6 6;
// 9 8 8) and 4 (5 5 5 4; 7 6 6 6; on 2 GPUs, two ranks a GPU), with each GPU recipe (V0 of the same recipe).
// A failure names the field, the largest difference and its point (i, j, k of the padded grid).
TEST(FracstepGpu, V1OnRealGpuRanksEqualsV0) {
  NSB_NEEDS_GPU();
  std::cout << "V1 on GPU ranks: " << device::count() << " GPU(s), rank r on GPU r % " << device::count() << "\n";
  CaseOptions o = options("synthetic", 25, 20, 19);
  const Grid g{25, 20, 19, 1, 1, 1};
  for (const char* recipe : {"global", "tiled"}) {
    o.params = {};
    const Ran<double> v0 = run<double>(*problem(o), recipe, 3);
    o.params = {"variant=V1"};
    for (int ranks : {2, 3, 4}) {
      const auto v1 = problem(o);
      const RealRanks got = run_real_ranks(*v1, ranks, 3, recipe);
      const std::string what = std::string(recipe) + " P = " + std::to_string(ranks);
      for (const char* f : {"u", "v", "w", "p"}) {
        const std::vector<double>&a = got.state.field(f), &b = v0.state.field(f);
        ASSERT_EQ(a.size(), b.size());
        double d = 0, size = 0;
        std::size_t at = 0;
        for (std::size_t n = 0; n < b.size(); ++n) {
          size = std::max(size, std::abs(b[n]));
          if (std::abs(a[n] - b[n]) > d) d = std::abs(a[n] - b[n]), at = n;
        }
        const std::size_t i = at % std::size_t(g.NX()), j = at / std::size_t(g.NX()) % std::size_t(g.NY()), k = at / g.sz();
        std::cout << "V1 " << what << " " << f << ": max |V1 - V0| / max |V0| = " << d / size << " at (" << i << ", " << j << ", "
                  << k << ")\n";
        EXPECT_LE(d, 1e-12 * size) << what << " " << f << " at (i, j, k) = (" << i << ", " << j << ", " << k << "): V1 " << a[at]
                                   << ", V0 " << b[at];
      }
      // final_checks over the ranks' own cells: round-off as V0's (a wrong ghost plane or block: O(1e-2))
      std::cout << "V1 " << what << ": max |div| " << got.max_divergence << " (V0 " << v0.checks["max_divergence"].get<double>() << ")\n";
      EXPECT_LT(got.max_divergence, 1e-11) << what << ", V0: " << v0.checks["max_divergence"].get<double>();
      for (int r = 0; r < ranks; ++r) {
        const std::map<std::string, int>& c = got.calls[std::size_t(r)];
        EXPECT_EQ(c.at("adi_z"), 9) << what;
        EXPECT_EQ(c.at("tdma_c"), 9) << what << " the y lines of its x-slab";
        EXPECT_EQ(c.at("ghost_rows"), 27) << what << " three ghost-plane exchanges a sub-step";
        EXPECT_EQ(c.at("all_to_all"), 36) << what << " ADI-Z's two transposes and the Poisson solve's two a sub-step";
      }
    }
  }
}

// V2-async on 2 real GPU ranks (NCCL, one GPU a rank, threads driver): the split y solves' messages on a
// stream of their own beside the next batch's kernels (split_solve_rank_pipelined, ADI-Y and TDMA-C)
// give V2's numbers on the same ranks (split_solve_rank, the messages on the compute stream) BIT FOR BIT
// after 3 steps: a line's arithmetic is the same, only the launch order and the messages' grouping
// differ (a missing wait between the streams would read a message still travelling: wrong numbers, or
// differing from run to run). Both forms of the local phase; the default 4 batches, 1, and 7 (uneven:
// 3456 ADI-Y lines, 2304 of TDMA-C). The phases are not timed one by one (they run beside the messages),
// the whole solves are (adi_y, tdma_c: 9 calls a rank).
TEST(FracstepGpu, V2AsyncOnRealGpuRanksEqualsV2BitForBit) {
  NSB_NEEDS_GPU();
  if (device::count() < 2) GTEST_SKIP() << "SKIPPED: NCCL needs one GPU a rank, 2 ranks (" << device::count() << " usable)";
  if (!Registry::instance().find("multiblock/ifsum", "boundary_band_nccl")) GTEST_SKIP() << "SKIPPED: built without NCCL";
  for (const std::string factors : {"split_factors=per_line", "split_factors=shared"}) {
    CaseOptions o = options("synthetic", 48, 31, 24);
    o.params = {"variant=V2", factors, "gpu_messages=nccl"};
    const RealRanks sync = run_real_ranks(*problem(o), 2, 3, "global");
    for (const std::string batches : {"", "batches=1", "batches=7"}) {
      o.params = {"variant=V2-async", factors};  // gpu_messages: nccl, V2-async's one transport
      if (!batches.empty()) o.params.push_back(batches);
      const auto async_problem = problem(o);
      const RealRanks async = run_real_ranks(*async_problem, 2, 3, "global");
      const std::string what = factors + " " + (batches.empty() ? "batches=4 (default)" : batches);
      for (const char* f : {"u", "v", "w", "p"}) {  // counted, not listed (a failure would print 40K values)
        const std::vector<double>&a = async.state.field(f), &b = sync.state.field(f);
        ASSERT_EQ(a.size(), b.size());
        std::size_t differ = 0;
        double d = 0;
        for (std::size_t n = 0; n < a.size(); ++n)
          if (a[n] != b[n]) ++differ, d = std::max(d, std::abs(a[n] - b[n]));
        EXPECT_EQ(differ, 0u) << what << " " << f << ": largest difference " << d;
        std::cout << "V2-async " << what << " " << f << ": " << differ << " of " << a.size() << " values differ from V2's (largest "
                  << d << ")\n";
      }
      EXPECT_EQ(async.max_divergence, sync.max_divergence) << what;
      const nlohmann::json d = async_problem->describe();
      EXPECT_EQ(d["variant"], "V2-async");
      EXPECT_EQ(d["gpu_messages"], "nccl");
      EXPECT_EQ(d["overlap"], true);
      EXPECT_EQ(d["rank_phases"], false);
      EXPECT_EQ(d["batches"], batches.empty() ? 4 : batches == "batches=1" ? 1 : 7);
      for (int r = 0; r < 2; ++r) {
        const std::map<std::string, int>& c = async.calls[std::size_t(r)];
        EXPECT_EQ(c.at("adi_y"), 9) << what;
        EXPECT_EQ(c.at("tdma_c"), 9) << what;
        EXPECT_EQ(c.count("adi_y/r" + std::to_string(r) + "/local"), 0u) << what << ": the phases are not timed one by one";
        EXPECT_EQ(c.count("tdma_c/r" + std::to_string(r) + "/exchange"), 0u) << what;
        EXPECT_EQ(c.at("ghost_rows"), 27) << what;
      }
    }
  }
}

}  // namespace
}  // namespace nsb
