#include "recipe.hpp"

#include <stdexcept>

namespace nsb {

namespace {
Recipe uniform(const std::string& name, const std::string& desc, const std::string& variant) {
  Recipe r{name, desc, {}};
  for (auto& s : r.stage) s.variant = variant;
  return r;
}

Recipe gpu(const std::string& name, const std::string& desc, const std::string& momentum,
           const std::string& pressure, const std::string& simple, const std::string& reduce) {
  Recipe r{name, desc, {}};
  auto set = [&](StageKind k, const std::string& choice) {
    const auto colon = choice.find(':');
    r.stage[std::size_t(k)] = {choice.substr(0, colon), colon == std::string::npos ? "" : choice.substr(colon + 1)};
  };
  set(StageKind::momentum, momentum);
  set(StageKind::pressure, pressure);
  set(StageKind::velocity_bc, simple);
  set(StageKind::pressure_bc, simple);
  set(StageKind::divergence, simple);
  set(StageKind::correction, simple);
  set(StageKind::reduce, reduce);
  return r;
}
Recipe best_h200() {
  Recipe r = gpu("best",
                 "fastest measured variant per stage on an H200 (results/harness/nvidia-h200; momentum: "
                 "results/session3-nvidia-h200-x2)",
                 "register_zmarch:bx64_by4_sz16", "jacobi_global_2d_zloop:bx64_by4_sz16", "global_2d:bx64_by4_sz16",
                 "buffer_two_pass:b256");
  r.stage[std::size_t(StageKind::correction)] = {"global_1d", "b256"};
  r.stage[std::size_t(StageKind::velocity_bc)] = {"global_2d", "bx8_by8"};
  r.stage[std::size_t(StageKind::pressure_bc)] = {"global_2d", "bx16_by16"};
  return r;
}
}  // namespace

const std::vector<Recipe>& builtin_recipes() {
  static const std::vector<Recipe> recipes = {
      uniform("cpu-serial", "CPU reference, one thread", "cpu_serial"),
      uniform("cpu-omp", "CPU reference, OpenMP over all cores (or --threads)", "cpu_omp"),
      gpu("thibault-global",
          "every kernel in global memory, thesis 2D thread blocks of 16x16 walking 2 z-levels (Fig. 4.5 'global')",
          "global_2d_zloop:bx16_by16_sz2", "jacobi_global_2d_zloop:bx16_by16_sz2", "global_2d", "buffer_two_pass"),
      gpu("thibault-optimal",
          "shared-memory momentum and pressure, global memory elsewhere (thesis Fig. 4.5 'optimal')",
          "shared_zloop:bx16_by16_sz2", "jacobi_shared_zloop:bx16_by16_sz2", "global_2d", "buffer_two_pass"),
      gpu("modern",
          "z-marching momentum (3-plane shared ring) and register-column Jacobi, 32-wide blocks",
          "shared_zmarch", "jacobi_register_zmarch", "global_2d", "cub"),
      // The fastest variant and tuning of each stage in results/harness/nvidia-h200/stages_*_float.json
      // (H200, float, 256x32x256 and 512^3): wide, shallow 2D blocks walking z in global memory.
      best_h200(),
  };
  return recipes;
}

const Recipe& find_recipe(const std::string& name) {
  for (const Recipe& r : builtin_recipes())
    if (r.name == name) return r;
  std::string known;
  for (const Recipe& r : builtin_recipes()) known += " " + r.name;
  throw std::runtime_error("unknown recipe '" + name + "'; known recipes:" + known);
}

const Recipe& cpu_recipe(Backend b) { return find_recipe(b == Backend::cpu_omp ? "cpu-omp" : "cpu-serial"); }

ResolvedRecipe resolve(const Recipe& base, const std::vector<std::string>& overrides) {
  Recipe r = base;
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    StageKind kind;
    if (eq == std::string::npos || !parse_stage(o.substr(0, eq), kind))
      throw std::runtime_error("bad --stage '" + o +
                               "': expected STAGE=VARIANT[:TUNING] with STAGE one of momentum, velocity_bc, "
                               "divergence, pressure, pressure_bc, correction, reduce");
    const std::string rest = o.substr(eq + 1);
    const auto colon = rest.find(':');
    r.stage[std::size_t(kind)] = {rest.substr(0, colon), colon == std::string::npos ? "" : rest.substr(colon + 1)};
    r.name = base.name + "+";
  }
  ResolvedRecipe out;
  out.name = r.name;
  for (int s = 0; s < int(StageKind::count); ++s) {
    const StageChoice& c = r.stage[s];
    const Variant* v = Registry::instance().find(StageKind(s), c.variant);
    if (!v) {
      std::string msg = "recipe '" + r.name + "': ";
      try {
        Registry::instance().get(StageKind(s), c.variant);
      } catch (const std::exception& e) {
        msg += e.what();
      }
      if (!device::built_with_cuda()) msg += " (this build has no CUDA variants)";
      throw std::runtime_error(msg);
    }
    ResolvedStage& rs = out.stage[s];
    rs.variant = v;
    if (c.tuning.empty()) {
      rs.tuning = v->tunings.front();
    } else if (const Tuning* t = v->find_tuning(c.tuning)) {
      rs.tuning = *t;
    } else {
      std::string known;
      for (const Tuning& known_tuning : v->tunings) known += " " + known_tuning.name;
      throw std::runtime_error("unknown tuning '" + c.tuning + "' for " + v->id() + "; known:" + known);
    }
  }
  out.backend = out.stage[0].variant->backend;
  for (const ResolvedStage& rs : out.stage) {
    const bool both_cpu = rs.variant->backend != Backend::cuda && out.backend != Backend::cuda;
    if (rs.variant->backend != out.backend && !both_cpu)
      throw std::runtime_error("recipe '" + r.name + "' mixes backends: " + rs.variant->id() + " runs on " +
                               backend_name(rs.variant->backend) + ", momentum on " + backend_name(out.backend));
  }
  return out;
}

}  // namespace nsb
