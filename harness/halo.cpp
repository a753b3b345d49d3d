#include "halo.hpp"

#include <algorithm>

namespace nsb {

HaloRegistry& HaloRegistry::instance() {
  static HaloRegistry r;
  return r;
}

void HaloRegistry::add(HaloVariant v) {
  if (v.tunings.empty()) v.tunings.push_back(Tuning{});
  if (find(v.name)) throw std::logic_error("halo variant registered twice: " + v.id());
  variants_.push_back(std::move(v));
  std::sort(variants_.begin(), variants_.end(),
            [](const HaloVariant& a, const HaloVariant& b) { return a.name < b.name; });
}

const HaloVariant* HaloRegistry::find(const std::string& name) const {
  for (const HaloVariant& v : variants_)
    if (v.name == name) return &v;
  return nullptr;
}

const HaloVariant& HaloRegistry::get(const std::string& name) const {
  if (const HaloVariant* v = find(name)) return *v;
  std::string known;
  for (const HaloVariant& v : variants_) known += " " + v.name + " (" + v.driver + ")";
  throw std::runtime_error("unknown halo variant 'halo/" + name + "'; known in this build:" + known);
}

}  // namespace nsb
