#include "solver.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nsb {

std::map<std::string, std::string> case_params(const CaseOptions& o, const std::vector<std::string>& known) {
  std::map<std::string, std::string> out;
  for (const std::string& p : o.params) {
    const auto eq = p.find('=');
    const std::string key = p.substr(0, eq);
    if (eq == std::string::npos || std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += " " + k;
      throw std::invalid_argument("case '" + o.name + "' has no setting '" + p + "' (KEY=VALUE; its keys:" +
                                  (list.empty() ? std::string(" none") : list) + ")");
    }
    out[key] = p.substr(eq + 1);
  }
  return out;
}

double number_param(const std::map<std::string, std::string>& p, const std::string& key, double fallback) {
  const auto it = p.find(key);
  if (it == p.end()) return fallback;
  try {
    std::size_t used = 0;
    const double v = std::stod(it->second, &used);
    if (used == it->second.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  throw std::invalid_argument("case setting " + key + "=" + it->second + " is not a number");
}

int SolverDef::section_index(const std::string& section) const {
  const auto it = std::find(sections.begin(), sections.end(), section);
  return it == sections.end() ? -1 : int(it - sections.begin());
}

SolverRegistry& SolverRegistry::instance() {
  static SolverRegistry r;
  return r;
}

void SolverRegistry::add(SolverDef d) {
  if (find(d.name)) throw std::logic_error("solver registered twice: " + d.name);
  solvers_.push_back(std::move(d));
  std::sort(solvers_.begin(), solvers_.end(), [](const SolverDef& a, const SolverDef& b) { return a.name < b.name; });
}

const SolverDef* SolverRegistry::find(const std::string& name) const {
  for (const SolverDef& d : solvers_)
    if (d.name == name) return &d;
  return nullptr;
}

const SolverDef& SolverRegistry::get(const std::string& name) const {
  if (const SolverDef* d = find(name)) return *d;
  std::string known;
  for (const SolverDef& d : solvers_) known += " " + d.name;
  throw std::runtime_error("unknown solver '" + name + "'; known:" + known);
}

const SolverDef& SolverRegistry::of_case(const std::string& case_name) const {
  for (const SolverDef& d : solvers_)
    if (!d.by_name_only && std::find(d.cases.begin(), d.cases.end(), case_name) != d.cases.end()) return d;
  std::string known;
  for (const SolverDef& d : solvers_)
    for (const std::string& c : d.cases) known += " " + c;
  throw std::invalid_argument("unknown case '" + case_name + "'; known cases:" + known);
}

const SolverDef& SolverRegistry::of_run(const std::string& solver_name, const std::string& case_name) const {
  if (solver_name.empty()) return of_case(case_name);
  const SolverDef& d = get(solver_name);
  if (std::find(d.cases.begin(), d.cases.end(), case_name) != d.cases.end()) return d;
  std::string known;
  for (const std::string& c : d.cases) known += " " + c;
  throw std::invalid_argument("solver '" + solver_name + "' has no case '" + case_name + "'; its cases:" + known);
}

}  // namespace nsb
