#include "tune.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <stdexcept>

#include "device.hpp"
#include "halo.hpp"
#include "option_choices.hpp"
#include "run.hpp"
#include "run/result.hpp"
#include "stage_bench.hpp"
#include "tune_cache.hpp"
#include "tune_table.hpp"
#include "verify.hpp"

namespace nsb {

using json = nlohmann::json;

std::vector<std::size_t> ranked_passing(const std::vector<TuneCandidate>& c, std::size_t k) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i].verdict == "pass" && std::isfinite(c[i].median_s)) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return c[a].median_s < c[b].median_s; });
  if (idx.size() > k) idx.resize(k);
  return idx;
}

bool faster_beyond_noise(const TuneCandidate& a, const TuneCandidate& b) {
  const double noise = std::max(std::isfinite(a.iqr_s) ? a.iqr_s : 0.0, std::isfinite(b.iqr_s) ? b.iqr_s : 0.0);
  return b.median_s - a.median_s > noise;
}

namespace {

using Clock = std::chrono::steady_clock;

// The phases' shares of the budget, cumulative: the stage search stops starting candidates at 40% of it, the
// whole-step search at 80%; the confirmation always runs (a tuned recipe must be compared with the named ones).
constexpr double kStagePhaseEnd = 0.4, kStepPhaseEnd = 0.8;

// Wall time against the budget, and the progress lines on stderr.
class Budget {
 public:
  explicit Budget(double seconds) : seconds_(seconds), start_(Clock::now()) {}
  double used() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  bool open_until(double share) const { return used() < share * seconds_; }
  void progress(const char* phase, std::size_t n, std::size_t m, const std::string& what) const {
    std::fprintf(stderr, "tune: %s %zu/%zu: %s  (%.0f s of the %.0f s budget left)\n", phase, n, m, what.c_str(),
                 std::max(0.0, seconds_ - used()), seconds_);
  }

 private:
  double seconds_;
  Clock::time_point start_;
};

// A whole-step configuration: one variant:tuning per stage and the solver-level options, or a named recipe.
struct StepConfig {
  std::map<std::string, std::string> stages;  // stage -> "variant:tuning"
  std::string poisson, halo, launch = "stream";
  std::string named;  // a named recipe's name (its stages), or "" for a searched configuration
};

json config_json(const StepConfig& c) {
  json j = {{"stages", c.stages}, {"poisson", c.poisson}, {"halo", c.halo}, {"launch", c.launch}};
  if (!c.named.empty()) j["named_recipe"] = c.named;
  return j;
}

std::string options_label(const StepConfig& c) {
  return "launch=" + c.launch + " poisson=" + c.poisson + (c.halo.empty() ? "" : " halo=" + c.halo);
}

// A stage's candidates on backend b: every tuning of every variant of the kind that runs on b.
std::vector<std::pair<const Variant*, const Tuning*>> stage_candidates(const StageKind& k, Backend b) {
  std::vector<std::pair<const Variant*, const Tuning*>> out;
  for (const Variant* v : Registry::instance().of_stage(k.id()))
    if (v->backend == b)
      for (const Tuning& t : v->tunings) out.emplace_back(v, &t);
  return out;
}

// One stage candidate: timed at the run's grid on fixture fx (a launch that fails skips it, with the reason),
// then checked against the CPU reference on verify's grids.
template <class T>
TuneCandidate time_and_check(StageFixture<T>& fx, const StageKind& k, const Variant& v, const Tuning& t,
                             const TuneOptions& o, device::EventPool* ev) {
  TuneCandidate c{"stage", k.name, v.name + ":" + t.name, "", ""};
  const std::string workload = k.workloads.front();  // the plain workload (momentum: euler, the tuned runs' scheme)
  if (!k.runs(v, workload)) {
    c.verdict = "skipped";
    c.reason = "runs only the " + k.workload_requires_tag.at(workload).second + " workload, not the plain one";
    return c;
  }
  try {
    const json row = time_stage_call(fx, v, t, o.samples, o.stage_warmup, ev, NAN);
    c.median_s = row["median_s"].get<double>();
    c.iqr_s = row["iqr_s"].get<double>();
  } catch (const std::exception& e) {
    c.verdict = "skipped";
    c.reason = std::string("cannot launch at this grid: ") + e.what();
    try {
      if (v.backend == Backend::cuda) device::stream_sync(fx.stream());
    } catch (const std::exception&) {  // the launch's error again: already recorded
    }
    return c;
  }
  const VerifyResult r = verify_candidate<T>(k, v, t, workload);
  c.max_rel_diff = r.max_rel_diff;
  c.tolerance = r.tolerance;
  c.verdict = r.pass ? "pass" : "fail";
  if (!r.pass) c.reason = "check against the CPU reference at " + r.grid + ": " + r.message;
  return c;
}

// Phase 1: every stage's candidates, timed and checked; by stage, in the solver's step order.
template <class T>
std::map<std::string, std::vector<TuneCandidate>> search_stages(const SolverDef& solver, Backend b, const Grid& g,
                                                               const TuneOptions& o, const Budget& budget) {
  std::size_t total = 0, n = 0;
  for (const std::string& stage : solver.stages)
    total += stage_candidates(StageKindRegistry::instance().get(solver.name + "/" + stage), b).size();
  std::optional<device::EventPool> ev;
  if (b == Backend::cuda) ev.emplace(std::size_t(o.samples));
  std::map<std::string, std::vector<TuneCandidate>> out;
  for (const std::string& stage : solver.stages) {
    const StageKind& k = StageKindRegistry::instance().get(solver.name + "/" + stage);
    const auto candidates = stage_candidates(k, b);
    if (candidates.empty()) continue;
    const Grid kg = k.verify_grid ? k.verify_grid(g) : g;
    const auto fx = k.fixture<T>()(FixtureSpec{k.name, kg, b == Backend::cuda ? Backend::cuda : Backend::cpu_serial,
                                               k.workloads.front(), 1000, false});
    for (const auto& [v, t] : candidates) {
      budget.progress("stage", ++n, total, k.id() + "/" + v->name + ":" + t->name);
      if (!budget.open_until(kStagePhaseEnd)) {
        out[stage].push_back({"stage", k.name, v->name + ":" + t->name, "skipped", "the stage search's share of the budget was spent"});
        continue;
      }
      out[stage].push_back(time_and_check(*fx, k, *v, *t, o, ev ? &*ev : nullptr));
    }
  }
  return out;
}

RunOptions step_run_options(const TuneOptions& o, const SolverDef& solver, const StepConfig& c, bool check) {
  RunOptions r;
  r.case_options = o.case_options;
  r.solver_name = o.solver_name;
  r.precision = o.precision;
  r.backend = o.backend;
  r.ranks = o.ranks;
  r.steps = o.steps;
  r.warmup = o.warmup;
  r.solver = o.solver;
  if (!c.poisson.empty()) r.solver.poisson_method = c.poisson;
  r.halo = c.halo;
  r.launch = c.launch;
  r.check = check;
  r.progress = false;
  r.nvtx = false;
  r.command_line = o.command_line + "  (a whole-step timing of nsbench tune)";
  if (!c.named.empty()) {
    r.recipe = c.named;
    return r;
  }
  Recipe rec;
  rec.name = "tune-candidate";
  rec.solver = solver.name;
  rec.backend = parse_backend(o.backend);
  rec.source = "nsbench tune";
  for (const auto& [stage, choice] : c.stages) {
    const auto colon = choice.find(':');
    rec.stage[stage] = {choice.substr(0, colon), colon == std::string::npos ? "" : choice.substr(colon + 1)};
  }
  r.tuned_recipe = rec;
  return r;
}

// One configuration's whole steps, run in this process as `nsbench run` runs them: its step median and IQR,
// and the verdict of the run (an error names why it could not run; "fail": its reference check failed).
TuneCandidate time_step(const TuneOptions& o, const SolverDef& solver, const StepConfig& c, const char* phase,
                        const std::string& label, bool check) {
  TuneCandidate out{phase, "step", label, "", ""};
  out.config = config_json(c);
  try {
    const json result = run(step_run_options(o, solver, c, check));
    if (result.value("status", "") == "failed") {
      out.verdict = "error";
      out.reason = "the run failed: " + result["failure"].get<std::string>();
      return out;
    }
    out.median_s = result["timing"]["step"]["median"].get<double>();
    out.iqr_s = result["timing"]["step"]["iqr"].get<double>();
    for (const auto& [stage, st] : result["timing"]["stages"].items())  // the stages a step calls (stream launches)
      if (st.contains("per_step")) out.config["stage_seconds_per_step"][stage] = st["per_step"]["median"];
    const json& ref = result["checks"]["reference"];
    const bool checked = ref["performed"].get<bool>();
    const bool converged = result["checks"].value("poisson_converged", true);  // a tolerance reached within the cap
    out.verdict = (checked && !ref["pass"].get<bool>()) || !converged ? "fail" : "pass";
    if (!converged) out.reason = "the Poisson solve did not reach --jacobi-tol within --iterations: not the same job";
    else if (out.verdict == "fail") out.reason = "the run's check against the reference failed";
    else if (check && !checked) out.reason = "no whole-run reference check on this backend and rank count (its stages were checked)";
  } catch (const std::exception& e) {
    out.verdict = "error";
    out.reason = e.what();
  }
  return out;
}

// The solver-level axes around a stage choice: launch modes, halo variants, Poisson methods that apply.
std::vector<StepConfig> solver_level_configs(const StepConfig& base, const TuneOptions& o, Backend b) {
  std::vector<std::string> launches = {"stream"}, halos = {""}, methods = {o.solver.poisson_method};
  if (b == Backend::cuda && o.ranks == 1 && o.solver.jacobi_tol == 0) launches.push_back("graph");
  if (o.ranks > 1) {
    halos.clear();
    for (const HaloVariant& h : HaloRegistry::instance().all())
      if ((h.driver == "threads" || h.driver == "any") && (h.backend == Backend::cuda) == (b == Backend::cuda))
        halos.push_back(h.name);
  }
  if (o.solver.jacobi_tol > 0) {  // at a tolerance the methods do the same job: each, and the options its family
    methods = option_choices("poisson");  // offers for a search ("mg_graph:w130")
    for (const std::string& m : option_choices("poisson:tune")) methods.push_back(m);
  }
  std::vector<StepConfig> out;
  for (const std::string& launch : launches)
    for (const std::string& halo : halos)
      for (const std::string& method : methods) {
        StepConfig c = base;
        c.launch = launch, c.halo = halo, c.poisson = method;
        out.push_back(c);
      }
  return out;
}

// The stages the descent tries, most time a step first: those a step of `timed` called (a stage the case never
// calls, the cavity's obstacles, cannot change its time); every stage with a runner-up where it recorded none
// (graph launches time whole steps only).
std::vector<std::string> descent_order(const TuneCandidate& timed, const std::map<std::string, std::vector<std::size_t>>& ranked) {
  std::vector<std::pair<double, std::string>> by_time;
  const json per_step = timed.config.value("stage_seconds_per_step", json::object());
  for (const auto& [stage, idx] : ranked) {
    if (idx.size() < 2) continue;
    if (per_step.empty()) by_time.emplace_back(0.0, stage);
    else if (per_step.contains(stage)) by_time.emplace_back(-per_step[stage].get<double>(), stage);
  }
  std::stable_sort(by_time.begin(), by_time.end());
  std::vector<std::string> order;
  for (const auto& [minus_seconds, stage] : by_time) order.push_back(stage);
  return order;
}

struct Best {
  StepConfig config;
  TuneCandidate timing;
  bool found = false;
};

// Keeps c as the best where it passed and is faster (the first one passing, or faster beyond the noise).
void keep_if_faster(Best& best, const StepConfig& config, const TuneCandidate& c) {
  if (c.verdict != "pass" || !std::isfinite(c.median_s)) return;
  if (!best.found || faster_beyond_noise(c, best.timing)) best = {config, c, true};
}

// Phase 2: the solver-level axes exhaustively around the stages' winners, then a descent over each stage's
// runners-up, a swap kept where the step is faster beyond the noise.
Best search_steps(const TuneOptions& o, const SolverDef& solver, Backend b,
                  const std::map<std::string, std::vector<TuneCandidate>>& stages, std::vector<TuneCandidate>& table,
                  const Budget& budget) {
  StepConfig winners;
  std::map<std::string, std::vector<std::size_t>> ranked;
  for (const auto& [stage, cands] : stages) {
    ranked[stage] = ranked_passing(cands, std::size_t(std::max(1, o.top_k)));
    if (!ranked[stage].empty()) winners.stages[stage] = cands[ranked[stage].front()].label;
    else table.push_back({"stage", stage, "(none chosen)", "skipped", "no candidate of this stage passed: the recipe "
                          "leaves the stage out, so a run takes the stage kind's default for the backend"});
  }
  const std::vector<StepConfig> axes = solver_level_configs(winners, o, b);
  std::size_t n = 0;
  Best best;
  const std::size_t first_row = table.size();  // the first configuration: stream launches, per-stage times
  for (const StepConfig& c : axes) {
    budget.progress("step", ++n, axes.size(), options_label(c));
    if (best.found && !budget.open_until(kStepPhaseEnd)) break;  // the first configuration always runs
    table.push_back(time_step(o, solver, c, "step", options_label(c), false));
    keep_if_faster(best, c, table.back());
  }
  if (!best.found) return best;
  const std::vector<std::string> order = descent_order(table[first_row], ranked);
  std::size_t total = 0;
  for (const std::string& stage : order) total += ranked.at(stage).size() - 1;
  n = 0;
  for (const std::string& stage : order)
    for (std::size_t i = 1; i < ranked.at(stage).size() && budget.open_until(kStepPhaseEnd); ++i) {
      StepConfig c = best.config;
      c.stages[stage] = stages.at(stage)[ranked.at(stage)[i]].label;
      const std::string label = options_label(c) + " " + stage + "=" + c.stages[stage];
      budget.progress("descent", ++n, total, label);
      table.push_back(time_step(o, solver, c, "step", label, false));
      keep_if_faster(best, c, table.back());
    }
  return best;
}

// A named recipe as a configuration: its stages resolved (every stage's variant:tuning), the run's defaults.
StepConfig named_config(const std::string& solver, const std::string& name, const TuneOptions& o) {
  StepConfig c;
  c.named = name;
  c.poisson = o.solver.poisson_method;
  for (const auto& [stage, rs] : resolve(find_recipe(solver, name), {}).stage)
    c.stages[stage] = rs.variant->name + ":" + rs.tuning.name;
  return c;
}

// The solver's named recipes of backend b, each name once (find_recipe picks this GPU's where there is one).
std::vector<std::string> named_recipes(const std::string& solver, Backend b) {
  std::vector<std::string> names;
  for (const Recipe& r : builtin_recipes())
    if (r.solver == solver && r.backend == b && std::find(names.begin(), names.end(), r.name) == names.end())
      names.push_back(r.name);
  return names;
}

// Phase 3: the search's choice, checked, against every named recipe; the fastest beyond the noise wins. A
// choice whose check fails gives way to the fastest named recipe that ran.
Best confirm(const TuneOptions& o, const SolverDef& solver, Backend b, const Best& searched,
             std::vector<TuneCandidate>& table, const Budget& budget) {
  const std::vector<std::string> names = named_recipes(solver.name, b);
  std::size_t n = 0;
  Best chosen;
  if (searched.found) {
    budget.progress("confirm", ++n, names.size() + 1, "the search's choice, " + options_label(searched.config));
    table.push_back(time_step(o, solver, searched.config, "confirm", "search: " + options_label(searched.config), o.check));
    keep_if_faster(chosen, searched.config, table.back());
  }
  for (const std::string& name : names) {
    budget.progress("confirm", ++n, names.size() + 1, "named recipe " + name);
    StepConfig c;
    try {
      c = named_config(solver.name, name, o);
    } catch (const std::exception& e) {
      table.push_back({"named", "step", name, "error", e.what()});
      continue;
    }
    table.push_back(time_step(o, solver, c, "named", name, false));
    keep_if_faster(chosen, c, table.back());
  }
  return chosen;
}

// The stages' rows in the solver's step order, then the steps' and the confirmation's.
std::vector<TuneCandidate> stage_rows(const SolverDef& solver, const std::map<std::string, std::vector<TuneCandidate>>& stages) {
  std::vector<TuneCandidate> rows;
  for (const std::string& stage : solver.stages)
    if (stages.count(stage)) rows.insert(rows.end(), stages.at(stage).begin(), stages.at(stage).end());
  return rows;
}

json key_json(const TuneKey& k) {
  return {{"machine", k.machine}, {"driver", k.driver}, {"solver", k.solver}, {"backend", k.backend},
          {"precision", k.precision}, {"grid_class", k.grid_class}, {"ranks", k.ranks}};
}

// What the recipe file records of how it was made.
json provenance(const TuneOptions& o, const TuneKey& key, const Best& chosen, double seconds) {
  const CaseOptions& g = o.case_options;
  const std::string named = chosen.config.named;
  return {{"key", key_json(key)},
          {"grid", {{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}}},
          {"chosen", named.empty() ? "the search's choice" : "named recipe " + named + ", faster beyond the noise"},
          {"step_median_s", chosen.timing.median_s},
          {"step_iqr_s", chosen.timing.iqr_s},
          {"steps", o.steps},
          {"iterations", o.solver.jacobi_iterations},
          {"jacobi_tol", o.solver.jacobi_tol},
          {"tune_seconds", seconds},
          {"timestamp", now_utc()},
          {"command_line", o.command_line},
          {"candidates", "candidates.json"}};
}

void write_text(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f || std::fputs(text.c_str(), f) < 0 || std::fclose(f) != 0)
    throw std::runtime_error("cannot write " + path);
}

// The `nsbench run` command that uses the tuned recipe.
std::string run_command_text(const TuneOptions& o, const Grid& g, const std::string& cache) {
  std::string cmd = "nsbench run --recipe tuned --case " + o.case_options.name;
  if (!o.solver_name.empty()) cmd += " --solver " + o.solver_name;
  cmd += " --grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) + " --precision " +
         o.precision + " --backend " + o.backend;
  if (o.ranks > 1) cmd += " --ranks " + std::to_string(o.ranks);
  if (cache != default_tune_cache()) cmd += " --tune-cache " + cache;
  return cmd;
}

// The confirmation's rows on stdout, the choice, where it went and how to use it.
void print_outcome(const std::vector<TuneCandidate>& table, const Best& chosen, const std::string& recipe_path,
                   const std::string& folder, const std::string& run_command) {
  std::printf("\nwhole step, same grid and steps, this process (median and IQR, ms):\n");
  for (const TuneCandidate& c : table)
    if (c.phase == "confirm" || c.phase == "named")
      std::printf("  %-8s %-60s %10.4f  IQR %8.4f  %s%s%s\n", c.phase.c_str(), c.label.c_str(), c.median_s * 1e3,
                  c.iqr_s * 1e3, c.verdict.c_str(), c.reason.empty() ? "" : ": ", c.reason.c_str());
  std::printf("tuned: %s, step %.4f ms (IQR %.4f)\n", chosen.config.named.empty() ? "the search's choice"
                                                          : ("named recipe " + chosen.config.named).c_str(),
              chosen.timing.median_s * 1e3, chosen.timing.iqr_s * 1e3);
  std::printf("  recipe:     %s\n  candidates: %s/candidates.json, %s/candidates.md\n", recipe_path.c_str(),
              folder.c_str(), folder.c_str());
  std::printf("use it (any grid of the same class): %s\n", run_command.c_str());
}

// The verdict a result file carries (a study's report reads checks.reference): the confirmation's run of the
// search's choice, with the run's reference check; every stage candidate was checked on verify's grids before.
json confirmation_check(const std::vector<TuneCandidate>& table) {
  for (const TuneCandidate& c : table)
    if (c.phase == "confirm") {
      const bool performed = (c.verdict == "pass" || c.verdict == "fail") && c.reason.rfind("no whole-run", 0) != 0;
      json ref = {{"performed", performed},
                  {"against", "the search's choice, whole steps against the CPU reference (the tune's confirmation); "
                              "every stage candidate was checked against the CPU reference before its time counted"}};
      if (performed) ref["pass"] = c.verdict == "pass";
      else ref["reason"] = c.reason.empty() ? c.verdict : c.reason;
      return ref;
    }
  return {{"performed", false}, {"reason", "no confirmation run"}};
}

template <class T>
json tune_typed(const TuneOptions& o, const SolverDef& solver, const Grid& g, Backend b) {
  const Budget budget(o.budget_s);
  Grid stage_grid = g;  // a rank's slab: what each stage call of a decomposed run works on
  stage_grid.nz = (g.nz + o.ranks - 1) / o.ranks;
  const auto stages = search_stages<T>(solver, b, stage_grid, o, budget);
  std::vector<TuneCandidate> table = stage_rows(solver, stages);
  const Best searched = search_steps(o, solver, b, stages, table, budget);
  const Best chosen = confirm(o, solver, b, searched, table, budget);
  const CaseOptions& asked = o.case_options;  // the grid as --grid gives it (what run --recipe tuned keys on)
  const TuneKey key = tune_key(solver.name, b, o.precision, asked.nx, asked.ny, asked.nz, o.ranks);
  const std::string cache = o.cache_dir.empty() ? default_tune_cache() : o.cache_dir;
  const std::string folder = cache + "/" + tune_key_folder(key);
  std::filesystem::create_directories(folder);
  json candidates = json::array();
  for (const TuneCandidate& c : table) candidates.push_back(candidate_json(c));
  const json table_json = {{"schema", "nsbench.tune/1"}, {"key", key_json(key)}, {"command_line", o.command_line},
                           {"timestamp", now_utc()}, {"budget_s", o.budget_s}, {"seconds", budget.used()},
                           {"candidates", candidates}};
  write_json(folder + "/candidates.json", table_json, true);
  write_text(folder + "/candidates.md", candidates_markdown(table, "nsbench tune: " + solver.name + ", " + key.backend +
                                                                       " (" + key.machine + "), " + o.precision + ", " +
                                                                       key.grid_class + " class"));
  const std::string recipe_path = tuned_recipe_path(cache, key);
  if (!chosen.found) {
    std::filesystem::remove(recipe_path);  // an earlier tune's recipe must not outlive this verdict
    throw std::runtime_error("nsbench tune: no configuration ran and passed its check, so no recipe was written; "
                             "every candidate's verdict: " + folder + "/candidates.md");
  }
  const json recipe = tuned_recipe_file(solver.name, key.backend, config_json(chosen.config),
                                        provenance(o, key, chosen, budget.used()));
  write_json(recipe_path, recipe, true);
  print_outcome(table, chosen, recipe_path, folder,
                run_command_text(o, {asked.nx, asked.ny, asked.nz, 1, 1, 1}, cache));
  json outcome = table_json;  // the candidates file's fields, and what a study's result file (--json) adds
  outcome.update({{"recipe_file", recipe_path}, {"table_file", folder + "/candidates.json"}, {"recipe", recipe},
                  {"tuned", recipe["recipes"][0]["tuned"]}, {"checks", {{"reference", confirmation_check(table)}}}});
  return outcome;
}

void check_tune_options(const TuneOptions& o, Backend b) {
  if (o.precision != "float" && o.precision != "double")
    throw std::runtime_error("unknown --precision '" + o.precision + "'; known: float double");
  if (b == Backend::cuda && device::count() == 0)
    throw std::runtime_error("nsbench tune --backend cuda: " + device::unavailable_reason() +
                             " (--backend cpu_omp or cpu_serial tunes the CPU variants)");
  if (o.samples < 3) throw std::runtime_error("--samples must be at least 3");
  if (o.steps < 3) throw std::runtime_error("--steps must be at least 3 (a median and IQR of whole steps)");
  if (o.ranks < 1) throw std::runtime_error("--ranks must be at least 1");
  if (!(o.budget_s > 0)) throw std::runtime_error("--budget must be positive (seconds)");
  if (o.top_k < 1) throw std::runtime_error("--top-k must be at least 1");
}

}  // namespace

json tune(const TuneOptions& o) {
  const Backend b = parse_backend(o.backend);
  check_tune_options(o, b);
  const SolverDef& solver = SolverRegistry::instance().of_run(o.solver_name, o.case_options.name);
  const Grid g = solver.make_problem(o.case_options)->grid();  // the case refuses a grid it cannot take, here
  std::fprintf(stderr, "tune: %s solver, case %s, grid %dx%dx%d, %s, %s, %d rank(s), budget %.0f s\n",
               solver.name.c_str(), o.case_options.name.c_str(), g.nx, g.ny, g.nz, o.precision.c_str(),
               backend_name(b), o.ranks, o.budget_s);
  return o.precision == "float" ? tune_typed<float>(o, solver, g, b) : tune_typed<double>(o, solver, g, b);
}

}  // namespace nsb
