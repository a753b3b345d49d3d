// Recipes: a run's whole configuration under one name: one variant and tuning per stage of one solver, and
// the solver-level choices (the Poisson method with its options and its own stages' kernels, the halo, the
// launch mode). They are data: each solver's harness/solvers/<solver>/recipes.json, embedded in the binary
// at build time, or a tuned recipe of `nsbench tune`'s cache. A recipe may leave a stage out: a CPU recipe
// then runs the CPU reference of its backend (variants named cpu_serial / cpu_omp), a GPU recipe the stage
// kind's declared default. The command line overrides: --stage stage by stage
// ("pressure=jacobi_shared_zloop:bx16_by8_sz2", "poisson/mg_rbgs=..."), --poisson, --halo and --launch.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "registry.hpp"

namespace nsb {

struct StageChoice {
  std::string variant;
  std::string tuning;  // empty: the variant's default (first) tuning
};

struct Recipe {
  std::string name;
  std::string solver;
  std::string description;
  Backend backend = Backend::cuda;
  std::map<std::string, StageChoice> stage;  // by stage name; stages left out take their default
  std::string gpu_model;                     // "" or the GPU this one is for (a name may exist once per model)
  std::string source;                        // the recipes file it came from
  // Solver-level choices: the Poisson method (--poisson's form, "mg_graph:pre2_post1_w115"), the halo
  // variant NAME[:TUNING] and the launch mode ("stream" | "graph"); "" leaves the run's own option.
  std::string poisson, halo, launch;
  // Kernels of a family the solver calls, by the family's stage id ("poisson/mg_rbgs" -> "VARIANT[:TUNING]"):
  // a file's "stages" entries whose name holds a '/', as --stage poisson/<stage>=... gives them. They belong
  // to the family's method (today the Poisson family's), not to the solver's own stages: resolve() never
  // sees them, the run hands them to the method.
  std::map<std::string, std::string> family_kernels;
};

struct ResolvedStage {
  const Variant* variant = nullptr;
  Tuning tuning;
};

struct ResolvedRecipe {
  std::string name;
  std::string solver;
  Backend backend = Backend::cpu_serial;
  std::map<std::string, ResolvedStage> stage;
  // Throws std::logic_error naming the stage when the recipe has none of that name.
  const ResolvedStage& operator[](const std::string& stage_name) const;
};

// Every solver's recipes, in file order.
const std::vector<Recipe>& builtin_recipes();
// The solver's recipe of that name for this machine: the one made for this GPU model (gpu_model equal
// to the first GPU's name) where there is one, else the one without a gpu_model. Throws
// std::runtime_error listing the solver's recipes when there is none of that name.
const Recipe& find_recipe(const std::string& solver, const std::string& name);
// The same for a given GPU model ("" : a machine without a GPU).
const Recipe& find_recipe(const std::string& solver, const std::string& name, const std::string& gpu_model);
// The solver's recipe of a CPU backend ("cpu-serial" / "cpu-omp").
const Recipe& cpu_recipe(const std::string& solver, Backend b);
// The recipe a run without --recipe uses: the solver's first recipe of that backend.
const Recipe& default_recipe(const std::string& solver, Backend b);

// Applies "stage=variant[:tuning]" overrides, fills the stages left out, and resolves every choice
// against the registry. Throws std::runtime_error for an unknown stage, variant or tuning, or a recipe
// mixing backends.
ResolvedRecipe resolve(const Recipe& r, const std::vector<std::string>& overrides);

// One stage's kernel resolved outside a recipe (a Poisson method's own stages): `choice` is
// "variant[:tuning]", or empty for the kind's default on backend b. Throws std::runtime_error naming
// the unknown stage, variant or tuning, or a variant of another backend.
ResolvedStage resolve_stage_choice(const std::string& stage_id, Backend b, const std::string& choice);

// Parses one solver's recipes file (JSON). Throws std::runtime_error naming the file and the problem.
std::vector<Recipe> parse_recipes(const std::string& json_text, const std::string& source);

}  // namespace nsb
