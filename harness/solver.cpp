#include "solver.hpp"

#include <algorithm>

namespace nsb {

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
