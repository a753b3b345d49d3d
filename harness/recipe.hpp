// Recipes: a named choice of one variant and tuning per stage. A recipe may be modified on the
// command line stage by stage ("pressure=jacobi_shared_zloop:bx16_by8_sz2").
#pragma once

#include <array>
#include <string>
#include <vector>

#include "device.hpp"
#include "registry.hpp"

namespace nsb {

struct StageChoice {
  std::string variant;
  std::string tuning;  // empty: the variant's default (first) tuning
};

struct Recipe {
  std::string name;
  std::string description;
  std::array<StageChoice, std::size_t(StageKind::count)> stage;
};

struct ResolvedStage {
  const Variant* variant = nullptr;
  Tuning tuning;
};
struct ResolvedRecipe {
  std::string name;
  Backend backend = Backend::cpu_serial;
  std::array<ResolvedStage, std::size_t(StageKind::count)> stage;
  const ResolvedStage& operator[](StageKind s) const { return stage[std::size_t(s)]; }
};

const std::vector<Recipe>& builtin_recipes();
const Recipe& find_recipe(const std::string& name);  // throws, listing the known names

// Applies "stage=variant[:tuning]" overrides and resolves every choice against the registry.
// Throws std::runtime_error for an unknown stage, variant or tuning, or a recipe mixing backends.
ResolvedRecipe resolve(const Recipe& r, const std::vector<std::string>& overrides);

// The recipe matching a CPU backend ("cpu-serial" / "cpu-omp").
const Recipe& cpu_recipe(Backend b);

}  // namespace nsb
