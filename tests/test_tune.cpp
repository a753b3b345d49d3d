// nsbench tune's parts that decide without timing: the grid class, the cache key and folder, the choice among
// candidates (a failed check is never chosen), the noise rule, and how --recipe tuned applies a cached recipe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "recipe.hpp"
#include "run.hpp"
#include "tune.hpp"
#include "tune_cache.hpp"
#include "tune_table.hpp"

namespace {

nsb::TuneCandidate candidate(const std::string& label, const std::string& verdict, double median, double iqr = 0) {
  nsb::TuneCandidate c{"stage", "pressure", label, verdict, ""};
  c.median_s = median;
  c.iqr_s = iqr;
  return c;
}

}  // namespace

TEST(TuneGridClass, RoundsEachAxisUpToAPowerOfTwo) {
  EXPECT_EQ(nsb::grid_class(256, 32, 256), "256x32x256");
  EXPECT_EQ(nsb::grid_class(250, 30, 250), "256x32x256");
  EXPECT_EQ(nsb::grid_class(257, 33, 129), "512x64x256");
  EXPECT_EQ(nsb::grid_class(1, 1, 3), "1x1x4");
  EXPECT_EQ(nsb::grid_class(24, 4, 24), "32x4x32");
  EXPECT_NE(nsb::grid_class(256, 32, 256), nsb::grid_class(256, 64, 256));
}

TEST(TuneCacheKey, FolderNamesEveryPartAndIsAFileName) {
  const nsb::TuneKey k{"NVIDIA H200 (SXM)", "cuda-driver-12080", "projection", "cuda", "float", "256x32x256", 2};
  EXPECT_EQ(nsb::tune_key_folder(k), "NVIDIA_H200__SXM_/cuda-driver-12080/projection-cuda-float-256x32x256-r2");
  nsb::TuneKey other = k;
  other.precision = "double";
  EXPECT_NE(nsb::tune_key_folder(k), nsb::tune_key_folder(other));
  other = k;
  other.driver = "cuda-driver-12090";
  EXPECT_NE(nsb::tune_key_folder(k), nsb::tune_key_folder(other));
  other = k;
  other.solver = "imle";
  EXPECT_NE(nsb::tune_key_folder(k), nsb::tune_key_folder(other));
}

TEST(TuneCacheKey, CpuBackendsKeyOnTheCpuAndTheGridClass) {
  const nsb::TuneKey a = nsb::tune_key("projection", nsb::Backend::cpu_omp, "double", 250, 30, 250, 1);
  const nsb::TuneKey b = nsb::tune_key("projection", nsb::Backend::cpu_omp, "double", 256, 32, 256, 1);
  EXPECT_EQ(a.driver, "cpu");
  EXPECT_EQ(a.machine, nsb::cpu_model());
  EXPECT_EQ(a.grid_class, "256x32x256");
  EXPECT_EQ(nsb::tune_key_folder(a), nsb::tune_key_folder(b));
  const nsb::TuneKey serial = nsb::tune_key("projection", nsb::Backend::cpu_serial, "double", 256, 32, 256, 1);
  EXPECT_NE(nsb::tune_key_folder(a), nsb::tune_key_folder(serial));
}

TEST(TuneChoice, AFailedCheckIsNeverChosenHoweverFast) {
  const std::vector<nsb::TuneCandidate> c = {candidate("slow:ok", "pass", 3e-3), candidate("fast:wrong", "fail", 1e-3),
                                             candidate("fastest:cannot_launch", "skipped", NAN),
                                             candidate("mid:ok", "pass", 2e-3), candidate("errs", "error", 0.5e-3)};
  const std::vector<std::size_t> ranked = nsb::ranked_passing(c, 3);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(c[ranked[0]].label, "mid:ok");
  EXPECT_EQ(c[ranked[1]].label, "slow:ok");
  EXPECT_EQ(nsb::ranked_passing(c, 1).size(), 1u);
  EXPECT_TRUE(nsb::ranked_passing({candidate("wrong", "fail", 1e-3)}, 3).empty());
}

TEST(TuneChoice, FasterOnlyBeyondTheLargerIqr) {
  const nsb::TuneCandidate tuned = candidate("tuned", "pass", 1.00e-3, 0.02e-3);
  EXPECT_TRUE(nsb::faster_beyond_noise(candidate("named", "pass", 0.90e-3, 0.05e-3), tuned));
  EXPECT_FALSE(nsb::faster_beyond_noise(candidate("named", "pass", 0.97e-3, 0.05e-3), tuned));
  EXPECT_FALSE(nsb::faster_beyond_noise(candidate("named", "pass", 1.10e-3, 0.01e-3), tuned));
}

TEST(TuneRecipeFile, RoundTripsThroughTheRecipeParser) {
  const nlohmann::json config = {{"stages", {{"pressure", "cpu_omp:default"}}}, {"poisson", "cg"}, {"halo", ""},
                                 {"launch", "graph"}};
  const nlohmann::json provenance = {{"key", {{"machine", "cpu"}, {"precision", "double"}, {"grid_class", "32x4x32"}}},
                                     {"chosen", "the search's choice"}};
  const nlohmann::json file = nsb::tuned_recipe_file("projection", "cpu_omp", config, provenance);
  const std::vector<nsb::Recipe> r = nsb::parse_recipes(file.dump(), "test");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "tuned");
  EXPECT_EQ(r[0].backend, nsb::Backend::cpu_omp);
  EXPECT_EQ(r[0].stage.at("pressure").variant, "cpu_omp");
  EXPECT_EQ(r[0].poisson, "cg");
  EXPECT_EQ(r[0].launch, "graph");
  EXPECT_EQ(r[0].halo, "");
}

TEST(TuneRecipeFile, UseTunedRecipeSetsItsOptionsUnlessTheCommandLineDid) {
  const std::string cache = (std::filesystem::temp_directory_path() / "nsb_test_tune_cache").string();
  std::filesystem::remove_all(cache);
  nsb::RunOptions o;
  o.backend = "cpu_omp";
  o.precision = "double";
  o.case_options.name = "cavity";
  o.case_options.nx = 24, o.case_options.ny = 4, o.case_options.nz = 24;
  try {
    nsb::use_tuned_recipe(o, cache, {});
    FAIL() << "no cached recipe, yet use_tuned_recipe accepted it";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nsbench tune --case cavity --grid 24x4x24 --precision double --backend "
                                         "cpu_omp --cache " + cache), std::string::npos) << e.what();
  }
  const nsb::TuneKey key = nsb::tune_key("projection", nsb::Backend::cpu_omp, "double", 24, 4, 24, 1);
  const std::string path = nsb::tuned_recipe_path(cache, key);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  const nlohmann::json config = {{"stages", {{"pressure", "cpu_omp:default"}}}, {"poisson", "cg"}, {"halo", ""},
                                 {"launch", "graph"}};
  std::ofstream(path) << nsb::tuned_recipe_file("projection", "cpu_omp", config,
                                                {{"key", {{"machine", "cpu"}, {"precision", "double"}, {"grid_class", "32x4x32"}}},
                                                 {"chosen", "test"}});
  nsb::RunOptions told = o;
  told.solver.poisson_method = "jacobi";
  nsb::use_tuned_recipe(told, cache, {.poisson = true});
  EXPECT_EQ(told.solver.poisson_method, "jacobi");  // given on the command line: it wins
  EXPECT_EQ(told.launch, "graph");                  // not given: the recipe's
  EXPECT_EQ(told.recipe_file, path);
  ASSERT_TRUE(told.tuned_recipe.has_value());
  EXPECT_EQ(told.tuned_recipe->stage.at("pressure").variant, "cpu_omp");
  nsb::use_tuned_recipe(o, cache, {});
  EXPECT_EQ(o.solver.poisson_method, "cg");
  std::filesystem::remove_all(cache);
}

// A named recipe of recipes.json is the whole configuration too (issue 40): its Poisson method applies where the
// command line gave none, and its stages of a family ("poisson/...") stay apart from the solver's own stages.
TEST(NamedRecipe, SetsItsPoissonMethodUnlessTheCommandLineDid) {
  nsb::RunOptions o;
  o.solver_name = "poisson";
  o.case_options.name = "poisson_random";
  o.recipe = "cpu-serial-mg";
  nsb::use_named_recipe_options(o, {});
  EXPECT_EQ(o.solver.poisson_method, "mg:pre2_post1_w115");
  o.solver.poisson_method = "cg";
  nsb::use_named_recipe_options(o, {.poisson = true});  // --poisson cg on the command line wins
  EXPECT_EQ(o.solver.poisson_method, "cg");
  o.recipe = "nosuch";
  EXPECT_THROW(nsb::use_named_recipe_options(o, {}), std::runtime_error);
}

TEST(NamedRecipe, KeepsAFamilysKernelsApartFromTheSolversStages) {
  const nlohmann::json file = {
      {"solver", "projection"},
      {"recipes", {{{"name", "mg"}, {"backend", "cpu_serial"}, {"poisson", "mg"}, {"launch", "stream"},
                    {"stages", {{"pressure", "cpu_serial"}, {"poisson/mg_rbgs", "cpu_serial:default"}}}}}}};
  const std::vector<nsb::Recipe> r = nsb::parse_recipes(file.dump(), "test");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].stage.size(), 1u);
  EXPECT_EQ(r[0].stage.at("pressure").variant, "cpu_serial");
  EXPECT_EQ(r[0].family_kernels.at("poisson/mg_rbgs"), "cpu_serial:default");
  EXPECT_NO_THROW(nsb::resolve(r[0], {}));  // the family's entry is not taken for a stage of the solver
}
