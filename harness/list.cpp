#include "list.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "device.hpp"
#include "halo.hpp"
#include "mpi_driver.hpp"
#include "option_choices.hpp"
#include "recipe.hpp"
#include "solver.hpp"
#include "stage_kind.hpp"

namespace nsb {

namespace {

nlohmann::json tuning_names(const std::vector<Tuning>& ts) {
  nlohmann::json a = nlohmann::json::array();
  for (const Tuning& t : ts) a.push_back(t.name);
  return a;
}

bool stage_matches(const std::string& filter, const std::string& solver, const std::string& stage) {
  return filter.empty() || filter == stage || filter == solver + "/" + stage;
}

// One stage kind and its variants (those with tag tk=tv where a tag is asked for).
void print_kind(const StageKind* k, const std::string& tk, const std::string& tv) {
  std::printf("\n  stage %s: %s\n    reads:", k->id().c_str(), k->summary.c_str());
  for (const std::string& f : k->reads) std::printf(" %s", f.c_str());
  std::printf("; writes:");
  for (const std::string& f : k->writes) std::printf(" %s", f.c_str());
  std::printf("; flops per point:");
  for (const std::string& w : k->workloads) std::printf(" %.0f%s%s", k->flops_per_point(w), w.empty() ? "" : " ", w.c_str());
  std::printf("\n");
  for (const Variant* v : Registry::instance().of_stage(k->id())) {
    if (!tk.empty() && (!v->tags.count(tk) || v->tags.at(tk) != tv)) continue;
    std::printf("    %-44s %-10s", v->id().c_str(), backend_name(v->backend));
    for (auto& [key, val] : v->tags) std::printf(" %s=%s", key.c_str(), val.c_str());
    if (v->determinism != Determinism::deterministic) std::printf(" [order-dependent]");
    if (v->synchronizes) std::printf(" [synchronizes]");
    if (!v->aliases.empty()) {
      std::printf("\n        formerly:");
      for (const std::string& a : v->aliases) std::printf(" %s", a.c_str());
    }
    if (!v->status.empty()) std::printf("\n        status: %s", v->status.c_str());
    std::printf("\n        tunings:");
    for (const Tuning& t : v->tunings) std::printf(" %s", t.name.c_str());
    std::printf("\n");
  }
}

}  // namespace

nlohmann::json list_json() {
  using json = nlohmann::json;
  json j = {{"schema", "nsbench.list/2"}, {"with_cuda", device::built_with_cuda()}, {"with_mpi", mpi::built_with_mpi()},
            {"solvers", json::array()}, {"stages", json::array()}, {"variants", json::array()},
            {"halo", json::array()}, {"recipes", json::array()}, {"cases", json::array()},
            {"poisson_methods", json::array()}};
  for (const std::string& m : option_choices("poisson")) j["poisson_methods"].push_back(m);  // the Poisson family's
  for (const SolverDef& s : SolverRegistry::instance().all()) {
    json recipes = json::array();
    for (const Recipe& r : builtin_recipes())
      if (r.solver == s.name && std::find(recipes.begin(), recipes.end(), r.name) == recipes.end()) recipes.push_back(r.name);
    j["solvers"].push_back({{"name", s.name}, {"description", s.description}, {"stages", s.stages},
                            {"sections", s.sections}, {"cases", s.cases}, {"recipes", recipes}});
    for (const std::string& c : s.cases) j["cases"].push_back({{"name", c}, {"solver", s.name}});
  }
  for (const StageKind& k : StageKindRegistry::instance().all()) {
    json flops = json::object();
    for (const std::string& w : k.workloads) flops[w] = k.flops_per_point(w);
    j["stages"].push_back({{"id", k.id()}, {"solver", k.solver}, {"name", k.name}, {"summary", k.summary},
                           {"reads", k.reads}, {"writes", k.writes}, {"workloads", k.workloads},
                           {"flops_per_point", flops}, {"tuning_axes", k.tuning_axes},
                           {"tag_vocabulary", k.tag_vocabulary}, {"default_gpu_variant", k.default_gpu_variant},
                           {"tolerance_float", k.tolerance<float>()}, {"tolerance_double", k.tolerance<double>()}});
  }
  for (const Variant& v : Registry::instance().all())
    j["variants"].push_back({{"id", v.id()}, {"solver", v.solver()}, {"stage", v.stage_name()}, {"name", v.name},
                             {"aliases", v.aliases}, {"backend", backend_name(v.backend)}, {"tags", v.tags},
                             {"tunings", tuning_names(v.tunings)},
                             {"status", v.status},
                             {"deterministic", v.determinism == Determinism::deterministic}});
  for (const HaloVariant& v : HaloRegistry::instance().all())
    j["halo"].push_back({{"name", v.name}, {"backend", backend_name(v.backend)}, {"driver", v.driver},
                         {"tags", v.tags}, {"tunings", tuning_names(v.tunings)}});
  for (const Recipe& r : builtin_recipes())
    j["recipes"].push_back({{"name", r.name}, {"solver", r.solver}, {"backend", backend_name(r.backend)},
                            {"gpu_model", r.gpu_model}, {"description", r.description}, {"poisson", r.poisson},
                            {"halo", r.halo}, {"launch", r.launch}, {"family_kernels", r.family_kernels}});
  return j;
}

namespace {

// " (poisson mg_graph:w130, launch graph)": what a recipe sets besides its stages, for the listing.
std::string solver_level_choices(const Recipe& r) {
  std::string out;
  const auto add = [&](const char* what, const std::string& value) {
    if (!value.empty()) out += (out.empty() ? " (" : ", ") + std::string(what) + " " + value;
  };
  add("poisson", r.poisson);
  add("halo", r.halo);
  add("launch", r.launch);
  for (const auto& [stage, choice] : r.family_kernels) add(stage.c_str(), choice);
  return out.empty() ? out : out + ")";
}

}  // namespace

void print_list(const std::string& stage, const std::string& tag) {
  std::string tk, tv;
  if (!tag.empty()) {
    const auto eq = tag.find('=');
    if (eq == std::string::npos) throw std::runtime_error("--tag wants KEY=VALUE, e.g. memory=shared");
    tk = tag.substr(0, eq), tv = tag.substr(eq + 1);
  }
  bool known = stage.empty() || stage == "halo";
  for (const StageKind& k : StageKindRegistry::instance().all()) known = known || stage_matches(stage, k.solver, k.name);
  if (!known) throw std::runtime_error("unknown stage '" + stage + "' (nsbench list shows the stages of every solver)");
  for (const SolverDef& s : SolverRegistry::instance().all()) {
    if (!stage.empty() && stage != "halo" && !StageKindRegistry::instance().find(s.name + "/" + stage) &&
        stage.rfind(s.name + "/", 0) != 0)
      continue;
    if (stage == "halo") break;
    std::printf("solver %s: %s\n  cases:", s.name.c_str(), s.description.c_str());
    for (const std::string& c : s.cases) std::printf(" %s", c.c_str());
    std::printf("\n");
    for (const StageKind* k : StageKindRegistry::instance().of_solver(s.name))
      if (stage_matches(stage, k->solver, k->name)) print_kind(k, tk, tv);
    std::printf("\n  recipes:\n");
    for (const Recipe& r : builtin_recipes())
      if (r.solver == s.name)
        std::printf("    %-18s %s%s%s\n", r.name.c_str(), r.gpu_model.empty() ? "" : ("[on " + r.gpu_model + "] ").c_str(),
                    r.description.c_str(), solver_level_choices(r).c_str());
    std::printf("\n");
  }
  // Stage families shared by solvers (e.g. tridiag/*): stage kinds whose solver name is no SolverDef.
  for (const StageKind& k : StageKindRegistry::instance().all())
    if (!SolverRegistry::instance().find(k.solver) && stage != "halo" && stage_matches(stage, k.solver, k.name)) {
      std::printf("stage family %s:", k.solver.c_str());
      print_kind(&k, tk, tv);
      std::printf("\n");
    }
  if (stage.empty() || stage == "halo") {
    std::printf("halo exchange variants, shared by the solvers (--halo NAME[:TUNING] with --ranks N or under mpirun):\n");
    for (const HaloVariant& v : HaloRegistry::instance().all()) {
      std::printf("  %-40s %-10s driver=%s", v.id().c_str(), backend_name(v.backend), v.driver.c_str());
      for (auto& [k, val] : v.tags) std::printf(" %s=%s", k.c_str(), val.c_str());
      std::printf("\n      tunings:");
      for (const Tuning& t : v.tunings) std::printf(" %s", t.name.c_str());
      std::printf("\n");
    }
  }
}

}  // namespace nsb
