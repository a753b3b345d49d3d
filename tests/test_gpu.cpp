// GPU tests, generated over the registry: every GPU variant x tuning x precision against the CPU
// reference (nsbench verify), every GPU recipe against the CPU solver after N steps, and the cavity
// on the GPU reaching the CPU's Ghia deviation. Without a GPU every test reports itself skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "comm.hpp"
#include "decomposition.hpp"

#include "device.hpp"
#include "halo.hpp"
#include "stage_kind.hpp"
#include "run.hpp"
#include "test_support.hpp"
#include "verify.hpp"

namespace nsb {
namespace {

TEST(Gpu, EveryVariantMatchesTheReference) {
  NSB_NEEDS_GPU();
  int checked = 0;
  for (const VerifyResult& r : verify_variants({})) {
    ++checked;
    EXPECT_TRUE(r.pass) << r.id << ":" << r.tuning << " " << r.precision << " " << r.grid << " " << r.scheme
                        << ": max rel diff " << r.max_rel_diff << " (tol " << r.tolerance << ") " << r.message;
  }
  int expected = 0;
  for (const Variant& v : Registry::instance().all())
    if (v.backend == Backend::cuda) {
      const StageKind& k = StageKindRegistry::instance().get(v.stage);
      for (const std::string& w : k.workloads) expected += k.runs(v, w) ? int(v.tunings.size()) * 2 * 2 : 0;
    }
  EXPECT_EQ(checked, expected);
  std::printf("%d variant x tuning x precision x grid checks\n", checked);
}

template <class T>
void recipe_matches_cpu(const std::string& recipe, double tol) {
  CaseOptions o;
  o.name = "cavity", o.nx = 33, o.ny = 5, o.nz = 33, o.re = 400;
  const Case c = make_case(o);
  SolverOptions so;
  so.scheme = TimeScheme::adams_bashforth2;
  const auto gpu = test::run_case<T>(c, recipe, 40, so);
  const auto cpu = test::run_case<T>(c, "cpu-omp", 40, so);
  double du = 0, dp = 0, pscale = 0;
  for (std::size_t i = 0; i < cpu.state.field("u").size(); ++i) {
    du = std::max(du, std::abs(double(gpu.state.field("u")[i]) - double(cpu.state.field("u")[i])));
    dp = std::max(dp, std::abs(double(gpu.state.field("p")[i]) - double(cpu.state.field("p")[i])));
    pscale = std::max(pscale, std::abs(double(cpu.state.field("p")[i])));
  }
  std::printf("%s %s, 40 AB2 steps of a 33x5x33 cavity: max |du| %.2e, max |dp|/|p| %.2e\n", recipe.c_str(),
              sizeof(T) == 4 ? "float" : "double", du, dp / pscale);
  EXPECT_LE(du, tol) << recipe;
  EXPECT_LE(dp / pscale, tol) << recipe;
}

TEST(Gpu, EveryRecipeMatchesTheCpuSolver) {
  NSB_NEEDS_GPU();
  for (const Recipe& r : builtin_recipes()) {  // the projection solver's (test_wave checks the wave's)
    if (r.solver != "projection" || r.backend != Backend::cuda) continue;
    recipe_matches_cpu<float>(r.name, 2e-4);
    recipe_matches_cpu<double>(r.name, 1e-10);
  }
}

TEST(Gpu, GraphReplayMatchesTheReference) {
  NSB_NEEDS_GPU();
  for (const char* precision : {"float", "double"}) {
    RunOptions o;
    o.case_options.name = "cavity";
    o.case_options.nx = o.case_options.nz = 48;
    o.case_options.ny = 6;
    o.backend = "cuda";
    o.recipe = "modern";
    o.precision = precision;
    o.solver.scheme = TimeScheme::adams_bashforth2;
    o.launch = "graph";
    o.steps = 10;
    o.warmup = 0;
    o.progress = false;
    const nlohmann::json r = run(o);
    EXPECT_EQ(r["run"]["launch"], "graph");
    EXPECT_EQ(r["run"]["timed_steps"], 10);
    EXPECT_EQ(r["timing"]["step"]["count"], 5u);  // one sample per replay of two steps
    EXPECT_TRUE(r["checks"]["reference"]["pass"].get<bool>()) << r["checks"]["reference"].dump();
    EXPECT_EQ(r["checks"]["reference"]["steps"], 11);  // the plain first step and ten replayed
  }
}

// The side n of an n x 8 x n cavity whose every float field is at least twice the GPU's L2 (a multiple of
// 64): a stage's data then cannot stay in the cache between its calls, so its DRAM bytes are real whatever
// the L2's size (the H200's 60 MB held a 64x8x64 cavity whole: DRAM bytes 0).
int cavity_side_past_the_l2() {
  const double cells = 2.0 * double(device::properties(0).l2_bytes) / sizeof(float);
  const int n = int(std::ceil(std::sqrt(cells / 8) / 64)) * 64;
  return std::max(n, 64);
}

// The profiling passes on a cavity larger than the L2: every stage's kernels are found in the trace and
// tagged with their stage, the passes leave the checked state alone, and counters either come back for
// every compute stage or say why not.
TEST(Gpu, ProfilePassesTagEveryStageAndLeaveTheCheckAlone) {
  NSB_NEEDS_GPU();
  RunOptions o;
  o.case_options.name = "cavity";
  o.case_options.nx = o.case_options.nz = cavity_side_past_the_l2();
  o.case_options.ny = 8;
  o.backend = "cuda";
  o.recipe = "best";
  o.precision = "float";
  o.steps = 4;
  o.warmup = 1;
  o.progress = false;
  o.profile = true;
  o.profile_steps = 2;
  const nlohmann::json r = run(o);
  EXPECT_TRUE(r["checks"]["reference"]["pass"].get<bool>()) << r["checks"]["reference"].dump();
  const nlohmann::json& p = r["profile"];
  ASSERT_TRUE(p["trace"]["performed"].get<bool>()) << p["trace"].dump();
  const nlohmann::json& sections = p["trace"]["sections"];
  for (const char* stage : {"momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction"}) {
    ASSERT_TRUE(sections.contains(stage)) << stage << " missing from " << sections.dump();
    EXPECT_GT(sections[stage]["kernel_time_per_call"]["median_s"].get<double>(), 0) << stage;
    // Kernel time inside an event-timed call cannot exceed it by more than timer resolution.
    EXPECT_LE(p["stages"][stage]["kernel_median_s"].get<double>(), 1.5 * p["stages"][stage]["event_median_s"].get<double>() + 5e-6)
        << stage;
  }
  EXPECT_EQ(sections["pressure"]["calls"].get<int>(), 2 * 20);  // 20 sweeps a step, 2 steps
  EXPECT_EQ(sections["velocity_bc"]["kernels_per_call"].get<double>(), 3.0);  // one launch per axis
  EXPECT_FALSE(sections.contains("outside_sections")) << sections["outside_sections"].dump();
  if (p["counters"]["performed"].get<bool>()) {
    for (const char* stage : {"momentum", "divergence", "pressure", "correction"}) {
      EXPECT_GT(p["stages"][stage]["dram_bytes"].get<double>(), 0) << stage << " on a " << o.case_options.nx << "x8x"
                                                                   << o.case_options.nz << " cavity";
      EXPECT_FALSE(p["stages"][stage]["stayed_in_l2"].get<bool>()) << stage;
    }
  } else {
    std::printf("counters not collected: %s\n", p["counters"]["reason"].get<std::string>().c_str());
    EXPECT_FALSE(p["counters"]["reason"].get<std::string>().empty());
  }
}

TEST(Gpu, TooLargeAGridSaysHowMuchMemoryItNeeds) {
  NSB_NEEDS_GPU();
  RunOptions o;
  o.case_options.name = "cavity";
  // A cube whose 9 double fields need 1.5x this GPU's memory (whatever the GPU).
  const double bytes = 1.5 * double(device::properties(0).memory_bytes);
  const int n = int(std::cbrt(bytes / (9.0 * sizeof(double))));
  o.case_options.nx = o.case_options.ny = o.case_options.nz = n;
  o.backend = "cuda";
  o.steps = 1;
  o.progress = false;
  try {
    run(o);
    FAIL() << "a " << n << "^3 double run did not fail";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("needs"), std::string::npos) << m;
    EXPECT_NE(m.find("MiB are free"), std::string::npos) << m;
    std::printf("%s\n", m.c_str());
  }
}

// Every GPU halo variant of the threads driver, on two ranks (two GPUs, or one GPU twice), against the
// undecomposed GPU run: cavity (walls) with the overlapping split, periodic Taylor-Green.
TEST(Gpu, EveryThreadsHaloVariantMatchesTheOneRankRun) {
  NSB_NEEDS_GPU();
  int checked = 0;
  for (const HaloVariant& v : HaloRegistry::instance().all()) {
    if (v.backend != Backend::cuda || v.driver == "mpi") continue;
    if (v.name == "nccl" && device::count() < 2) {
      std::printf("SKIPPED %s: NCCL needs one GPU per rank and this machine has one\n", v.id().c_str());
      continue;
    }
    for (const Tuning& t : v.tunings)
      for (const char* precision : {"float", "double"})
        for (const char* case_name : {"cavity", "taylor_green"}) {
          RunOptions o;
          o.case_options.name = case_name;
          o.case_options.nx = o.case_options.nz = 32;
          o.case_options.ny = std::string(case_name) == "cavity" ? 4 : 32;
          o.backend = "cuda";
          o.recipe = "best";
          o.precision = precision;
          // Three ranks where the variant allows more ranks than GPUs: a middle rank has two neighbours.
          o.ranks = std::string(case_name) == "cavity" || v.name == "nccl" ? 2 : 3;
          o.halo = v.name + ":" + t.name;
          o.steps = 8;
          o.warmup = 2;
          o.progress = false;
          const nlohmann::json r = run(o);
          const auto& ref = r["checks"]["reference"];
          EXPECT_TRUE(ref["performed"].get<bool>() && ref["pass"].get<bool>()) << o.halo << " " << precision << " "
                                                                               << case_name << ": " << ref.dump();
          ++checked;
        }
  }
  std::printf("%d decomposed GPU runs matched the one-rank run\n", checked);
  EXPECT_GE(checked, 16);
}

// The halo contract (harness/halo.hpp): an exchange's writes into a rank's ghost planes come after everything
// that rank queued on its stream before the call. Rank 0 queues a long device copy, then writes its own ghost
// planes (as CG's periodic wrap of a cut face does), then exchanges; rank 1 writes and exchanges at once. A
// push ordered on the sender's stream alone lands before rank 0's write and is overwritten: the imle solver's
// NaN with p2p_sync and p2p_async_overlap at 7b4dec2, fixed by NeighboursReady (variants/halo/peer_common.cuh).
// Each rank fills every plane with bytes 0x10 + rank, the ghost planes then with 0xff: a correct exchange
// leaves the neighbour's bytes in them.
TEST(Gpu, EveryThreadsHaloWritesGhostsAfterTheReceiversQueuedWork) {
  NSB_NEEDS_GPU();
  const Grid global{24, 16, 8, 2.4, 1.6, 0.8};
  const std::vector<Slab> slabs = decompose_z(global, 2, false);
  const std::size_t delay_bytes = std::size_t(1) << 30;  // a 1 GiB device copy: ~0.5 ms on an H100
  int checked = 0;
  for (const HaloVariant& v : HaloRegistry::instance().all()) {
    if (v.backend != Backend::cuda || v.driver == "mpi") continue;
    if (v.name == "nccl" && device::count() < 2) continue;  // one GPU a rank
    auto group = std::make_shared<ThreadGroup>(2);
    std::vector<std::string> wrong(2);
    const auto rank_main = [&](int r) {
      try {
        ThreadComm comm(group, r);
        RankContext c;
        c.comm = &comm, c.slabs = slabs, c.rank = r, c.device = r % device::count(), c.halo = &v;
        c.tuning = v.tunings.front();
        device::set_device(c.device);
        c.grid = slab_grid(global, slabs[std::size_t(r)]), c.stream = device::stream_create();
        const std::size_t plane_bytes = plane_elems(c.grid) * sizeof(double);
        const std::size_t bytes = plane_bytes * std::size_t(c.grid.nz + 2);
        auto* a = static_cast<double*>(device::alloc(bytes, "halo test field"));
        void* delay = r == 0 ? device::alloc(2 * delay_bytes, "halo test delay") : nullptr;
        device::fill_bytes(a, 0x10 + r, bytes, c.stream);
        std::unique_ptr<HaloExchange<double>> h = v.factory<double>()(c);
        h->attach({a});
        device::stream_sync(c.stream);
        comm.barrier();
        const int ghost = r == 0 ? c.grid.nz + 1 : 0;
        if (delay) device::copy_device(static_cast<char*>(delay) + delay_bytes, delay, delay_bytes, c.stream);
        device::fill_bytes(plane(a, c.grid, ghost), 0xff, plane_bytes, c.stream);
        h->exchange({a});
        device::stream_sync(c.stream);
        std::vector<unsigned char> got(plane_bytes), want(plane_bytes, static_cast<unsigned char>(0x10 + (1 - r)));
        device::copy_to_host(got.data(), plane(a, c.grid, ghost), plane_bytes);
        if (got != want) wrong[std::size_t(r)] = "rank " + std::to_string(r) + "'s ghost plane is not its neighbour's";
        comm.barrier();  // no rank frees what a neighbour may still write
        h.reset();
        device::free(a);
        if (delay) device::free(delay);
        device::stream_destroy(c.stream);
      } catch (const std::exception& e) {
        wrong[std::size_t(r)] = e.what();
        group->abort(e.what());
      }
    };
    std::thread other(rank_main, 1);
    rank_main(0);
    other.join();
    for (const std::string& w : wrong) EXPECT_TRUE(w.empty()) << v.id() << ": " << w;
    ++checked;
  }
  std::printf("%d threads-driver GPU halo variants checked\n", checked);
  EXPECT_GE(checked, 3);  // host_staged_sync, p2p_sync, p2p_async_overlap at least
}

TEST(Gpu, CavityReachesTheCpuGhiaDeviation) {
  NSB_NEEDS_GPU();
  CaseOptions o;
  o.name = "cavity", o.nx = 64, o.ny = 4, o.nz = 64, o.re = 100;
  const Case c = make_case(o);
  const auto gpu = test::run_case<double>(c, "modern", 40000, {}, 1e-4);
  const auto cpu = test::run_case<double>(c, "cpu-omp", 40000, {}, 1e-4);
  ASSERT_TRUE(gpu.steady);
  EXPECT_EQ(gpu.steps, cpu.steps);
  const Validation vg = validate(c, gpu.state), vc = validate(c, cpu.state);
  std::printf("Ghia max deviation: GPU %.6f, CPU %.6f (%d steps)\n", vg.max_error, vc.max_error, gpu.steps);
  EXPECT_NEAR(vg.max_error, vc.max_error, 1e-9);
  EXPECT_LT(vg.max_error, 0.02);
}

}  // namespace
}  // namespace nsb
