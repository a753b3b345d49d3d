#include "tune_cache.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "device.hpp"
#include "mpi_driver.hpp"

namespace nsb {

namespace {

int round_up_to_power_of_two(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

// A file name's safe spelling of `s`: every character outside [A-Za-z0-9._-] becomes '_'.
std::string folder_name(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) c = '_';
  return out;
}

std::string grid_text(int nx, int ny, int nz) {
  return std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz);
}

// The `nsbench tune` command that makes the recipe a run of options o asks for.
std::string tune_command(const RunOptions& o, const std::string& solver, const std::string& cache) {
  std::string cmd = "nsbench tune --case " + (o.case_options.name.empty() ? solver : o.case_options.name);
  if (!o.solver_name.empty()) cmd += " --solver " + o.solver_name;
  cmd += " --grid " + grid_text(o.case_options.nx, o.case_options.ny, o.case_options.nz) + " --precision " +
         o.precision + " --backend " + o.backend;
  if (o.ranks > 1) cmd += " --ranks " + std::to_string(o.ranks);
  if (cache != default_tune_cache()) cmd += " --cache " + cache;
  return cmd;
}

}  // namespace

std::string grid_class(int nx, int ny, int nz) {
  return grid_text(round_up_to_power_of_two(nx), round_up_to_power_of_two(ny), round_up_to_power_of_two(nz));
}

TuneKey tune_key(const std::string& solver, Backend b, const std::string& precision, int nx, int ny, int nz,
                 int ranks) {
  TuneKey k;
  if (b == Backend::cuda && device::count() > 0) {
    const device::Properties p = device::properties(0);
    k.machine = p.name;
    k.driver = "cuda-driver-" + std::to_string(p.driver_version);
  } else {
    k.machine = b == Backend::cuda ? "no-gpu" : cpu_model();
    k.driver = "cpu";
  }
  k.solver = solver;
  k.backend = backend_name(b);
  k.precision = precision;
  k.grid_class = grid_class(nx, ny, nz);
  k.ranks = ranks;
  return k;
}

std::string tune_key_folder(const TuneKey& k) {
  return folder_name(k.machine) + "/" + folder_name(k.driver) + "/" +
         folder_name(k.solver + "-" + k.backend + "-" + k.precision + "-" + k.grid_class + "-r" + std::to_string(k.ranks));
}

std::string default_tune_cache() {
  if (const char* dir = std::getenv("NSBENCH_TUNE_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/nsbench/tune";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/nsbench/tune";
  return "nsbench-tune-cache";  // no home: beside the working folder
}

namespace {

// A recipe's solver-level choices, each where the recipe sets it and the command line did not.
void apply_recipe_options(RunOptions& o, const Recipe& r, const ExplicitRunOptions& explicit_options) {
  if (!r.poisson.empty() && !explicit_options.poisson) o.solver.poisson_method = r.poisson;
  if (!r.halo.empty() && !explicit_options.halo) o.halo = r.halo;
  if (!r.launch.empty() && !explicit_options.launch) o.launch = r.launch;
}

}  // namespace

std::string tuned_recipe_path(const std::string& dir, const TuneKey& k) {
  return dir + "/" + tune_key_folder(k) + "/recipe.json";
}

void use_tuned_recipe(RunOptions& o, const std::string& cache, const ExplicitRunOptions& explicit_options) {
  const SolverDef& solver = SolverRegistry::instance().of_run(o.solver_name, o.case_options.name);
  const int ranks = mpi::world() ? mpi::world()->size() : o.ranks;
  const TuneKey key = tune_key(solver.name, parse_backend(o.backend), o.precision, o.case_options.nx,
                               o.case_options.ny, o.case_options.nz, ranks);
  const std::string path = tuned_recipe_path(cache, key);
  std::ifstream in(path);
  if (!in)
    throw MissingTunedRecipe("--recipe tuned: no tuned recipe for the " + solver.name + " solver on " + key.backend +
                             " (" + key.machine + "), " + o.precision + ", grid class " + key.grid_class + " (" +
                             path + " does not exist); make it with:\n  " + tune_command(o, solver.name, cache));
  std::stringstream text;
  text << in.rdbuf();
  const std::vector<Recipe> recipes = parse_recipes(text.str(), path);
  if (recipes.size() != 1 || recipes.front().solver != solver.name)
    throw std::runtime_error("--recipe tuned: " + path + " should hold one recipe of the " + solver.name +
                             " solver; run `" + tune_command(o, solver.name, cache) + "` again");
  const Recipe& r = recipes.front();
  apply_recipe_options(o, r, explicit_options);
  o.tuned_recipe = r;
  o.recipe_file = path;
}

void use_named_recipe_options(RunOptions& o, const ExplicitRunOptions& explicit_options) {
  if (o.recipe.empty() || o.recipe == "tuned") return;
  const SolverDef& solver = SolverRegistry::instance().of_run(o.solver_name, o.case_options.name);
  apply_recipe_options(o, find_recipe(solver.name, o.recipe), explicit_options);
}

}  // namespace nsb
