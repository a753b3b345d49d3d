// The harness itself: registry, tunings, recipes, statistics, result files, bad input.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <omp.h>

#include "device.hpp"
#include "fields.hpp"
#include "device_reason.hpp"
#include "host_memory.hpp"
#include "list.hpp"
#include "micro_cases.hpp"
#include "omp_exceptions.hpp"
#include "flat_interior.hpp"
#include "profile.hpp"
#include "projection/cases.hpp"
#include "recipe.hpp"
#include "run.hpp"
#include "run/phases.hpp"
#include "run/profile_passes.hpp"
#include "run/rank_run.hpp"
#include "run/result.hpp"
#include "stage_kind.hpp"
#include "stats.hpp"
#include "test_support.hpp"

namespace nsb {
namespace {

TEST(Registry, EveryStageHasBothCpuReferences) {
  EXPECT_GE(StageKindRegistry::instance().all().size(), 7u);
  for (const StageKind& k : StageKindRegistry::instance().all()) {
    EXPECT_NE(Registry::instance().find(k.id(), "cpu_serial"), nullptr) << k.id();
    EXPECT_NE(Registry::instance().find(k.id(), "cpu_omp"), nullptr) << k.id();
  }
}

// Every solver's stages are registered kinds, its sections start with them, and its recipes resolve.
TEST(Registry, SolversStagesAndRecipesFitTogether) {
  for (const SolverDef& d : SolverRegistry::instance().all()) {
    for (std::size_t i = 0; i < d.stages.size(); ++i) {
      EXPECT_NE(StageKindRegistry::instance().find(d.name + "/" + d.stages[i]), nullptr) << d.name << " " << d.stages[i];
      EXPECT_EQ(d.section_index(d.stages[i]), int(i)) << d.name << " " << d.stages[i];
    }
    for (const Recipe& r : builtin_recipes()) {
      if (r.solver == d.name && (r.backend != Backend::cuda || device::built_with_cuda())) {
        EXPECT_NO_THROW(resolve(r, {})) << d.name << "/" << r.name;
      }
    }
  }
  EXPECT_NE(SolverRegistry::instance().find("projection"), nullptr);
}

// A registration that does not fit its stage kind is refused by name (tags outside the vocabulary,
// undeclared tuning axes, another solver's call structure).
TEST(Registry, MisfitRegistrationsAreRefused) {
  const Variant& ref = Registry::instance().get("projection/pressure", "cpu_serial");
  Registry scratch;
  scratch.add(ref);
  Variant bad = ref;
  bad.name = "bad_tag";
  bad.tags = {{"memory", "tape"}};
  scratch.add(bad);
  try {
    scratch.all();
    FAIL() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory=tape"), std::string::npos) << e.what();
  }
}

// A renamed variant answers to its former names (recipes, studies and recorded results say them); its
// id is the name now, and no two variants of a stage answer to the same name.
TEST(Registry, AliasesFindTheVariantByItsFormerName) {
  const Variant& ref = Registry::instance().get("projection/pressure", "cpu_serial");
  Registry scratch;
  scratch.add(ref);  // the kind's reference, which the registry's check asks for
  Variant v = ref;
  v.name = "new_name";
  v.aliases = {"old_name"};
  scratch.add(v);
  const Variant* found = scratch.find("projection/pressure", "old_name");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->id(), "projection/pressure/new_name");
  EXPECT_EQ(&scratch.get("projection/pressure", "old_name"), found);
  EXPECT_EQ(scratch.find("projection/momentum", "old_name"), nullptr);
  Variant clash = v;
  clash.name = "old_name";
  clash.aliases = {};
  EXPECT_THROW(scratch.add(clash), std::logic_error);
  clash.name = "third_name";
  clash.aliases = {"new_name"};
  EXPECT_THROW(scratch.add(clash), std::logic_error);
  // A recipe or an override naming a variant by a former name gets the variant under its name now.
  for (const Variant& renamed : Registry::instance().all())
    for (const std::string& former : renamed.aliases) {
      const ResolvedRecipe r = resolve(default_recipe(renamed.solver(), renamed.backend),
                                       {renamed.stage_name() + "=" + former});
      EXPECT_EQ(r[renamed.stage_name()].variant, &renamed) << former;
    }
}

// reports/compare.py maps a baseline's former variant names with baselines/variant-aliases.json: it
// must say what the registry says (nsbench list --json, "aliases"). On a mismatch, the message is the
// table to write there.
TEST(Registry, AliasTableBesideTheBaselinesIsTheRegistrys) {
  if (!device::built_with_cuda()) GTEST_SKIP() << "the renamed variants are GPU variants";
  const nlohmann::json listing = list_json();
  nlohmann::json expected = nlohmann::json::object();
  for (const nlohmann::json& v : listing["variants"])
    for (const nlohmann::json& old : v["aliases"])
      expected[v["solver"].get<std::string>() + "/" + v["stage"].get<std::string>() + "/" + old.get<std::string>()] =
          v["id"];
  std::ifstream in(std::string(NSB_SOURCE_DIR) + "/baselines/variant-aliases.json");
  ASSERT_TRUE(in) << "no baselines/variant-aliases.json";
  const nlohmann::json table = nlohmann::json::parse(in);
  EXPECT_EQ(table["aliases"], expected) << "baselines/variant-aliases.json should hold \"aliases\": "
                                        << expected.dump(1);
}

TEST(Registry, IdsAreUniqueAndEveryVariantIsComplete) {
  std::set<std::string> ids;
  for (const Variant& v : Registry::instance().all()) {
    EXPECT_TRUE(ids.insert(v.id()).second) << v.id();
    EXPECT_TRUE(bool(v.run_float)) << v.id();
    EXPECT_TRUE(bool(v.run_double)) << v.id();
    EXPECT_FALSE(v.tunings.empty()) << v.id();
    if (v.backend == Backend::cuda) {
      EXPECT_TRUE(v.tags.count("memory")) << v.id() << " lacks a memory tag";
    }
  }
  // With CUDA every GPU stage kind has at least two variants (the study axes need a comparison).
  if (device::built_with_cuda()) {
    for (const StageKind* k : StageKindRegistry::instance().of_solver("projection")) {
      int gpu = 0;
      for (const Variant* v : Registry::instance().of_stage(k->id())) gpu += v->backend == Backend::cuda;
      EXPECT_GE(gpu, 2) << k->id();
    }
  }
}

// The register report of a row lists the variant's kernels that run with its tuning (KernelRef::runs):
// all of them where the tunings are run-time values, the tuning's own compiled instance's where
// tunings carry instances. Those must cover each tuning exactly once per precision, or a row reports
// another instance's registers, or none.
TEST(Registry, TuningInstancesCoverEachTuningOncePerPrecision) {
  static const TuningInstance a, b;
  Tuning plain = parse_tuning("bx64_by4_sz32"), of_a = plain, of_b = plain;
  of_a.instance = &a, of_b.instance = &b;
  const KernelRef kernel_of_a{"k", nullptr, 4, &a}, kernel_of_variant{"k", nullptr, 4};
  EXPECT_TRUE(kernel_of_a.runs(of_a));
  EXPECT_FALSE(kernel_of_a.runs(of_b));
  EXPECT_FALSE(kernel_of_a.runs(plain));
  EXPECT_TRUE(kernel_of_variant.runs(plain));
  EXPECT_FALSE(kernel_of_variant.runs(of_a));

  for (const Variant& v : Registry::instance().all()) {
    if (std::none_of(v.tunings.begin(), v.tunings.end(), [](const Tuning& t) { return t.instance; })) continue;
    for (const Tuning& t : v.tunings) {
      ASSERT_NE(t.instance, nullptr) << v.id() << ":" << t.name;
      EXPECT_TRUE(t.instance->run_float && t.instance->run_double) << v.id() << ":" << t.name;
      for (int elem : {4, 8}) {
        int runs = 0;
        for (const KernelRef& k : v.kernels) runs += k.elem_bytes == elem && k.runs(t);
        EXPECT_EQ(runs, 1) << v.id() << ":" << t.name << " (" << elem << "-byte values)";
      }
    }
    for (const KernelRef& k : v.kernels) EXPECT_TRUE(k.fn && k.instance) << v.id() << ": " << k.name;
  }
}

// A variant of compiled instances registers run_tuning_instance: a call runs its tuning's own entry
// point for its precision, and a tuning without an instance is refused.
struct FakeCall {
  using value_type = double;
  Tuning tuning;
  int* ran;
};
void count_double_call(const FakeCall& c) { ++*c.ran; }
void wrong_precision(const FakeCall&) { FAIL() << "the float entry ran a double call"; }
TEST(Registry, RunTuningInstanceRunsTheTuningsOwnEntry) {
  static const TuningInstance instance{&wrong_precision, &count_double_call, {}};
  int ran = 0;
  FakeCall c{parse_tuning("bx64_by4_sz32"), &ran};
  EXPECT_THROW(run_tuning_instance(c), std::logic_error);
  c.tuning.instance = &instance;
  run_tuning_instance(c);
  EXPECT_EQ(ran, 1);
}

// Tunings carrying compiled instances are all of a variant's, and their entry points take the kind's
// call structure, or the registration is refused by name.
TEST(Registry, TuningInstancesAreAllOrNoneAndFitTheKind) {
  const Variant& ref = Registry::instance().get("projection/pressure", "cpu_serial");
  static const TuningInstance fitting{ref.run_float, ref.run_double, {}};
  static const TuningInstance foreign{&wrong_precision, &count_double_call, {}};
  const auto refusal = [&](const TuningInstance* second) {
    Registry scratch;
    scratch.add(ref);
    Variant v = ref;
    v.name = "with_instances";
    v.tunings = {parse_tuning("bx64_by4_sz32"), parse_tuning("bx32_by8_sz32")};
    v.tunings[0].instance = &fitting;
    v.tunings[1].instance = second;
    scratch.add(v);
    try {
      scratch.all();
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal(&fitting), "accepted");
  EXPECT_NE(refusal(nullptr).find("tuning bx32_by8_sz32 carries no compiled instance"), std::string::npos);
  EXPECT_NE(refusal(&foreign).find("does not take projection/pressure's call structure"), std::string::npos);
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
      const StageKind& k = StageKindRegistry::instance().get(v.stage);
      for (const std::string& w : k.workloads) expected += k.runs(v, w) ? v.tunings.size() : 0;
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
    EXPECT_TRUE(names.count("projection/pressure/jacobi_global_2d_zloop/bx16_by16_sz2/euler/256x32x256/float"));
    EXPECT_TRUE(names.count("projection/momentum/shared_zloop/bx16_by16_sz2/ab2/512x512x512/double"));
  }
}

TEST(Registry, UnknownVariantNamesTheKnownOnes) {
  try {
    Registry::instance().get("projection/pressure", "nosuch");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown variant 'projection/pressure/nosuch'"), std::string::npos) << m;
    EXPECT_NE(m.find("cpu_serial"), std::string::npos) << m;
  }
}

TEST(Tuning, ParsesNames) {
  const Tuning t = parse_tuning("bx16_by8_sz2");
  EXPECT_EQ(t.bx, 16);
  EXPECT_EQ(t.by, 8);
  EXPECT_EQ(t.sz, 2);
  EXPECT_EQ(parse_tuning("b256").bx, 256);
  const Tuning pipelined = parse_tuning("bx256_by2_sz64_pf3");
  EXPECT_EQ(pipelined.pf, 3);
  EXPECT_EQ(pipelined.sz, 64);
  EXPECT_EQ(t.pf, 0);
  EXPECT_EQ(t.mb, 0);
  EXPECT_EQ(parse_tuning("bx64_by4_sz32_mb3").mb, 3);
  EXPECT_EQ(parse_tuning("b256").co, -1);  // no carve-out preference unless named
  EXPECT_EQ(parse_tuning("b256_co0").co, 0);
  EXPECT_EQ(parse_tuning("b256_co100").bx, 256);
  EXPECT_THROW(parse_tuning("b256_co101"), std::runtime_error);
  EXPECT_THROW(parse_tuning("bx16_qq3"), std::runtime_error);
  EXPECT_THROW(parse_tuning("bxx"), std::runtime_error);
}

TEST(Recipe, ResolvesAndOverridesStages) {
  const ResolvedRecipe r = resolve(find_recipe("projection", "cpu-serial"), {"pressure=cpu_omp"});
  EXPECT_EQ(r["pressure"].variant->id(), "projection/pressure/cpu_omp");
  EXPECT_EQ(r["momentum"].variant->id(), "projection/momentum/cpu_serial");
  EXPECT_THROW(resolve(find_recipe("projection", "cpu-serial"), {"nostage=cpu_omp"}), std::runtime_error);
  EXPECT_THROW(resolve(find_recipe("projection", "cpu-serial"), {"pressure"}), std::runtime_error);
  EXPECT_THROW(resolve(find_recipe("projection", "cpu-serial"), {"pressure=cpu_omp:bx9"}), std::runtime_error);
  EXPECT_THROW(find_recipe("projection", "nope"), std::runtime_error);
  if (device::built_with_cuda()) {
    // Every GPU recipe resolves; mixing a GPU stage into a CPU recipe is refused.
    for (const char* name : {"thibault-global", "thibault-optimal", "modern", "best"})
      EXPECT_EQ(resolve(find_recipe("projection", name), {}).backend, Backend::cuda) << name;
    EXPECT_THROW(resolve(find_recipe("projection", "cpu-serial"), {"momentum=global_1d"}), std::runtime_error);
    const ResolvedRecipe t = resolve(find_recipe("projection", "thibault-global"), {"pressure=jacobi_shared_zloop:bx16_by8_sz2"});
    EXPECT_EQ(t["pressure"].tuning.bx, 16);
    EXPECT_EQ(t["pressure"].tuning.by, 8);
  }
}

// A recipe name may exist once per GPU model: on that GPU the name means that recipe, elsewhere the
// one without a model.
TEST(Recipe, BestIsPerGpuModel) {
  const Recipe& h100 = find_recipe("projection", "best", "NVIDIA H100 80GB HBM3");
  const Recipe& other = find_recipe("projection", "best", "NVIDIA H200");
  const Recipe& none = find_recipe("projection", "best", "");
  EXPECT_EQ(h100.gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_TRUE(other.gpu_model.empty());
  EXPECT_EQ(&none, &other);
  EXPECT_NE(h100.stage.at("momentum").variant, other.stage.at("momentum").variant);
  try {
    find_recipe("projection", "fastest", "");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("known recipes: cpu-serial cpu-omp"), std::string::npos) << e.what();
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
  const auto cavity_options = [] {  // no designated initializers: GCC 13 wants every member then
    CaseOptions c;
    c.name = "cavity";
    return c;
  };
  CaseOptions o = cavity_options();
  o.nx = 0;
  EXPECT_NE(message(o).find("impossible grid 0x4x64"), std::string::npos);
  o = cavity_options();
  o.nz = -3;
  EXPECT_NE(message(o).find("impossible grid"), std::string::npos);
  o = cavity_options();
  o.re = -1;
  EXPECT_NE(message(o).find("Reynolds number must be positive"), std::string::npos);
  o = cavity_options();
  o.name = "submarine";  // (urban is a case now)
  EXPECT_NE(message(o).find("unknown case 'submarine'"), std::string::npos);
  o = cavity_options();
  o.nx = 32;
  EXPECT_NE(message(o).find("square"), std::string::npos);
  o = cavity_options();
  o.nx = o.nz = 2000, o.ny = 2000;
  EXPECT_NE(message(o).find("grid too large"), std::string::npos);
}

// A small quiet cavity run: steps timed after warmup.
RunOptions small_cavity_run(int steps, int warmup) {
  RunOptions o;
  o.case_options.name = "cavity";
  o.case_options.nx = o.case_options.nz = 16;
  o.case_options.ny = 2;
  o.steps = steps;
  o.warmup = warmup;
  o.progress = false;
  return o;
}

TEST(Result, JsonRoundTripCarriesTheSchema) {
  RunOptions o = small_cavity_run(7, 2);
  const std::string dir = nsb::test::unique_temp_dir("nsbench_test_result");
  o.json_path = dir + "/result.json";
  const nlohmann::json r = run(o);
  std::ifstream in(o.json_path);
  const nlohmann::json back = nlohmann::json::parse(in);
  EXPECT_EQ(back, r);
  EXPECT_EQ(r["schema"], "nsbench.run/2");
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
  std::filesystem::remove_all(dir);
}

// The files of a folder, by name.
static std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// A full disk, faked by a file-size limit (RLIMIT_FSIZE: the write fails with EFBIG as it would with ENOSPC): the
// error says why, and no .partial-PID file stays behind.
TEST(Result, AFailedWriteSaysWhyAndLeavesNoPartialFile) {
  const std::string dir = nsb::test::unique_temp_dir("nsbench_full_disk");
  const std::string path = dir + "/r.json";
  nlohmann::json big;
  big["samples"] = std::vector<double>(20000, 1.0 / 3.0);  // far more than the limit below
  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // else the kernel ends the process
  rlimit tiny = old;
  tiny.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &tiny), 0);
  std::string message;
  try {
    write_json(path, big);
  } catch (const std::exception& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("writing result file " + path + " failed: " + std::strerror(EFBIG)), std::string::npos)
      << message;
  EXPECT_TRUE(files_in(dir).empty()) << "left: " << *files_in(dir).begin();
  std::filesystem::remove_all(dir);
}

// Two runs given one --json: the file that appeared meanwhile is not replaced, and the second run's result is
// kept under a name the error gives. --force (replace) does replace.
TEST(Result, AResultFileThatAppearedMeanwhileIsNotReplaced) {
  const std::string dir = nsb::test::unique_temp_dir("nsbench_race");
  const std::string path = dir + "/race.json";
  write_json(path, nlohmann::json{{"run", 1}});
  std::string message;
  try {
    write_json(path, nlohmann::json{{"run", 2}});
  } catch (const std::exception& e) {
    message = e.what();
  }
  const std::string kept = path + ".pid" + std::to_string(::getpid()) + ".json";
  EXPECT_NE(message.find("appeared meanwhile"), std::string::npos) << message;
  EXPECT_NE(message.find(kept), std::string::npos) << message;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(path))["run"], 1);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(kept))["run"], 2);
  write_json(path, nlohmann::json{{"run", 3}}, true);
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(path))["run"], 3);
  EXPECT_EQ(files_in(dir), (std::set<std::string>{"race.json", "race.json.pid" + std::to_string(::getpid()) + ".json"}));
  std::filesystem::remove_all(dir);
}

// The phases of a run (run/phases.hpp) follow each other: in the order they ran, none negative, the
// timed steps' phase at least the timed steps' own wall time, and all of them within the call's.
TEST(Result, PhasesCoverTheRunInOrder) {
  const RunOptions o = small_cavity_run(3, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const nlohmann::json r = run(o);
  const double call = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const nlohmann::json& d = r["run"];
  const std::vector<std::string> expected = {"set_up", "host_memory_check", "initial_state", "metadata", "solver_setup", "load", "warmup",
                                             "timed_steps", "final_checks", "save", "release", "gather", "summaries",
                                             "finite_check", "validation", "reference_check"};
  EXPECT_EQ(d["phase_order"].get<std::vector<std::string>>(), expected);  // a CPU run: no device_check, kernel_report
  double sum = 0;
  for (const std::string& name : expected) {
    ASSERT_TRUE(d["phase_seconds"].contains(name)) << name;
    EXPECT_GE(d["phase_seconds"][name].get<double>(), 0) << name;
    sum += d["phase_seconds"][name].get<double>();
  }
  EXPECT_EQ(d["phase_seconds"].size(), expected.size());
  EXPECT_GE(d["phase_seconds"]["timed_steps"].get<double>(), d["wall_seconds"].get<double>());
  EXPECT_LE(sum, call);
  EXPECT_FALSE(d.contains("phase_seconds_per_rank"));  // one rank
}

// The step's flop count is every call's (Table 4.1's GFLOPS): the pressure sweep runs --iterations
// times a step, so 20 more sweeps add 20 sweeps' flops, and the total is the sum of each stage's model times
// its calls.
TEST(Result, FlopsPerStepCountEveryCallOfAStep) {
  RunOptions o = small_cavity_run(2, 0);
  const nlohmann::json r20 = run(o);
  o.solver.jacobi_iterations = 40;
  const nlohmann::json r40 = run(o);
  const nlohmann::json& st = r20["timing"]["stages"];
  double summed = 0;
  for (auto& [name, s] : st.items())
    if (s.contains("model")) summed += s["model"]["flops"].get<double>() * s["calls_per_step"].get<double>();
  EXPECT_DOUBLE_EQ(r20["timing"]["flops_per_step"].get<double>(), summed);
  const double sweep = st["pressure"]["model"]["flops"].get<double>() + st["pressure_bc"]["model"]["flops"].get<double>();
  ASSERT_GT(sweep, 0);
  EXPECT_NEAR(r40["timing"]["flops_per_step"].get<double>() - r20["timing"]["flops_per_step"].get<double>(), 20 * sweep,
              1e-9 * r40["timing"]["flops_per_step"].get<double>());
}

// A finite state far past the case's velocity scale is a blow-up (the check is run/rank_run.hpp's), and a
// healthy one passes with its numbers stated.
TEST(Result, BoundedCheckFlagsAFiniteBlowUp) {
  HostState<double> s{Grid{4, 1, 4, 1, 1, 1}, {{"u", std::vector<double>(36, 0.5)}, {"p", std::vector<double>(36, 1e9)}}, 7, 0};
  const VelocityScale scale{1.0};
  nlohmann::json j = bounded_check(s, scale, 7);
  EXPECT_TRUE(j["pass"].get<bool>()) << j;  // p is no velocity: its size is its own
  EXPECT_DOUBLE_EQ(j["bound"].get<double>(), kBlowUpFactor);
  s.field("u")[5] = -2e8;
  j = bounded_check(s, scale, 7);
  EXPECT_FALSE(j["pass"].get<bool>());
  EXPECT_DOUBLE_EQ(j["max_abs_velocity"].get<double>(), 2e8);
  EXPECT_NE(j["detail"].get<std::string>().find("max |u| = 2e+08 after step 7, over the bound 100"), std::string::npos) << j;
  EXPECT_FALSE(bounded_check(s, VelocityScale{}, 7)["performed"].get<bool>());
}

// A run's check of the host memory reads the kernel's and the cgroup's numbers (v2 "max": no limit).
TEST(HostMemory, SmallerOfMemAvailableAndTheCgroupsRoom) {
  const std::string meminfo = "MemTotal:       32000000 kB\nMemFree:  100 kB\nMemAvailable:   2000000 kB\n";
  EXPECT_EQ(host_memory_available(meminfo, "", ""), 2000000ull * 1024);
  EXPECT_EQ(host_memory_available(meminfo, "max\n", "123\n"), 2000000ull * 1024);
  EXPECT_EQ(host_memory_available(meminfo, "1073741824\n", "73741824\n"), 1000000000ull);
  EXPECT_EQ(host_memory_available(meminfo, "9223372036854771712\n", "5\n"), 2000000ull * 1024);  // v1: no limit
  EXPECT_EQ(host_memory_available("", "1000\n", "2000\n"), 1u);  // over its limit: nothing left (0 would mean unknown)
  EXPECT_EQ(host_memory_available("", "", ""), 0u);
  try {
    require_host_memory(std::uint64_t(1) << 62, "grid 9x9x9", "the fields");
    ADD_FAILURE() << "4 EiB accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("grid 9x9x9 needs at least 4398046511104 MiB of host memory (the fields);"),
              std::string::npos) << e.what();
  }
}

// An exception inside an OpenMP region reaches the caller (escaping the region would call std::terminate).
TEST(HostMemory, FirstExceptionCarriesAnErrorOutOfAnOpenMpRegion) {
  FirstException failed;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 4; ++i) failed.run([&] {
      if (i == 3) throw std::bad_alloc();
    });
  EXPECT_THROW(failed.rethrow(), std::bad_alloc);
  FirstException fine;
  fine.run([] {});
  EXPECT_NO_THROW(fine.rethrow());
}

// A stage whose DRAM bytes are a small part of its model read from the L2 (a grid that fits the cache): marked.
TEST(Profile, AStageWhoseDataStayedInTheL2IsMarked) {
  const nlohmann::json per_call = {{"median", 1e-5}};
  const nlohmann::json stages = {
      {"pressure", {{"variant", "v"}, {"tuning", "t"}, {"per_call", per_call}, {"model", {{"bytes", 1e6}}}}},
      {"momentum", {{"variant", "v"}, {"tuning", "t"}, {"per_call", per_call}, {"model", {{"bytes", 1e6}}}}}};
  nlohmann::json profiled = {{"trace", {{"performed", false}}},
                             {"counters", {{"performed", true}, {"sections", {
                                 {"pressure", {{"dram_bytes_per_call", 2e4}, {"median_per_call", nlohmann::json::object()}}},
                                 {"momentum", {{"dram_bytes_per_call", 1.05e6}, {"median_per_call", nlohmann::json::object()}}}}}}}};
  const nlohmann::json r = profile_report(profiled, stages);
  EXPECT_TRUE(r["stages"]["pressure"]["stayed_in_l2"].get<bool>());
  EXPECT_FALSE(r["stages"]["momentum"]["stayed_in_l2"].get<bool>());
}

// Without a GPU the reason names that (no driver: not "driver version is insufficient", which points at an
// upgrade), never in the callers' own words "no usable GPU" (which doubled them).
TEST(Device, NoGpuReasonSaysWhatIsMissing) {
  const std::string none = device::no_gpu_reason("CUDA driver version is insufficient for CUDA runtime version", false);
  EXPECT_EQ(none.rfind("no NVIDIA GPU found (no NVIDIA driver loaded", 0), 0u) << none;
  EXPECT_EQ(device::no_gpu_reason("", true), "no NVIDIA GPU found (the driver is loaded and lists none)");
  const std::string old = device::no_gpu_reason("CUDA driver version is insufficient for CUDA runtime version", true);
  EXPECT_NE(old.find("driver is loaded but the CUDA runtime cannot use it"), std::string::npos) << old;
  for (const std::string& r : {none, old, device::unavailable_reason()}) EXPECT_EQ(r.find("no usable GPU"), std::string::npos) << r;
}

// zero() sets every value of one field (what a solver's load does for a field the state lacks) and no other.
TEST(Fields, ZeroSetsOneFieldOnly) {
  FieldSet<double> f(50, false);
  f.add("a"), f.add("b");
  f.fill_random_host(7);  // never zero
  f.zero("a");
  for (double x : f.buffer("a").download()) EXPECT_EQ(x, 0.0);
  for (double x : f.buffer("b").download()) EXPECT_NE(x, 0.0);
  EXPECT_THROW(f.zero("c"), std::logic_error);
}

// A host field set's random fill runs its fields in parallel: field i still holds random_values(seed + i),
// whatever the threads (a CPU fixture's inputs, the same as verify's and as before the fill went parallel).
TEST(Fields, RandomFillDoesNotDependOnTheThreads) {
  const int threads_before = omp_get_max_threads();
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    FieldSet<float> f(1001, false);
    for (const char* name : {"a", "b", "c", "d", "e"}) f.add(name);
    f.fill_random_host(40);
    const std::vector<std::string> names = f.names();
    for (std::size_t i = 0; i < names.size(); ++i)
      EXPECT_EQ(f.buffer(names[i]).download(), random_values<float>(1001, 40 + unsigned(i))) << names[i] << ", " << threads << " threads";
  }
  omp_set_num_threads(threads_before);
}

TEST(Result, PhaseClockAddsAPhaseMarkedTwice) {
  PhaseClock c;
  c.done("a");
  c.done("b");
  c.done("a");
  ASSERT_EQ(c.phases().size(), 2u);
  EXPECT_EQ(c.order_json(), nlohmann::json::array({"a", "b"}));
  EXPECT_NEAR(c.total(), c.phases()[0].second + c.phases()[1].second, 1e-15);
  EXPECT_EQ(c.seconds_json()["a"].get<double>(), c.phases()[0].second);
}

}  // namespace
}  // namespace nsb

namespace nsb {
namespace {

// The trace summary sums kernels per section call: a call's time is all of its kernels (the boundary
// stages launch three), and the median is over calls, not over kernels.
TEST(Profile, TraceSummarySumsKernelsPerSectionCall) {
  using profile::KernelRecord;
  std::vector<KernelRecord> r;
  auto add = [&](const char* name, int section, long long call, double us) {
    KernelRecord k;
    k.name = name, k.section = section, k.call = call, k.seconds = us * 1e-6, k.registers = 32;
    k.grid[0] = 10, k.block[0] = 256;
    r.push_back(k);
  };
  const std::vector<std::string> sections = {"velocity_bc", "pressure"};
  const int bc = 0, p = 1;
  for (long long call : {1, 2, 3}) {  // three calls of three face kernels each
    add("face_x", bc, call, 1.0), add("face_y", bc, call, 2.0), add("face_z", bc, call, 3.0 + double(call));
  }
  add("jacobi", p, 4, 10.0), add("jacobi", p, 5, 30.0), add("jacobi", p, 6, 20.0);
  add("stray", -1, 0, 5.0);
  const nlohmann::json s = profile::summarize_trace(r, sections);
  EXPECT_EQ(s["velocity_bc"]["calls"], 3);
  EXPECT_EQ(s["velocity_bc"]["kernels_per_call"], 3.0);
  EXPECT_NEAR(s["velocity_bc"]["kernel_time_per_call"]["median_s"].get<double>(), 8e-6, 1e-12);  // 1+2+5
  EXPECT_EQ(s["velocity_bc"]["kernels"].size(), 3u);
  EXPECT_NEAR(s["pressure"]["kernel_time_per_call"]["median_s"].get<double>(), 20e-6, 1e-12);
  EXPECT_EQ(s["pressure"]["kernels"][0]["launches"], 3);
  EXPECT_EQ(s["pressure"]["kernels"][0]["registers"], 32);
  EXPECT_TRUE(s.contains("outside_sections"));  // never silently dropped
}

TEST(Profile, CounterSummaryAddsDramReadAndWrite) {
  std::vector<profile::CounterRecord> r(3);
  for (int i = 0; i < 3; ++i) {
    r[i].section = 0;
    r[i].kernels = 1;
    r[i].metrics["dram__bytes_read.sum"] = 100.0 * (i + 1);
    r[i].metrics["dram__bytes_write.sum"] = 50.0;
    r[i].metrics["lts__t_sector_hit_rate.pct"] = 10.0 * i;
  }
  const nlohmann::json s = profile::summarize_counters(r, {"divergence"});
  EXPECT_EQ(s["divergence"]["calls"], 3);
  EXPECT_DOUBLE_EQ(s["divergence"]["median_per_call"]["dram__bytes_read.sum"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(s["divergence"]["dram_bytes_per_call"].get<double>(), 250.0);
  EXPECT_DOUBLE_EQ(s["divergence"]["median_per_call"]["lts__t_sector_hit_rate.pct"].get<double>(), 10.0);
}

TEST(Profile, MetricNamesAreNsightComputeNames) {
  const auto& m = profile::counter_metrics();
  EXPECT_NE(std::find(m.begin(), m.end(), "dram__bytes_read.sum"), m.end());
  EXPECT_NE(std::find(m.begin(), m.end(), "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), m.end());
  // the profiler-figure study of Gohari et al. reads these (reports/gohari2012_profile.py)
  EXPECT_NE(std::find(m.begin(), m.end(), "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), m.end());
  EXPECT_NE(std::find(m.begin(), m.end(), "dram__throughput.avg.pct_of_peak_sustained_elapsed"), m.end());
}

TEST(Profile, WithoutAGpuThePassesSayWhy) {
  if (device::count() > 0) GTEST_SKIP() << "a GPU is present: the passes run for real in test_gpu";
  std::string why;
  EXPECT_EQ(profile::make_counter_pass(0, &why), nullptr);
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace nsb

namespace nsb {
namespace {

// The reductions' flat vector path must visit every interior point exactly once and no ghost, for any
// grid (odd extents make rows start at every alignment) and both vector widths (float4, double2).
template <int W>
void flat_path_covers_the_interior(const Grid& g) {
  const FlatInterior<W> fi(g);
  std::vector<int> seen(g.padded_points(), 0);
  for (std::size_t v = fi.first; v < fi.last; ++v) fi.for_interior(v, [&](int l) { ++seen[v * W + std::size_t(l)]; });
  for (int k = 0; k < g.NZ(); ++k)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) {
        const bool interior = i >= 1 && i <= g.nx && j >= 1 && j <= g.ny && k >= 1 && k <= g.nz;
        ASSERT_EQ(seen[g.idx(i, j, k)], interior ? 1 : 0) << "W=" << W << " grid " << g.nx << "x" << g.ny << "x" << g.nz
                                                         << " at " << i << "," << j << "," << k;
      }
}

TEST(Reduce, FlatVectorPathCoversTheInteriorOnce) {
  for (const Grid g : {Grid{5, 3, 7}, Grid{8, 4, 8}, Grid{1, 1, 1}, Grid{17, 9, 3}, Grid{6, 7, 2}}) {
    flat_path_covers_the_interior<4>(g);
    flat_path_covers_the_interior<2>(g);
  }
}

TEST(Reduce, FastDivideIsExact) {
  for (unsigned d : {1u, 2u, 3u, 7u, 34u, 514u, 1026u, 65537u, 2147483647u}) {
    const FastDivide f(d);
    for (unsigned n : {0u, 1u, d - 1, d, d + 1, 123456789u, 4294967295u, 4294967294u, 2147483648u})
      EXPECT_EQ(f(n), n / d) << n << " / " << d;
  }
}

}  // namespace
}  // namespace nsb
