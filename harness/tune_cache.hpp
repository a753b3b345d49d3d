// Where `nsbench tune` keeps what it found, and how `nsbench run --recipe tuned` finds it again: a
// per-machine cache of tuned recipes, one folder per key (machine, driver, solver, backend, precision,
// grid class, ranks), each holding recipe.json (the recipes.json form, one recipe named "tuned"),
// candidates.json and candidates.md (every candidate timed, with its verdict).
#pragma once

#include <stdexcept>
#include <string>

#include "run.hpp"

namespace nsb {

// The grid class a tuned recipe is kept for: each axis rounded up to a power of two, so 250x30x250 and
// 256x32x256 share one recipe (a tuning's block shape fits both alike) while 256x32x256 and 256x64x256
// do not. "256x32x256".
std::string grid_class(int nx, int ny, int nz);

// What a tuned recipe is valid for. machine: the GPU's name for the cuda backend, the CPU's model for
// the CPU backends; driver: "cuda-driver-<version>" (cudaDriverGetVersion) or "cpu".
struct TuneKey {
  std::string machine, driver, solver, backend, precision, grid_class;
  int ranks = 1;
};

// The key of a run of this solver, backend, precision, grid and rank count on this machine.
TuneKey tune_key(const std::string& solver, Backend b, const std::string& precision, int nx, int ny, int nz,
                 int ranks);

// The key's folder under the cache: <machine>/<driver>/<solver>-<backend>-<precision>-<class>-r<ranks>,
// every character outside [A-Za-z0-9._-] made '_' ("NVIDIA_H200/cuda-driver-12080/projection-cuda-float-
// 256x256x256-r1").
std::string tune_key_folder(const TuneKey& k);

// The cache: $NSBENCH_TUNE_CACHE where set, else $XDG_CACHE_HOME/nsbench/tune, else ~/.cache/nsbench/tune.
std::string default_tune_cache();

// The recipe file of a key in cache `dir`.
std::string tuned_recipe_path(const std::string& dir, const TuneKey& k);

// `--recipe tuned`: loads the cached recipe of the run's solver, backend, precision, grid class and ranks
// from `cache` into o.tuned_recipe (and o.recipe_file), and sets the run's Poisson method, halo and launch
// mode from it where the command line did not (explicit_*). Throws MissingTunedRecipe naming the missing
// file and the exact `nsbench tune` command that makes it; std::runtime_error for a malformed file.
// What use_tuned_recipe throws where the cache has no recipe for the run's key: nsbench exits 4 on it ("this
// machine has no tuned recipe for this run", nothing run), so that the study runner records a skip, not a failure.
struct MissingTunedRecipe : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ExplicitRunOptions {
  bool poisson = false, halo = false, launch = false;
};
void use_tuned_recipe(RunOptions& o, const std::string& cache, const ExplicitRunOptions& explicit_options);
// --recipe NAME of the solver's recipes.json: the run's Poisson method, halo and launch mode from the recipe
// where it sets them and the command line did not, as for a tuned one (nothing for an empty name or "tuned").
// Throws std::runtime_error for an unknown recipe, listing the solver's.
void use_named_recipe_options(RunOptions& o, const ExplicitRunOptions& explicit_options);

}  // namespace nsb
