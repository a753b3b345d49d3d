// `nsbench list`: every solver, stage kind, variant (tags, tunings, status), halo variant and recipe,
// from the registries alone; as text for people and as JSON (schema nsbench.list/2) for tools: the
// study runner, the reports and the tests read solvers, stages and variants from it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nsb {

nlohmann::json list_json();
// stage: "" (all), "halo", a stage name or "solver/stage"; tag: "" or KEY=VALUE.
void print_list(const std::string& stage, const std::string& tag);

}  // namespace nsb
