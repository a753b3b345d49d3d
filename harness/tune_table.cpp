#include "tune_table.hpp"

#include <cmath>
#include <cstdio>

namespace nsb {

namespace {

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

std::string ms_or_dash(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", seconds * 1e3);
  return text;
}

std::string sci_or_dash(double x) {
  if (!std::isfinite(x)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1e", x);
  return text;
}

// A cell's text with the characters that would break a markdown table row escaped.
std::string cell(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    if (ch == '|') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out;
}

}  // namespace

nlohmann::json candidate_json(const TuneCandidate& c) {
  nlohmann::json j = {{"phase", c.phase}, {"what", c.what}, {"candidate", c.label}, {"verdict", c.verdict},
                      {"reason", c.reason}, {"median_s", number_or_null(c.median_s)}, {"iqr_s", number_or_null(c.iqr_s)}};
  if (c.phase == "stage")
    j["check"] = {{"max_rel_diff", number_or_null(c.max_rel_diff)}, {"tolerance", number_or_null(c.tolerance)}};
  if (!c.config.empty()) j["config"] = c.config;
  return j;
}

std::string candidates_markdown(const std::vector<TuneCandidate>& table, const std::string& title) {
  std::string md = "# " + title + "\n\n";
  md += "Phases: stage (each variant:tuning on its own, checked against the CPU reference), step (whole steps of "
        "the search's configurations), confirm (the search's choice with the run's reference check), named (the "
        "named recipes). Times: median and IQR of the samples, ms.\n\n";
  md += "| phase | stage | candidate | verdict | median ms | IQR ms | max rel diff | tolerance | reason |\n";
  md += "|---|---|---|---|---:|---:|---:|---:|---|\n";
  for (const TuneCandidate& c : table)
    md += "| " + c.phase + " | " + c.what + " | " + cell(c.label) + " | " + c.verdict + " | " + ms_or_dash(c.median_s) +
          " | " + ms_or_dash(c.iqr_s) + " | " + sci_or_dash(c.max_rel_diff) + " | " + sci_or_dash(c.tolerance) + " | " +
          cell(c.reason) + " |\n";
  return md;
}

nlohmann::json tuned_recipe_file(const std::string& solver, const std::string& backend, const nlohmann::json& config,
                                 const nlohmann::json& provenance) {
  nlohmann::json recipe = {{"name", "tuned"},
                           {"backend", backend},
                           {"description", "made by nsbench tune for " + provenance["key"]["machine"].get<std::string>() +
                                               ", " + provenance["key"]["precision"].get<std::string>() + ", grid class " +
                                               provenance["key"]["grid_class"].get<std::string>() + " (" +
                                               provenance["chosen"].get<std::string>() + ")"},
                           {"stages", config["stages"]},
                           {"launch", config["launch"]},
                           {"poisson", config["poisson"]}};
  if (!config["halo"].get<std::string>().empty()) recipe["halo"] = config["halo"];
  recipe["tuned"] = provenance;
  return {{"solver", solver},
          {"comment", "One recipe, 'tuned', written by nsbench tune; nsbench run --recipe tuned reads it for this "
                      "machine, solver, backend, precision and grid class. candidates.json beside it: every candidate."},
          {"recipes", nlohmann::json::array({recipe})}};
}

}  // namespace nsb
