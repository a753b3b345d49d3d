#include "registry.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "stage_kind.hpp"

namespace nsb {

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::cpu_serial: return "cpu_serial";
    case Backend::cpu_omp: return "cpu_omp";
    case Backend::cuda: return "cuda";
  }
  return "?";
}

Backend parse_backend(const std::string& s) {
  for (Backend b : {Backend::cpu_serial, Backend::cpu_omp, Backend::cuda})
    if (s == backend_name(b)) return b;
  throw std::runtime_error("unknown backend '" + s + "'; known: cpu_serial cpu_omp cuda");
}

const Tuning* Variant::find_tuning(const std::string& tname) const {
  for (const Tuning& t : tunings)
    if (t.name == tname) return &t;
  return nullptr;
}

bool Variant::answers_to(const std::string& n) const {
  return n == name || std::find(aliases.begin(), aliases.end(), n) != aliases.end();
}

Registry& Registry::instance() {
  static Registry r;
  return r;
}

namespace {

// The kernels of the compiled instances a variant's tunings carry, each instance once, marked as its
// own (KernelRef::runs then picks a tuning's own kernels for the register report).
void list_instance_kernels(Variant& v) {
  std::vector<const TuningInstance*> listed;
  for (const Tuning& t : v.tunings) {
    if (!t.instance || std::find(listed.begin(), listed.end(), t.instance) != listed.end()) continue;
    listed.push_back(t.instance);
    for (KernelRef k : t.instance->kernels) {
      k.instance = t.instance;
      v.kernels.push_back(std::move(k));
    }
  }
}

}  // namespace

void Registry::add(Variant v) {
  if (v.tunings.empty()) v.tunings.push_back(Tuning{});
  v.id_text = v.stage + "/" + v.name;
  std::vector<std::string> names = v.aliases;
  names.push_back(v.name);
  for (const std::string& n : names)
    if (const Variant* other = find(v.stage, n))
      throw std::logic_error(v.id() + ": the name '" + n + "' is taken by " + other->id());
  list_instance_kernels(v);
  variants_.push_back(std::move(v));
  std::sort(variants_.begin(), variants_.end(), [](const Variant& a, const Variant& b) {
    return std::tie(a.stage, a.backend, a.name) < std::tie(b.stage, b.backend, b.name);
  });
  checked_ = false;
}

namespace {

// The tuning axes a tuning name uses ("bx16_by8_sz2" -> bx by sz).
std::vector<std::string> axes_of(const std::string& tuning_name) {
  std::vector<std::string> out;
  std::istringstream in(tuning_name);
  std::string part;
  while (std::getline(in, part, '_')) {
    std::size_t n = 0;
    while (n < part.size() && std::isalpha(static_cast<unsigned char>(part[n]))) ++n;
    if (part != "default") out.push_back(part.substr(0, n));
  }
  return out;
}

// Why a registration does not fit its stage kind ("" when it does).
std::string misfit(const Variant& v, const StageKind& k, std::type_index call_float, std::type_index call_double) {
  if (v.run_float.call_type() != call_float || v.run_double.call_type() != call_double)
    return "its functions do not take " + k.id() + "'s call structure";
  for (const auto& [key, value] : v.tags) {
    if (key == "backend" || key == "status") continue;
    const auto allowed = k.tag_vocabulary.find(key);
    if (allowed == k.tag_vocabulary.end()) return "tag '" + key + "' is not in " + k.id() + "'s vocabulary";
    if (std::find(allowed->second.begin(), allowed->second.end(), value) == allowed->second.end())
      return "tag " + key + "=" + value + " is not one of " + k.id() + "'s values for '" + key + "'";
  }
  for (const Tuning& t : v.tunings)
    for (const std::string& axis : axes_of(t.name))
      if (std::find(k.tuning_axes.begin(), k.tuning_axes.end(), axis) == k.tuning_axes.end())
        return "tuning " + t.name + " uses axis '" + axis + "', which " + k.id() + " does not declare";
  // Tunings carrying compiled instances: all of the variant's or none, each taking the kind's call structure.
  const bool instances = std::any_of(v.tunings.begin(), v.tunings.end(), [](const Tuning& t) { return t.instance; });
  for (const Tuning& t : v.tunings) {
    if (instances && !t.instance)
      return "tuning " + t.name + " carries no compiled instance, while others of the variant do";
    if (t.instance && (t.instance->run_float.call_type() != call_float ||
                       t.instance->run_double.call_type() != call_double))
      return "the instance of tuning " + t.name + " does not take " + k.id() + "'s call structure";
  }
  return "";
}

}  // namespace

// Every variant against its stage kind, once (static registrations of kinds and variants come in no
// fixed order, so this runs on first use). The CPU reference variants fix the call types of a kind.
void Registry::check() const {
  if (checked_) return;
  std::string problems;
  for (const Variant& v : variants_) {
    const StageKind* k = StageKindRegistry::instance().find(v.stage);
    if (!k) {
      problems += "\n  " + v.id() + ": no stage kind '" + v.stage + "' is registered";
      continue;
    }
    const Variant* ref = find(v.stage, "cpu_serial");
    if (!ref) {
      problems += "\n  " + k->id() + " has no cpu_serial reference variant";
      continue;
    }
    if (const std::string why = misfit(v, *k, ref->run_float.call_type(), ref->run_double.call_type()); !why.empty())
      problems += "\n  " + v.id() + ": " + why;
  }
  if (!problems.empty()) throw std::logic_error("variant registrations that do not fit their stage kind:" + problems);
  checked_ = true;
}

const std::vector<Variant>& Registry::all() const {
  check();
  return variants_;
}

std::vector<const Variant*> Registry::of_stage(const std::string& stage_id) const {
  std::vector<const Variant*> out;
  for (const Variant& v : all())
    if (v.stage == stage_id) out.push_back(&v);
  return out;
}

const Variant* Registry::find(const std::string& stage_id, const std::string& name) const {
  for (const Variant& v : variants_)
    if (v.stage == stage_id && v.answers_to(name)) return &v;
  return nullptr;
}

const Variant& Registry::get(const std::string& stage_id, const std::string& name) const {
  check();
  if (const Variant* v = find(stage_id, name)) return *v;
  std::ostringstream msg;
  msg << "unknown variant '" << stage_id << "/" << name << "'; known " << stage_id << " variants:";
  for (const Variant* v : of_stage(stage_id)) msg << " " << v->name;
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
    else if (part.rfind("w", 0) == 0) t.w = number(1);
    else if (part.rfind("co", 0) == 0) t.co = number(2);
    else if (part != "default") throw std::runtime_error("bad tuning name '" + name + "': unknown part '" + part + "'");
  }
  if (t.co > 100) throw std::runtime_error("bad tuning name '" + name + "': co is a percentage (0 to 100)");
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
