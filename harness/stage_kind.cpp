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
  for (const std::string& axis : k.tuning_axes)
    if (std::none_of(std::begin(kTuningAxes), std::end(kTuningAxes), [&](const char* a) { return axis == a; }))
      throw std::logic_error("stage kind " + k.id() + " declares an unknown tuning axis '" + axis + "'");
  if (!k.fixture_float || !k.fixture_double || !k.flops_per_point)
    throw std::logic_error("stage kind " + k.id() + " registers no fixture or no flop count");
  kinds_.push_back(std::move(k));
}

const StageKind* StageKindRegistry::find(const std::string& id) const {
  for (const StageKind& k : kinds_)
    if (k.id() == id) return &k;
  return nullptr;
}

const StageKind& StageKindRegistry::get(const std::string& id) const {
  if (const StageKind* k = find(id)) return *k;
  std::string known;
  for (const StageKind& k : kinds_) known.append(" ").append(k.id());  // (" " + a temporary: GCC 12 -Wrestrict false positive)
  throw std::runtime_error("unknown stage kind '" + id + "'; known:" + known);
}

std::vector<const StageKind*> StageKindRegistry::of_solver(const std::string& solver) const {
  std::vector<const StageKind*> out;
  for (const StageKind& k : kinds_)
    if (k.solver == solver) out.push_back(&k);
  return out;
}

}  // namespace nsb
