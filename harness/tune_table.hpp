// What `nsbench tune` writes beside its recipe: the table of every candidate it timed (JSON for tools,
// markdown for people), and the recipe file itself in the recipes.json form.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tune.hpp"

namespace nsb {

// A candidate as a row of candidates.json (non-finite numbers as null).
nlohmann::json candidate_json(const TuneCandidate& c);

// Every candidate as a markdown table under `title`: phase, stage, candidate, verdict, median and IQR in
// ms, the check's difference and tolerance, the reason.
std::string candidates_markdown(const std::vector<TuneCandidate>& table, const std::string& title);

// The recipe file: {"solver", "comment", "recipes": [{"name": "tuned", "backend", "description", "stages",
// "poisson", "halo", "launch", "tuned": provenance}]}, what parse_recipes reads (recipe.hpp).
nlohmann::json tuned_recipe_file(const std::string& solver, const std::string& backend, const nlohmann::json& config,
                                 const nlohmann::json& provenance);

}  // namespace nsb
