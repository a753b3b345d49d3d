#include "registry.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>
#include <stdexcept>

namespace nsb {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu_serial: return "cpu_serial";
    case Backend::cpu_omp: return "cpu_omp";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

static const char* const kStageNames[] = {"momentum",    "velocity_bc", "divergence", "pressure",
                                          "pressure_bc", "correction",  "reduce"};

const char* stage_name(StageKind s) { return s < StageKind::count ? kStageNames[int(s)] : "?"; }

bool parse_stage(const std::string& name, StageKind& out) {
  for (int i = 0; i < int(StageKind::count); ++i)
    if (name == kStageNames[i]) {
      out = StageKind(i);
      return true;
    }
  return false;
}

const Tuning* Variant::find_tuning(const std::string& tname) const {
  for (const Tuning& t : tunings)
    if (t.name == tname) return &t;
  return nullptr;
}

Registry& Registry::instance() {
  static Registry r;
  return r;
}

void Registry::add(Variant v) {
  if (v.tunings.empty()) v.tunings.push_back(Tuning{});
  v.id_text = std::string(stage_name(v.stage)) + "/" + v.name;
  if (find(v.stage, v.name))
    throw std::logic_error("variant registered twice: " + v.id());
  variants_.push_back(std::move(v));
  std::sort(variants_.begin(), variants_.end(), [](const Variant& a, const Variant& b) {
    return std::tie(a.stage, a.backend, a.name) < std::tie(b.stage, b.backend, b.name);
  });
}

std::vector<const Variant*> Registry::of_stage(StageKind s) const {
  std::vector<const Variant*> out;
  for (const Variant& v : variants_)
    if (v.stage == s) out.push_back(&v);
  return out;
}

const Variant* Registry::find(StageKind s, const std::string& name) const {
  for (const Variant& v : variants_)
    if (v.stage == s && v.name == name) return &v;
  return nullptr;
}

const Variant& Registry::get(StageKind s, const std::string& name) const {
  if (const Variant* v = find(s, name)) return *v;
  std::ostringstream msg;
  msg << "unknown variant '" << stage_name(s) << "/" << name << "'; known " << stage_name(s) << " variants:";
  for (const Variant* v : of_stage(s)) msg << " " << v->name;
  throw std::runtime_error(msg.str());
}

Tuning parse_tuning(const std::string& name) {
  Tuning t;
  t.name = name;
  std::istringstream in(name);
  std::string part;
  while (std::getline(in, part, '_')) {
    auto number = [&](std::size_t prefix) {
      try {
        return std::stoi(part.substr(prefix));
      } catch (const std::exception&) {
        throw std::runtime_error("bad tuning name '" + name + "': '" + part + "' is not <key><number>");
      }
    };
    if (part.rfind("bx", 0) == 0) t.bx = number(2);
    else if (part.rfind("by", 0) == 0) t.by = number(2);
    else if (part.rfind("sz", 0) == 0) t.sz = number(2);
    else if (part.rfind("pf", 0) == 0) t.pf = number(2);
    else if (part.rfind("mb", 0) == 0) t.mb = number(2);
    else if (part.rfind("b", 0) == 0) t.bx = number(1);
    else if (part != "default") throw std::runtime_error("bad tuning name '" + name + "': unknown part '" + part + "'");
  }
  return t;
}

std::vector<Tuning> tunings_2d(std::initializer_list<std::pair<int, int>> shapes, int sz) {
  std::vector<Tuning> out;
  for (auto [bx, by] : shapes) {
    std::string name = "bx" + std::to_string(bx) + "_by" + std::to_string(by);
    if (sz > 0) name += "_sz" + std::to_string(sz);
    out.push_back(parse_tuning(name));
  }
  return out;
}

}  // namespace nsb
