// A decomposed run too large for a one-rank reference checks against a down-scaled twin (issue 42,
// harness/run/reference_plan.hpp): the rule that picks the twin's grid, the one decision, the memory override that
// tests force it with, whole threads-driver runs that take the twin and say so, and a wrong decomposed state that
// the twin's comparison fails.
#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "run.hpp"
#include "run/rank_run.hpp"
#include "run/reference_plan.hpp"

namespace nsb {
namespace {

TEST(DownScaledCells, EveryAxisHalvesTogetherUntilItFits) {
  std::vector<GridCells> tried;
  const auto c = down_scaled_cells({512, 256, 512}, 2, 4, [&](const GridCells& t) {
    tried.push_back(t);
    return std::uint64_t(t.nx) * t.ny * t.nz <= 256u * 128 * 256;
  });
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(*c, (GridCells{256, 128, 256}));
  EXPECT_EQ(tried.size(), 1u);  // the first halving fits: nothing smaller is tried
}

TEST(DownScaledCells, TheFloorsStopEachAxisAndThenTheRule) {
  // 2 ranks of z-slabs: z stops at 2 x kTwinMinPlanesPerRank = 4 planes, x at kTwinMinCells = 8; y (4) is below its
  // floor from the start and never halves.
  std::vector<GridCells> tried;
  const auto c = down_scaled_cells({32, 4, 32}, 2, 2, [&](const GridCells& t) {
    tried.push_back(t);
    return false;
  });
  EXPECT_FALSE(c.has_value());
  const std::vector<GridCells> expected = {{16, 4, 16}, {8, 4, 8}, {8, 4, 4}};
  EXPECT_EQ(tried, expected);
}

TEST(DownScaledCells, YSlabsKeepTheirRowsAndOddSizesRoundDown) {
  std::vector<GridCells> tried;
  down_scaled_cells({33, 17, 9}, 1, 4, [&](const GridCells& t) {
    tried.push_back(t);
    return false;
  });
  // y: 4 ranks x 2 rows = 8 at least, so 17 -> 8 and no further; z (not cut) at 8 cells or more: 9 stays.
  const std::vector<GridCells> expected = {{16, 8, 9}, {8, 8, 9}};
  EXPECT_EQ(tried, expected);
  EXPECT_THROW(down_scaled_cells({8, 8, 8}, 0, 2, [](const GridCells&) { return true; }), std::logic_error);
}

TEST(ReferencePlan, TheDecisionAndTheMemoryOverride) {
  const ReferenceMemory unknown{0, "nothing readable"};
  EXPECT_FALSE(reference_needs_twin(std::uint64_t(1) << 40, unknown));  // unknown memory: the whole grid is tried
  const ReferenceMemory forced = reference_memory("64", 123, "measured");
  EXPECT_EQ(forced.bytes, std::uint64_t(64) << 20);
  EXPECT_EQ(forced.source, "NSB_REFERENCE_MEMORY_MIB");
  EXPECT_TRUE(reference_needs_twin((std::uint64_t(64) << 20) + 1, forced));
  EXPECT_FALSE(reference_needs_twin(std::uint64_t(64) << 20, forced));
  const ReferenceMemory measured = reference_memory(nullptr, 123, "measured");
  EXPECT_EQ(measured.bytes, 123u);
  EXPECT_EQ(measured.source, "measured");
  for (const char* bad : {"", "abc", "0", "-3", "12x", "1.5"}) {
    try {
      reference_memory(bad, 0, "");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("NSB_REFERENCE_MEMORY_MIB=" + std::string(bad) + ": expected a whole number"),
                std::string::npos) << e.what();
    }
  }
}

// Sets an environment variable for one test and puts the old value back.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const char* n, const char* value) : name(n), had(std::getenv(n) != nullptr) {
    if (had) old = std::getenv(n);
    setenv(n, value, 1);
  }
  ~ScopedEnv() { had ? (void)setenv(name.c_str(), old.c_str(), 1) : (void)unsetenv(name.c_str()); }
};

RunOptions taylor_green_on(int ranks, int n) {
  RunOptions o;
  o.case_options.name = "taylor_green";
  o.case_options.nx = o.case_options.ny = o.case_options.nz = n;
  o.steps = 3;
  o.warmup = 1;
  o.ranks = ranks;
  o.progress = false;
  return o;
}

// 68 MiB: the projection solver counts 64 MiB of reduction scratch on any grid (kReduceScratchBytes), so its
// one-rank run of 48^3 needs about 80 MiB (its fields, and on the host the two whole states) and that of 24^3 about
// 66 MiB: the first halving fits.
constexpr std::uint64_t kLimit = std::uint64_t(68) << 20;

TEST(DownScaledCheck, AThreadsDriverRunTooLargeForItsReferenceChecksATwinAndSaysSo) {
  const ScopedEnv limit("NSB_REFERENCE_MEMORY_MIB", "68");
  const nlohmann::json r = run(taylor_green_on(2, 48));
  const nlohmann::json& ref = r["checks"]["reference"];
  ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
  EXPECT_TRUE(ref["pass"].get<bool>()) << ref.dump();
  EXPECT_EQ(ref["down_scaled_grid"], "24x24x24") << ref.dump();
  EXPECT_EQ(ref["down_scaled"]["memory_source"], "NSB_REFERENCE_MEMORY_MIB");
  EXPECT_EQ(ref["down_scaled"]["memory_bytes"].get<std::uint64_t>(), kLimit);
  EXPECT_GT(ref["down_scaled"]["one_rank_bytes"].get<std::uint64_t>(), kLimit);
  EXPECT_LE(ref["down_scaled"]["twin_one_rank_bytes"].get<std::uint64_t>(), kLimit);
  EXPECT_NE(ref["against"].get<std::string>().find("down-scaled twin"), std::string::npos) << ref["against"];
  for (auto& [name, f] : ref["fields"].items()) EXPECT_EQ(f["max_rel_diff"].get<double>(), 0.0) << name;  // bitwise
  EXPECT_EQ(ref["steps"].get<int>(), 4);  // the run's steps (1 warm-up, 3 timed)
  EXPECT_EQ(r["run"]["grid"]["nx"], 48);  // the run itself is the whole grid's
  EXPECT_TRUE(r["run"]["phase_seconds"].contains("down_scaled_twin"));
}

TEST(DownScaledCheck, WithoutTheOverrideASmallRunChecksTheWholeGrid) {
  const ScopedEnv limit("NSB_REFERENCE_MEMORY_MIB", "4096");
  const nlohmann::json ref = run(taylor_green_on(2, 16))["checks"]["reference"];
  ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
  EXPECT_FALSE(ref.contains("down_scaled_grid")) << ref.dump();
  EXPECT_EQ(ref["against"], "the same recipe on one rank (no decomposition), same steps");
}

// A decomposed run whose state is wrong at a slab seam (what a halo exchange that missed a plane leaves) fails the
// twin's comparison: down_scaled_check compares the twin's gathered decomposed state with the twin's one-rank run.
TEST(DownScaledCheck, AWrongDecomposedStateFailsTheTwinsComparison) {
  RunOptions o = taylor_green_on(2, 16);
  const SolverDef& solver = SolverRegistry::instance().of_run("", o.case_options.name);
  const std::unique_ptr<Problem> problem = solver.make_problem(o.case_options);
  const ResolvedRecipe recipe = resolve(default_recipe(solver.name, Backend::cpu_serial), {});
  RunSetup s{o, solver, *problem, recipe, o.solver, {}};
  s.reference.down_scaled = true;
  s.reference.twin_cells = {16, 16, 16};
  s.reference.twin = solver.make_problem(o.case_options);
  TwinRun<double> twin;
  twin.start = problem->initial_state(Precision<double>{});
  twin.fin = run_steps<double>(*problem, recipe, o.solver, twin.start, 3);
  const double tol = solver_tolerance<double>();
  const nlohmann::json good = down_scaled_check(s, twin, tol, 2);
  EXPECT_TRUE(good["pass"].get<bool>()) << good.dump();
  EXPECT_EQ(good["down_scaled_grid"], "16x16x16");

  std::vector<double>& u = twin.fin.field("u");
  const Grid& g = twin.fin.grid;
  u[plane_offset(g, 9) + std::size_t(g.sy()) * 5 + 5] += 1e-6;  // the first plane of rank 1's slab
  const nlohmann::json bad = down_scaled_check(s, twin, tol, 2);
  EXPECT_FALSE(bad["pass"].get<bool>()) << bad.dump();
  EXPECT_GT(bad["fields"]["u"]["max_abs_diff"].get<double>(), 0.9e-6);
  EXPECT_EQ(bad["fields"]["v"]["max_abs_diff"].get<double>(), 0.0);
}

}  // namespace
}  // namespace nsb
