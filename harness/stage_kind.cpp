#include "stage_kind.hpp"

#include <algorithm>
#include <stdexcept>

namespace nsb {

StageKindRegistry& StageKindRegistry::instance() {
  static StageKindRegistry r;
  return r;
}

void StageKindRegistry::add(StageKind k) {
  if (find(k.id())) throw std::logic_error("stage kind registered twice: " + k.id());
  std::string problem;
  for (const std::string& axis : k.tuning_axes)
    if (std::none_of(std::begin(kTuningAxes), std::end(kTuningAxes), [&](const char* a) { return axis == a; }))
      problem.append(" declares an unknown tuning axis '").append(axis).append("'");
  if (!k.fixture_float || !k.fixture_double || !k.flops_per_point) problem.append(" registers no fixture or no flop count");
  if (!problem.empty()) throw std::logic_error("stage kind " + k.id() + problem);
  kinds_.push_back(std::move(k));
}

const StageKind* StageKindRegistry::find(const std::string& id) const {
  for (const StageKind& k : kinds_)
    if (k.id() == id) return &k;
  return nullptr;
}

const StageKind& StageKindRegistry::get(const std::string& id) const {
  if (const StageKind* k = find(id)) return *k;
  std::string message = "unknown stage kind '" + id + "'; known:";
  for (const StageKind& k : kinds_) message.append(" ").append(k.id());
  throw std::runtime_error(message);
}

std::vector<const StageKind*> StageKindRegistry::of_solver(const std::string& solver) const {
  std::vector<const StageKind*> out;
  for (const StageKind& k : kinds_)
    if (k.solver == solver) out.push_back(&k);
  return out;
}

}  // namespace nsb
