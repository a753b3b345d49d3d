// The wave solver: exact solution and second-order convergence, the conserved energy, serial vs
// OpenMP, decomposed vs undecomposed runs, refusal of what it cannot run; on a GPU (skipped without
// one), every wave/step variant and every GPU recipe against the CPU reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numbers>

#include "device.hpp"
#include "halo.hpp"
#include "run.hpp"
#include "stage_kind.hpp"
#include "wave/case.hpp"
#include "thread_ranks.hpp"
#include "gpu_test_support.hpp"

namespace nsb {
namespace {

CaseOptions wave_options(int nx, int ny, double dt = 0) {
  CaseOptions o;
  o.name = "standing_wave";
  o.nx = nx, o.ny = 1, o.nz = ny;
  o.dt = dt;
  return o;
}

std::unique_ptr<Problem> wave_problem(const CaseOptions& o) {
  return SolverRegistry::instance().of_case("standing_wave").make_problem(o);
}

// `steps` steps of a recipe from the problem's initial state, on one rank.
template <class T>
HostState<T> run_wave(const Problem& p, const std::string& recipe, int steps, int threads = 0) {
  SolverOptions o;
  o.threads = threads;
  const std::unique_ptr<Solver<T>> s = p.make_solver(Precision<T>{}, resolve(find_recipe("wave", recipe), {}), o, nullptr);
  s->load(p.initial_state(Precision<T>{}));
  for (int i = 0; i < steps; ++i) s->step();
  return s->save();
}

// The same on `ranks` z-slabs (stripes of rows), one host thread each, exchanging ghost rows through
// halo/shared_memory_copy; the slabs gathered back into the whole grid.
template <class T>
HostState<T> run_wave_decomposed(const Problem& p, int ranks, int steps) {
  const HaloVariant& halo = HaloRegistry::instance().get("shared_memory_copy");
  test::RankHooks<T> hooks;
  hooks.context = [&](RankContext& ctx) { ctx.halo = &halo, ctx.tuning = halo.tunings.front(); };
  return test::run_on_thread_ranks<T>(p, p.initial_state(Precision<T>{}), decompose_z(p.grid(), ranks, p.periodic_z()),
                                      resolve(find_recipe("wave", "cpu-serial"), {}), steps, {}, hooks);
}

double max_error(const Problem& p, const HostState<double>& s) {
  return p.validate(s, false)["max_error"].get<double>();
}

// Refinement at a fixed rho (dt halves with h) to the same final time t = 1: the error of a second-
// order scheme falls 4x each time h halves. n + 1 = 32, 64, 128 nodes across: every grid's nodes are
// nodes of the finer ones.
TEST(Wave, ExactSolutionAndSecondOrderConvergence) {
  double errors[3];
  for (int level = 0; level < 3; ++level) {
    const int n = (32 << level) - 1, steps = 32 << level;
    const std::unique_ptr<Problem> p = wave_problem(wave_options(n, n, 1.0 / steps));
    const HostState<double> end = run_wave<double>(*p, "cpu-serial", steps);
    EXPECT_NEAR(end.time, 1.0, 1e-12);
    errors[level] = max_error(*p, end);
  }
  EXPECT_LT(errors[0], 1e-3);  // amplitude 1; measured 4.6e-4, then ratios 4.06 and 4.03
  for (int level = 1; level < 3; ++level) {
    const double ratio = errors[level - 1] / errors[level];
    EXPECT_NEAR(ratio, 4.0, 0.2) << "refinement " << level << ": errors " << errors[level - 1] << " -> " << errors[level];
  }
}

// nx != ny: a rectangle of square cells, ly = (ny + 1) h; the mode fits it all the same.
TEST(Wave, RectangularGridsConvergeToo) {
  const std::unique_ptr<Problem> coarse = wave_problem(wave_options(31, 47, 1.0 / 32));
  const std::unique_ptr<Problem> fine = wave_problem(wave_options(63, 95, 1.0 / 64));
  const double ratio = max_error(*coarse, run_wave<double>(*coarse, "cpu-serial", 32)) /
                       max_error(*fine, run_wave<double>(*fine, "cpu-serial", 64));
  EXPECT_NEAR(ratio, 4.0, 0.2);
}

TEST(Wave, EnergyIsConservedToRounding) {
  const std::unique_ptr<Problem> p = wave_problem(wave_options(45, 38));
  const std::unique_ptr<Solver<double>> s =
      p->make_solver(Precision<double>{}, resolve(find_recipe("wave", "cpu-serial"), {}), SolverOptions{}, nullptr);
  s->load(p->initial_state(Precision<double>{}));
  for (int i = 0; i < 300; ++i) s->step();
  const nlohmann::json checks = s->final_checks();
  EXPECT_GT(checks["energy"].get<double>(), 0);
  EXPECT_LT(std::abs(checks["energy_relative_drift"].get<double>()), 1e-12);
  EXPECT_LE(checks["max_abs_u"].get<double>(), 1.0 + 1e-3);
}

TEST(Wave, SerialAndOpenMpAgreeBitForBit) {
  const std::unique_ptr<Problem> p = wave_problem(wave_options(53, 41));
  for (int threads : {2, 3}) {
    EXPECT_EQ(run_wave<double>(*p, "cpu-serial", 25).fields, run_wave<double>(*p, "cpu-omp", 25, threads).fields);
    EXPECT_EQ(run_wave<float>(*p, "cpu-serial", 25).fields, run_wave<float>(*p, "cpu-omp", 25, threads).fields);
  }
}

// Each point is computed alone from the same values: a decomposition changes no bit.
TEST(Wave, DecomposedRunsEqualTheUndecomposedOne) {
  const std::unique_ptr<Problem> p = wave_problem(wave_options(37, 29));
  const HostState<double> whole = run_wave<double>(*p, "cpu-serial", 40);
  for (int ranks : {2, 3}) {
    const HostState<double> split = run_wave_decomposed<double>(*p, ranks, 40);
    EXPECT_EQ(split.field("u"), whole.field("u")) << ranks << " ranks";
    EXPECT_EQ(split.field("u_prev"), whole.field("u_prev")) << ranks << " ranks";
  }
}

// The executor end to end: two ranks of the threads driver, checked against the one-rank run.
TEST(Wave, RunsThroughTheExecutorOnTwoRanks) {
  RunOptions o;
  o.case_options = wave_options(40, 33);
  o.steps = 12, o.warmup = 2, o.ranks = 2, o.progress = false;
  const nlohmann::json r = run(o);
  EXPECT_EQ(r["checks"]["validation"]["kind"], "exact");
  EXPECT_LT(r["checks"]["validation"]["max_error"].get<double>(), 1e-2);
  EXPECT_TRUE(r["checks"]["reference"]["pass"].get<bool>()) << r["checks"]["reference"].dump();
}

// f must throw E with a message that names the problem (contains `names`).
template <class E>
void expect_refused(const std::function<void()>& f, const std::string& names) {
  try {
    f();
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(names), std::string::npos) << e.what();
    return;
  }
  ADD_FAILURE() << "accepted; expected a refusal naming '" << names << "'";
}

TEST(Wave, RefusesWhatItCannotRun) {
  const auto problem = [](CaseOptions o) { return [o] { wave_problem(o); }; };
  CaseOptions three_d = wave_options(64, 64);
  three_d.ny = 4;
  expect_refused<std::invalid_argument>(problem(three_d), "give --grid NXx1xNY");
  expect_refused<std::invalid_argument>(problem(wave_options(0, 8)), "impossible grid 0x1x8");
  // h = pi / 65 = 0.0483: the largest stable dt is 0.0342.
  expect_refused<std::invalid_argument>(problem(wave_options(64, 64, 0.05)), "is unstable on this grid");
  CaseOptions re = wave_options(16, 16);
  re.re = 400;
  expect_refused<std::invalid_argument>(problem(re), "--re has no meaning");
  CaseOptions safety = wave_options(16, 16);
  safety.safety = 1.5;
  expect_refused<std::invalid_argument>(problem(safety), "--safety must be in (0, 1]");

  const std::unique_ptr<Problem> p = wave_problem(wave_options(16, 16));
  SolverOptions ab2;
  ab2.scheme = TimeScheme::adams_bashforth2;
  expect_refused<std::runtime_error>([&] { p->check_options(ab2); }, "--scheme");
  SolverOptions jacobi;
  jacobi.jacobi_iterations = 50;
  expect_refused<std::runtime_error>([&] { p->check_options(jacobi); }, "--iterations");
  SolverOptions poisson;
  poisson.poisson_method = "multigrid";
  expect_refused<std::runtime_error>([&] { p->check_options(poisson); }, "--poisson");
}

TEST(Wave, TheLargestStableTimeStepIsAccepted) {
  const std::unique_ptr<Problem> p = wave_problem(wave_options(64, 64, wave_rho_limit() * std::numbers::pi / 65));
  EXPECT_NEAR(p->describe()["rho"].get<double>(), wave_rho_limit(), 1e-12);
}

// ---------------------------------------------------------------------------------------------- GPU

template <class T>
void expect_variant_matches_reference(const Variant& v, const Grid& g) {
  const StageKind& kind = StageKindRegistry::instance().get("wave/step");
  const Variant& reference = Registry::instance().get("wave/step", "cpu_serial");
  FixtureSpec spec;
  spec.stage = "step", spec.grid = g, spec.backend = Backend::cpu_serial, spec.seed = 11, spec.verify = true;
  const auto cpu = kind.fixture<T>()(spec);
  cpu->run(reference, reference.tunings.front());
  spec.backend = Backend::cuda;
  for (const Tuning& t : v.tunings) {
    const auto gpu = kind.fixture<T>()(spec);
    gpu->run(v, t);
    EXPECT_LE(test::fixture_difference(*gpu, *cpu), kind.tolerance<T>())
        << v.id() << ":" << t.name << " " << g.nx << "x" << g.nz << " elem " << sizeof(T);
  }
}

// Row lengths nx + 2 of 64, 66 and 63 values: register_rows runs its float4, float2 and scalar paths.
TEST(WaveGpu, EveryStepVariantMatchesTheCpuReference) {
  NSB_NEEDS_GPU();
  for (const Grid& g : {wave_grid(62, 37), wave_grid(64, 33), wave_grid(61, 18)})
    for (const Variant* v : Registry::instance().of_stage("wave/step"))
      if (v->backend == Backend::cuda) {
        expect_variant_matches_reference<float>(*v, g);
        expect_variant_matches_reference<double>(*v, g);
      }
}

// Whole runs: rounding (fused multiply-adds on the GPU) is all that may differ.
TEST(WaveGpu, EveryRecipeMatchesTheCpuSolver) {
  NSB_NEEDS_GPU();
  const std::unique_ptr<Problem> p = wave_problem(wave_options(101, 77));
  const HostState<double> cpu64 = run_wave<double>(*p, "cpu-serial", 60);
  const HostState<float> cpu32 = run_wave<float>(*p, "cpu-serial", 60);
  for (const char* recipe : {"thibault-shared", "global", "best"}) {
    const std::vector<double>& ref64 = cpu64.field("u");
    const std::vector<double> got64 = run_wave<double>(*p, recipe, 60).field("u");
    const std::vector<float>& ref32 = cpu32.field("u");
    const std::vector<float> got32 = run_wave<float>(*p, recipe, 60).field("u");
    double d64 = 0, d32 = 0;
    for (std::size_t n = 0; n < ref64.size(); ++n) {
      d64 = std::max(d64, std::abs(got64[n] - ref64[n]));
      d32 = std::max(d32, double(std::abs(got32[n] - ref32[n])));
    }
    EXPECT_LE(d64, 1e-12) << recipe;  // amplitude 1
    EXPECT_LE(d32, 1e-5) << recipe;
  }
}

// CUDA-graph replay: one recording of three steps brings the rotated pointers back (steps_per_graph), so
// replaying it for ever must give what the CPU gives step by step.
TEST(WaveGpu, GraphReplayMatchesTheCpuSolver) {
  NSB_NEEDS_GPU();
  RunOptions o;
  o.case_options = wave_options(130, 97);
  o.backend = "cuda", o.recipe = "best", o.precision = "double", o.launch = "graph";
  o.steps = 31, o.warmup = 4, o.progress = false;  // 33 timed steps: whole recordings of three
  const nlohmann::json r = run(o);
  EXPECT_TRUE(r["checks"]["reference"]["pass"].get<bool>()) << r["checks"]["reference"].dump();
  EXPECT_EQ(r["checks"]["validation"]["steps"].get<int>(), 4 + 33);
  EXPECT_LT(r["checks"]["validation"]["max_error"].get<double>(), 1e-3);
}

// Every threads-driver GPU halo variant on 2 and 3 ranks (ranks beyond the GPUs share one; a middle rank
// has two neighbours; the overlapping variant computes edge rows first), against the one-rank run of the
// executor's own check: each point is computed alone, so not one bit may differ.
TEST(WaveGpu, EveryThreadsHaloVariantMatchesTheOneRankRun) {
  NSB_NEEDS_GPU();
  int checked = 0;
  for (const HaloVariant& v : HaloRegistry::instance().all()) {
    if (v.backend != Backend::cuda || v.driver != "threads") continue;
    for (const Tuning& t : v.tunings)
      for (int ranks : {2, 3}) {
        if (v.name == "nccl" && ranks > device::count()) continue;  // NCCL needs one GPU per rank
        RunOptions o;
        o.case_options = wave_options(70, 45);
        o.backend = "cuda", o.recipe = "best", o.precision = "float", o.halo = v.name + ":" + t.name;
        o.ranks = ranks, o.steps = 12, o.warmup = 2, o.progress = false;
        const nlohmann::json ref = run(o)["checks"]["reference"];
        EXPECT_TRUE(ref["performed"].get<bool>()) << o.halo << ": " << ref.dump();
        for (const char* field : {"u_prev", "u"})
          EXPECT_EQ(ref["fields"][field]["max_abs_diff"].get<double>(), 0.0) << o.halo << ", " << ranks << " ranks, " << field;
        ++checked;
      }
  }
  EXPECT_GE(checked, 6);
}

}  // namespace
}  // namespace nsb
