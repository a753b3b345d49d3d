// The harness itself: registry, tunings, recipes, statistics, result files, bad input.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "device.hpp"
#include "micro_cases.hpp"
#include "recipe.hpp"
#include "run.hpp"
#include "stats.hpp"

namespace nsb {
namespace {

TEST(Registry, EveryStageHasBothCpuReferences) {
  for (int s = 0; s < int(StageKind::count); ++s) {
    EXPECT_NE(Registry::instance().find(StageKind(s), "cpu_serial"), nullptr) << stage_name(StageKind(s));
    EXPECT_NE(Registry::instance().find(StageKind(s), "cpu_omp"), nullptr) << stage_name(StageKind(s));
  }
}

TEST(Registry, IdsAreUniqueAndEveryVariantIsComplete) {
  std::set<std::string> ids;
  for (const Variant& v : Registry::instance().all()) {
    EXPECT_TRUE(ids.insert(v.id()).second) << v.id();
    EXPECT_NE(v.run_float, nullptr) << v.id();
    EXPECT_NE(v.run_double, nullptr) << v.id();
    EXPECT_FALSE(v.tunings.empty()) << v.id();
    if (v.backend == Backend::cuda) {
      EXPECT_TRUE(v.tags.count("memory")) << v.id() << " lacks a memory tag";
    }
  }
  // With CUDA every GPU stage kind has at least two variants (the study axes need a comparison).
  if (device::built_with_cuda()) {
    for (int s = 0; s < int(StageKind::count); ++s) {
      int gpu = 0;
      for (const Variant* v : Registry::instance().of_stage(StageKind(s))) gpu += v->backend == Backend::cuda;
      EXPECT_GE(gpu, 2) << stage_name(StageKind(s));
    }
  }
}

// nsbench-micro's benchmarks come from the registry: every GPU variant x tuning (x scheme for
// momentum) x grid x precision, each once, so a new variant is benchmarked without editing anything.
TEST(MicroBenchmarks, CoverEveryGpuVariantOnce) {
  const std::vector<Grid> grids = micro_grids();
  ASSERT_GE(grids.size(), 4u);
  std::size_t expected = 0;
  std::set<std::string> gpu_ids;
  for (const Variant& v : Registry::instance().all())
    if (v.backend == Backend::cuda) {
      expected += v.tunings.size() * (v.stage == StageKind::momentum ? 2 : 1);
      gpu_ids.insert(v.id());
    }
  expected *= grids.size() * 2;
  const std::vector<MicroCase> cases = micro_cases(grids);
  EXPECT_EQ(cases.size(), expected);
  std::set<std::string> names, seen_ids;
  for (const MicroCase& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    seen_ids.insert(c.variant->id());
    EXPECT_EQ(c.name.rfind(c.variant->id() + "/" + c.tuning.name + "/", 0), 0u) << c.name;
  }
  EXPECT_EQ(seen_ids, gpu_ids);
  if (device::built_with_cuda()) {
    EXPECT_TRUE(names.count("pressure/jacobi_global_2d_zloop/bx16_by16_sz2/euler/256x32x256/float"));
    EXPECT_TRUE(names.count("momentum/shared_zloop/bx16_by16_sz2/ab2/512x512x512/double"));
  }
}

TEST(Registry, UnknownVariantNamesTheKnownOnes) {
  try {
    Registry::instance().get(StageKind::pressure, "nosuch");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown variant 'pressure/nosuch'"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_serial"), std::string::npos) << m;
  }
}

TEST(Tuning, ParsesNames) {
  const Tuning t = parse_tuning("bx16_by8_sz2");
  EXPECT_EQ(t.bx, 16);
  EXPECT_EQ(t.by, 8);
  EXPECT_EQ(t.sz, 2);
  EXPECT_EQ(parse_tuning("b256").bx, 256);
  EXPECT_THROW(parse_tuning("bx16_qq3"), std::runtime_error);
  EXPECT_THROW(parse_tuning("bxx"), std::runtime_error);
}

TEST(Recipe, ResolvesAndOverridesStages) {
  const ResolvedRecipe r = resolve(find_recipe("cpu-serial"), {"pressure=cpu_omp"});
  EXPECT_EQ(r[StageKind::pressure].variant->id(), "pressure/cpu_omp");
  EXPECT_EQ(r[StageKind::momentum].variant->id(), "momentum/cpu_serial");
  EXPECT_THROW(resolve(find_recipe("cpu-serial"), {"nostage=cpu_omp"}), std::runtime_error);
  EXPECT_THROW(resolve(find_recipe("cpu-serial"), {"pressure"}), std::runtime_error);
  EXPECT_THROW(resolve(find_recipe("cpu-serial"), {"pressure=cpu_omp:bx9"}), std::runtime_error);
  EXPECT_THROW(find_recipe("nope"), std::runtime_error);
  if (device::built_with_cuda()) {
    // Every GPU recipe resolves; mixing a GPU stage into a CPU recipe is refused.
    for (const char* name : {"thibault-global", "thibault-optimal", "modern", "best"})
      EXPECT_EQ(resolve(find_recipe(name), {}).backend, Backend::cuda) << name;
    EXPECT_THROW(resolve(find_recipe("cpu-serial"), {"momentum=global_1d"}), std::runtime_error);
    const ResolvedRecipe t = resolve(find_recipe("thibault-global"), {"pressure=jacobi_shared_zloop:bx16_by8_sz2"});
    EXPECT_EQ(t[StageKind::pressure].tuning.bx, 16);
    EXPECT_EQ(t[StageKind::pressure].tuning.by, 8);
  }
}

TEST(Stats, MedianAndQuartilesOfKnownSamples) {
  const Summary s = summarize({10, 1, 9, 2, 8, 3, 7, 4, 6, 5});
  EXPECT_EQ(s.count, 10u);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);  // numpy.percentile(range(1, 11), 25)
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_DOUBLE_EQ(s.iqr, 4.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.mean, 5.5);
  const Summary odd = summarize({3, 1, 2});
  EXPECT_DOUBLE_EQ(odd.median, 2);
  EXPECT_DOUBLE_EQ(summarize({4.0}).iqr, 0);
  EXPECT_EQ(summarize({}).count, 0u);
}

TEST(Cases, BadInputIsRefusedWithTheReason) {
  auto message = [](CaseOptions o) {
    try {
      make_case(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CaseOptions o;
  o.nx = 0;
  EXPECT_NE(message(o).find("impossible grid 0x4x64"), std::string::npos);
  o = CaseOptions{};
  o.nz = -3;
  EXPECT_NE(message(o).find("impossible grid"), std::string::npos);
  o = CaseOptions{};
  o.re = -1;
  EXPECT_NE(message(o).find("Reynolds number must be positive"), std::string::npos);
  o = CaseOptions{};
  o.name = "urban";
  EXPECT_NE(message(o).find("unknown case 'urban'"), std::string::npos);
  o = CaseOptions{};
  o.nx = 32;
  EXPECT_NE(message(o).find("square"), std::string::npos);
  o = CaseOptions{};
  o.nx = o.nz = 2000, o.ny = 2000;
  EXPECT_NE(message(o).find("grid too large"), std::string::npos);
}

TEST(Result, JsonRoundTripCarriesTheSchema) {
  RunOptions o;
  o.case_options.nx = o.case_options.nz = 16;
  o.case_options.ny = 2;
  o.steps = 7;
  o.warmup = 2;
  o.progress = false;
  o.json_path = (std::filesystem::temp_directory_path() / "nsbench_test_result.json").string();
  const nlohmann::json r = run(o);
  std::ifstream in(o.json_path);
  const nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_EQ(back, r);
  EXPECT_EQ(r["schema"], "nsbench.run/1");
  for (const char* key : {"run", "timing", "checks", "machine", "build", "timestamp", "command_line"})
    EXPECT_TRUE(r.contains(key)) << key;
  EXPECT_EQ(r["run"]["timed_steps"], 7);
  EXPECT_EQ(r["timing"]["step_raw_seconds"].size(), 7u);
  for (const char* stage : {"momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction"}) {
    const auto& s = r["timing"]["stages"][stage];
    ASSERT_TRUE(s.contains("per_call")) << stage;
    // The summary is the summary of the raw samples kept beside it.
    const Summary recomputed = summarize(s["raw_seconds"].get<std::vector<double>>());
    EXPECT_DOUBLE_EQ(s["per_call"]["median"].get<double>(), recomputed.median) << stage;
    EXPECT_GT(s["model"]["bytes"].get<double>(), 0) << stage;
  }
  EXPECT_EQ(r["timing"]["stages"]["pressure"]["calls_per_step"], 20.0);
  EXPECT_EQ(r["timing"]["stages"]["velocity_bc"]["calls_per_step"], 2.0);
  EXPECT_FALSE(r["machine"]["cpu"]["model"].get<std::string>().empty());
  EXPECT_EQ(r["build"]["git_commit"].get<std::string>().size() == 40 ||
                r["build"]["git_commit"].get<std::string>() == "unknown",
            true);
  EXPECT_EQ(r["checks"]["validation"]["kind"], "ghia");
  EXPECT_EQ(r["checks"]["validation"]["steady_state"], false);  // 9 steps: the comparison is flagged
  std::remove(o.json_path.c_str());
}

}  // namespace
}  // namespace nsb
