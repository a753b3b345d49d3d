#include "recipe.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "device.hpp"
#include "recipe_files.hpp"  // generated at build time: every harness/solvers/*/recipes.json
#include "solver.hpp"

namespace nsb {

namespace {

StageChoice parse_choice(const std::string& text) {
  const auto colon = text.find(':');
  return {text.substr(0, colon), colon == std::string::npos ? "" : text.substr(colon + 1)};
}

// The variant a recipe of backend b runs for a stage it leaves out.
std::string default_variant(const StageKind& k, Backend b) {
  if (b != Backend::cuda) return backend_name(b);  // the CPU reference of that backend
  if (k.default_gpu_variant.empty())
    throw std::runtime_error("stage " + k.id() + " has no default GPU variant: a GPU recipe must name one");
  return k.default_gpu_variant;
}

const Variant& lookup(const std::string& recipe, const std::string& stage_id, const std::string& name) {
  if (const Variant* v = Registry::instance().find(stage_id, name)) return *v;
  std::string msg = "recipe '" + recipe + "': ";
  try {
    Registry::instance().get(stage_id, name);
  } catch (const std::exception& e) {
    msg += e.what();
  }
  if (!device::built_with_cuda()) msg += " (this build has no CUDA variants)";
  throw std::runtime_error(msg);
}

Tuning lookup_tuning(const Variant& v, const std::string& name) {
  if (name.empty()) return v.tunings.front();
  if (const Tuning* t = v.find_tuning(name)) return *t;
  std::string known;
  for (const Tuning& t : v.tunings) known += " " + t.name;
  throw std::runtime_error("unknown tuning '" + name + "' for " + v.id() + "; known:" + known);
}

}  // namespace

std::vector<Recipe> parse_recipes(const std::string& text, const std::string& source) {
  std::vector<Recipe> out;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    const std::string solver = j.at("solver").get<std::string>();
    for (const nlohmann::json& r : j.at("recipes")) {
      Recipe rec;
      rec.name = r.at("name").get<std::string>();
      rec.solver = solver;
      rec.description = r.value("description", "");
      rec.backend = parse_backend(r.at("backend").get<std::string>());
      rec.gpu_model = r.value("gpu_model", "");
      rec.source = source;
      rec.poisson = r.value("poisson", "");
      rec.halo = r.value("halo", "");
      rec.launch = r.value("launch", "");
      if (r.contains("stages"))
        for (auto& [stage, choice] : r["stages"].items()) {
          if (stage.find('/') != std::string::npos) rec.family_kernels[stage] = choice.get<std::string>();
          else rec.stage[stage] = parse_choice(choice.get<std::string>());
        }
      out.push_back(std::move(rec));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("recipes file " + source + ": " + e.what());
  }
  return out;
}

const std::vector<Recipe>& builtin_recipes() {
  static const std::vector<Recipe> recipes = [] {
    std::vector<Recipe> all;
    for (const RecipeFile& f : kRecipeFiles)
      for (Recipe& r : parse_recipes(f.text, f.path)) all.push_back(std::move(r));
    return all;
  }();
  return recipes;
}

const Recipe& find_recipe(const std::string& solver, const std::string& name, const std::string& gpu_model) {
  const Recipe* generic = nullptr;
  std::vector<std::string> known;
  for (const Recipe& r : builtin_recipes()) {
    if (r.solver != solver) continue;
    if (r.name == name && r.gpu_model.empty()) generic = &r;
    if (r.name == name && !gpu_model.empty() && r.gpu_model == gpu_model) return r;
    if (std::find(known.begin(), known.end(), r.name) == known.end()) known.push_back(r.name);
  }
  if (generic) return *generic;
  std::string message = "unknown recipe '" + name + "' for the " + solver + " solver; known recipes:";
  for (const std::string& k : known) message.append(" ").append(k);
  throw std::runtime_error(message);
}

const Recipe& find_recipe(const std::string& solver, const std::string& name) {
  return find_recipe(solver, name, device::count() > 0 ? device::properties(0).name : "");
}

const Recipe& cpu_recipe(const std::string& solver, Backend b) {
  return find_recipe(solver, b == Backend::cpu_omp ? "cpu-omp" : "cpu-serial");
}

const Recipe& default_recipe(const std::string& solver, Backend b) {
  for (const Recipe& r : builtin_recipes())
    if (r.solver == solver && r.backend == b) return r;
  throw std::runtime_error("the " + solver + " solver has no recipe for backend " + backend_name(b));
}

const ResolvedStage& ResolvedRecipe::operator[](const std::string& stage_name) const {
  const auto it = stage.find(stage_name);
  if (it == stage.end()) throw std::logic_error("recipe '" + name + "' has no stage '" + stage_name + "'");
  return it->second;
}

ResolvedStage resolve_stage_choice(const std::string& stage_id, Backend b, const std::string& choice) {
  const StageKind& kind = StageKindRegistry::instance().get(stage_id);
  const StageChoice c = choice.empty() ? StageChoice{default_variant(kind, b), ""} : parse_choice(choice);
  const Variant& v = lookup(stage_id, kind.id(), c.variant);
  if (v.backend != b && (v.backend == Backend::cuda || b == Backend::cuda))
    throw std::runtime_error(v.id() + " runs on " + backend_name(v.backend) + ", the solve on " + backend_name(b));
  return ResolvedStage{&v, lookup_tuning(v, c.tuning)};
}

ResolvedRecipe resolve(const Recipe& base, const std::vector<std::string>& overrides) {
  const SolverDef& solver = SolverRegistry::instance().get(base.solver);
  auto known_stages = [&] {
    std::string s;
    for (const std::string& st : solver.stages) s += " " + st;
    return s;
  };
  Recipe r = base;
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    std::string stage = o.substr(0, eq);
    // SOLVER/STAGE as well as STAGE (study files name a non-projection solver's stage so).
    if (stage.rfind(solver.name + "/", 0) == 0) stage = stage.substr(solver.name.size() + 1);
    if (eq == std::string::npos || std::find(solver.stages.begin(), solver.stages.end(), stage) == solver.stages.end())
      throw std::runtime_error("bad --stage '" + o + "': expected STAGE=VARIANT[:TUNING] with STAGE one of the " +
                               solver.name + " solver's stages:" + known_stages());
    r.stage[stage] = parse_choice(o.substr(eq + 1));
    r.name = base.name + "+";
  }
  for (const auto& [stage, choice] : r.stage)
    if (std::find(solver.stages.begin(), solver.stages.end(), stage) == solver.stages.end())
      throw std::runtime_error("recipe '" + r.name + "' (" + r.source + ") names stage '" + stage + "', which the " +
                               solver.name + " solver does not have; its stages:" + known_stages());
  ResolvedRecipe out;
  out.name = r.name;
  out.solver = r.solver;
  out.backend = r.backend;
  for (const std::string& stage : solver.stages) {
    const StageKind& kind = StageKindRegistry::instance().get(solver.name + "/" + stage);
    const auto chosen = r.stage.find(stage);
    const StageChoice c = chosen != r.stage.end() ? chosen->second : StageChoice{default_variant(kind, r.backend), ""};
    const Variant& v = lookup(r.name, kind.id(), c.variant);
    const bool both_cpu = v.backend != Backend::cuda && r.backend != Backend::cuda;
    if (v.backend != r.backend && !both_cpu)
      throw std::runtime_error("recipe '" + r.name + "' mixes backends: " + v.id() + " runs on " +
                               backend_name(v.backend) + ", the recipe on " + backend_name(r.backend));
    out.stage[stage] = ResolvedStage{&v, lookup_tuning(v, c.tuning)};
  }
  return out;
}

}  // namespace nsb
