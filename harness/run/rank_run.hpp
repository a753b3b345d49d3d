// One rank's run (every rank calls it; a run without decomposition is one rank): the timed loop, then
// rank 0 gathers the timings and the final state, checks them and assembles the result; other ranks
// return null.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "device.hpp"
#include "halo.hpp"
#include "placement.hpp"
#include "run.hpp"  // print_summary
#include "run/reference_plan.hpp"
#include "run/result.hpp"
#include "run/timed_loop.hpp"

namespace nsb {

// How the ranks come by their parts of the initial state (run.decomposition.initial_state).
enum class InitialStatePath {
  whole_grid,            // one rank: the whole state is its part
  whole_grid_on_rank_0,  // MPI: rank 0 builds the whole state and sends each rank its slab (scatter_from_root)
  whole_grid_shared,     // threads: one whole state in the process, each rank cuts its slab
  per_slab,              // MPI: each rank builds its own slab (Problem::initial_slab); no process builds the whole grid
};
inline const char* initial_state_path_name(InitialStatePath p) {
  constexpr const char* names[] = {"whole_grid", "whole_grid_on_rank_0", "whole_grid_shared", "per_slab"};
  return names[int(p)];
}

// Everything the rank functions share about the run.
struct RunSetup {
  const RunOptions& options;
  const SolverDef& solver;
  const Problem& problem;
  const ResolvedRecipe& recipe;
  SolverOptions solver_options;  // threads resolved
  ReferencePlan reference = {};  // a decomposed run's reference check (run/ranks.cpp plan_reference)
  InitialStatePath initial_state = InitialStatePath::whole_grid;  // run/ranks.cpp initial_state_path
};

template <class T>
HostState<T> scatter_state(const HostState<T>& whole, const Grid& local, const Slab& s) {
  HostState<T> out{local, {}, whole.step, whole.time};
  for (const auto& [name, values] : whole.fields) out.fields.emplace_back(name, scatter_slab(values, whole.grid, s));
  return out;
}

// Every rank's slab of the whole state that only rank 0 holds (the MPI driver: the other processes never build
// the whole grid, so a node's memory holds one rank's slab a process, not the whole grid a process). Rank 0
// sends the field names, step and time, then each rank its slab of each field.
template <class T>
HostState<T> scatter_from_root(Communicator& comm, const std::vector<Slab>& slabs, const HostState<T>& whole) {
  const bool root = comm.rank() == 0;
  std::string header = root ? nlohmann::json{{"step", whole.step}, {"time", whole.time}, {"fields", [&] {
    std::vector<std::string> names;
    for (const auto& f : whole.fields) names.push_back(f.first);
    return names;
  }()}}.dump() : std::string();
  std::uint64_t header_bytes = header.size();
  comm.broadcast(&header_bytes, sizeof header_bytes, 0);
  header.resize(header_bytes);
  comm.broadcast(header.data(), header_bytes, 0);
  const nlohmann::json h = nlohmann::json::parse(header);
  const Slab& mine = slabs[std::size_t(comm.rank())];
  HostState<T> out{slab_grid(whole.grid, mine), {}, h["step"].get<int>(), h["time"].get<double>()};
  for (const std::string& name : h["fields"].get<std::vector<std::string>>()) {
    std::vector<std::vector<T>> parts;  // rank 0: every rank's slab (its own is kept)
    std::vector<Communicator::Send> sends;
    std::vector<T> received;
    std::vector<Communicator::Recv> recvs;
    if (root) {
      for (const Slab& sl : slabs) parts.push_back(scatter_slab(whole.field(name), whole.grid, sl));
      for (std::size_t r = 1; r < slabs.size(); ++r) sends.push_back({int(r), parts[r].data(), parts[r].size() * sizeof(T)});
    } else {
      received.assign(out.grid.padded_points(), T(0));
      recvs.push_back({0, received.data(), received.size() * sizeof(T)});
    }
    comm.neighbour_exchange(sends, recvs);
    out.fields.emplace_back(name, root ? std::move(parts[0]) : std::move(received));
  }
  return out;
}

// This rank's part of the whole initial state: under the MPI driver, sent by rank 0 (scatter_from_root); under the
// threads driver, cut from the whole state the ranks share.
template <class T>
HostState<T> my_part(const RankContext& ctx, const HostState<T>& start) {
  if (ctx.comm->driver() == "mpi") return scatter_from_root(*ctx.comm, ctx.slabs, start);
  return scatter_state(start, slab_grid(start.grid, ctx.slab()), ctx.slab());
}

// Gathers the ranks' slabs of every field into the whole padded fields on rank 0 (one rank: its state,
// moved, not copied: fields of a large grid are GBs).
template <class T>
HostState<T> gather_state(Communicator& comm, const std::vector<Slab>& slabs, const Grid& global, HostState<T> local) {
  if (slabs.size() == 1) return local;
  HostState<T> out{global, {}, local.step, local.time};
  for (const auto& [name, values] : local.fields) {
    const std::vector<std::vector<char>> parts = comm.gather(values.data(), values.size() * sizeof(T), 0);
    if (comm.rank() != 0) continue;
    std::vector<T> whole(global.padded_points(), T(0));
    for (std::size_t r = 0; r < parts.size(); ++r)  // the message's bytes are the slab's values (a slab is GBs: no copy)
      gather_slab(whole, global, slabs[r], reinterpret_cast<const T*>(parts[r].data()));
    out.fields.emplace_back(name, std::move(whole));
  }
  return out;
}

// `steps` steps of a recipe from a state, untimed, on one rank (the reference runs).
template <class T>
HostState<T> run_steps(const Problem& p, const ResolvedRecipe& r, const SolverOptions& o, const HostState<T>& start, int steps) {
  const std::unique_ptr<Solver<T>> s = p.make_solver(Precision<T>{}, r, o, nullptr);
  s->load(start);
  for (int i = 0; i < steps; ++i) s->step();
  return s->save();
}

// A decomposed run's down-scaled twin (s.reference.twin): the same recipe, ranks, GPUs and halo variant on the
// twin's grid, the same steps; every rank runs its slab (collectives: every rank calls this). Rank 0 builds the
// twin's whole initial state (small by construction) and sends every rank its slab, as for the run itself; it gets
// back the twin's initial and gathered final states for its one-rank reference (other ranks: empty states).
template <class T>
struct TwinRun {
  HostState<T> start, fin;
};
template <class T>
TwinRun<T> run_down_scaled_twin(const RunSetup& s, const RankContext& ctx, int end_step) {
  const Problem& p = *s.reference.twin;
  RankContext twin = ctx;  // the run's ranks, GPUs and halo variant; the twin's slabs (the solver sets grid and stream)
  twin.slabs = s.reference.twin_slabs;
  TwinRun<T> out;
  out.start = twin.rank == 0 ? p.initial_state(Precision<T>{}) : HostState<T>{p.grid(), {}, 0, 0};
  HostState<T> mine;
  {
    const std::unique_ptr<Solver<T>> solver = p.make_solver(Precision<T>{}, s.recipe, s.solver_options, &twin);
    HostState<T> part = scatter_from_root(*twin.comm, twin.slabs, out.start);
    const int steps = end_step - part.step;  // the run's steps: both initial states are the case's, at the same step
    solver->load(part);
    for (int i = 0; i < steps; ++i) solver->step();
    mine = solver->save();
  }
  out.fin = gather_state(*twin.comm, twin.slabs, p.grid(), std::move(mine));
  return out;
}

// The check of a decomposed run against its down-scaled twin: the twin's decomposed final state (gathered) against
// the twin's one-rank run of the same recipe and steps. Says so: against, down_scaled_grid and down_scaled.
template <class T>
nlohmann::json down_scaled_check(const RunSetup& s, const TwinRun<T>& twin, double tol, int ranks) {
  const ReferencePlan& plan = s.reference;
  const std::string why = "the one-rank reference of the whole grid needs " + std::to_string(plan.one_rank_bytes >> 20) +
                          " MiB, more than the " + std::to_string(plan.memory.bytes >> 20) + " MiB of " + plan.memory.source;
  if (!plan.twin)
    return {{"performed", false}, {"reason", why + "; no down-scaled twin could be made: " + plan.why_no_twin},
            {"down_scaled", plan.json()}};
  const HostState<T> r = run_steps<T>(*plan.twin, s.recipe, s.solver_options, twin.start, twin.fin.step - twin.start.step);
  bool pass = false;
  nlohmann::json fields = compare_states(twin.fin, r, tol, pass);
  return {{"performed", true},
          {"against", "a down-scaled twin (" + why + "): the same recipe on " + std::to_string(ranks) + " ranks on grid " +
                          cells_text(plan.twin_cells) + " against its run on one rank, same steps"},
          {"down_scaled_grid", cells_text(plan.twin_cells)}, {"down_scaled", plan.json()}, {"steps", twin.fin.step},
          {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
}

// The reference of a run: the CPU for a single GPU, the undecomposed run of the same recipe for
// several ranks, or for several ranks whose one-rank run would not fit one process, a down-scaled twin (`twin`).
template <class T>
nlohmann::json reference_check(const RunSetup& s, const HostState<T>& start, const HostState<T>& fin, int ranks,
                               const TwinRun<T>& twin) {
  const bool gpu = s.recipe.backend == Backend::cuda;
  nlohmann::json ref = {{"performed", false}};
  const SolverOptions& o = s.solver_options;
  const double tol = reference_tolerance<T>(s.solver.pressure_method ? s.solver.pressure_method(o) : o.poisson_method);
  try {
    const int steps = fin.step - start.step;
    bool pass = false;
    if (ranks > 1 && s.options.check && s.reference.down_scaled) {
      ref = down_scaled_check(s, twin, tol, ranks);
    } else if (ranks > 1 && s.options.check) {
      const HostState<T> r = run_steps<T>(s.problem, s.recipe, s.solver_options, start, steps);
      nlohmann::json fields = compare_states(fin, r, tol, pass);
      ref = {{"performed", true}, {"against", "the same recipe on one rank (no decomposition), same steps"},
             {"steps", fin.step}, {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
    } else if (gpu && s.options.check) {
      SolverOptions reference_options = s.solver_options;
      reference_options.threads = 0;  // every core: the reference of a large GPU run is the slow part
      const ResolvedRecipe cpu = resolve(cpu_recipe(s.solver.name, Backend::cpu_omp), {});
      const HostState<T> r = run_steps<T>(s.problem, cpu, reference_options, start, steps);
      nlohmann::json fields = compare_states(fin, r, tol, pass);
      ref = {{"performed", true}, {"against", "cpu_omp reference, same initial state and step count"},
             {"steps", fin.step}, {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
    } else {
      ref["reason"] = !gpu && ranks == 1 ? "this run is the CPU reference" : "skipped by --no-check";
    }
  } catch (const std::exception& e) {  // e.g. the whole grid does not fit one GPU
    ref = {{"performed", false}, {"reason", std::string("the reference run could not be made: ") + e.what()}};
  }
  return ref;
}

// Non-finite values in the final state, counted per field: a run that blew up is a failed run, never
// a result (its errors would read as 0: NaN compares false).
template <class T>
nlohmann::json finite_check(const HostState<T>& s, int step) {
  nlohmann::json counts = nlohmann::json::object();
  std::string bad;
  for (const auto& [name, values] : s.fields) {
    const T* v = values.data();
    const std::ptrdiff_t size = std::ptrdiff_t(values.size());
    std::ptrdiff_t n = 0;
#pragma omp parallel for reduction(+ : n) schedule(static)  // a large grid: hundreds of millions of values a field
    for (std::ptrdiff_t i = 0; i < size; ++i) n += std::isfinite(double(v[i])) ? 0 : 1;
    counts[name] = n;
    if (n > 0) bad += (bad.empty() ? "" : ", ") + name + " (" + std::to_string(n) + " of " + std::to_string(values.size()) + ")";
  }
  nlohmann::json j = {{"pass", bad.empty()}, {"non_finite_values", counts}};
  if (!bad.empty())
    j["detail"] = "non-finite values (NaN or Inf) after step " + std::to_string(step) + " in " + bad +
                  ": the scheme blew up (time step too large? a run with fewer --steps shows when)";
  return j;
}

// A diverged scheme need not reach NaN: an explicit step far past its limit grows the state by a factor
// each step, and a short run ends finite with speeds of 1e8 or 1e47 (a Re 100 cavity, a channel). The
// flows of these cases stay near their velocity scale (a lid's speed; overshoots of a few tens of per cent),
// so a speed over kBlowUpFactor times it is a blow-up, never a flow.
inline constexpr double kBlowUpFactor = 100;

// The velocity scale of a case (its description's "velocity_scale": a lid's, a channel's centre line's, a
// vortex's speed; 0 where it names none) and the state's velocity fields.
struct VelocityScale {
  double speed = 0;
  std::vector<std::string> fields{"u", "v", "w"};
};
inline VelocityScale velocity_scale_of(const nlohmann::json& description) {
  return {description.value("velocity_scale", 0.0)};
}

template <class T>
nlohmann::json bounded_check(const HostState<T>& s, const VelocityScale& scale, int step) {
  if (!(scale.speed > 0)) return {{"performed", false}, {"reason", "the case names no velocity scale"}};
  const double bound = kBlowUpFactor * scale.speed;
  double largest = 0;
  std::string where;
  for (const std::string& name : scale.fields) {
    if (!s.has(name)) continue;
    const std::vector<T>& values = s.field(name);
    const T* v = values.data();
    const std::ptrdiff_t size = std::ptrdiff_t(values.size());
    double m = 0;
#pragma omp parallel for reduction(max : m) schedule(static)
    for (std::ptrdiff_t i = 0; i < size; ++i) m = std::max(m, std::fabs(double(v[i])));
    if (m > largest) largest = m, where = name;
  }
  const bool pass = largest <= bound;
  nlohmann::json j = {{"performed", true}, {"pass", pass}, {"max_abs_velocity", largest}, {"bound", bound},
                      {"velocity_scale", scale.speed}, {"factor", kBlowUpFactor}, {"fields", scale.fields}};
  if (!pass) {
    char text[256];
    std::snprintf(text, sizeof text, "the state diverged: max |%s| = %.3g after step %d, over the bound %g "
                  "(%g x the case's velocity scale %g): the scheme blew up (time step too large?)",
                  where.c_str(), largest, step, bound, kBlowUpFactor, scale.speed);
    j["detail"] = text;
  }
  return j;
}

// Registers, shared and local memory of the kernels the recipe's tunings run.
inline nlohmann::json kernel_report(const ResolvedRecipe& r, int elem_bytes) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const auto& [stage, rs] : r.stage)
    for (nlohmann::json k : kernels_run(*rs.variant, rs.tuning, elem_bytes)) {
      const std::string name = k["name"];
      k.erase("name");
      kernels[rs.variant->id() + ":" + name] = k;
    }
  return kernels;
}

// Per section of the solver: per-call and per-step statistics, and for stages the byte and flop model
// of the largest slab (rank 0's: the slowest rank's work) turned into achieved rates.
struct SectionModels {
  std::vector<WorkModel> largest;    // rank 0's model per section (the largest slab: uneven ones go first)
  std::vector<double> halo_bytes;    // the busiest rank's bytes per call per section
  std::vector<double> flops_whole;   // the whole grid's flops per call per section (sum over ranks)
  std::vector<double> calls_default; // calls a step makes (graph mode)
};

nlohmann::json stage_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m, double ceiling,
                            bool graph, double& flops_per_step);
nlohmann::json halo_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m, const Summary& step,
                           const RankContext& ctx);
nlohmann::json other_section_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m);
nlohmann::json run_description(const RunSetup& s, int threads, int timed, const std::string& stop_reason,
                               double final_time, double wall, double last_change);
// The decomposition block: every rank's slab, host and GPU; oversubscribed when two ranks drive one physical GPU.
nlohmann::json decomposition_json(const RankContext& ctx, const std::vector<RankPlacement>& placements,
                                  const nlohmann::json& halo_details);
nlohmann::json timing_method(bool graph, bool gpu, int steps_per_graph);

// Whether the reference check reads the initial state again: a decomposed run's one-rank run of the whole grid (not
// a down-scaled twin, which has its own), and a single GPU's CPU reference.
inline bool reference_check_runs(const RunSetup& s, int ranks) {
  return s.options.check && (ranks > 1 ? !s.reference.down_scaled : s.recipe.backend == Backend::cuda);
}

// The result's header on rank 0: when, how it was called, the machine (with the GPU's copy bandwidth, which every
// stage's fraction is measured against) and the build.
inline nlohmann::json result_header(const RunSetup& s, bool gpu, device::CopyBandwidth& copy) {
  nlohmann::json result;
  result["schema"] = "nsbench.run/2";
  result["timestamp"] = now_utc();
  result["command_line"] = s.options.command_line;
  result["machine"] = machine_metadata(s.solver_options.threads);
  result["build"] = build_metadata();
  if (gpu) {
    copy = device::measure_copy_bandwidth();
    result["machine"]["gpu"]["copy_bandwidth"] = {{"bytes_per_second", copy.bytes_per_second},
                                                  {"bytes_per_copy", copy.bytes_per_copy}, {"samples", copy.samples},
                                                  {"median_s", copy.median_s}, {"min_s", copy.min_s}, {"max_s", copy.max_s}};
  }
  return result;
}

// What one rank's solver did: the timed steps, the sections' work models, and the files written for people.
template <class T>
struct RankSteps {
  TimedOutcome<T> run;
  SectionModels models;
  std::vector<std::string> outputs;  // --output's files
  int steps_per_graph = 1;
};

// This rank's solver: built, loaded with its part of `start`, stepped, its work models read; freed on return.
template <class T>
RankSteps<T> step_the_solver(const RunSetup& s, RankContext& ctx, HostState<T>& start, PhaseClock& phases) {
  Communicator& comm = *ctx.comm;
  RankSteps<T> out;
  const std::unique_ptr<Solver<T>> solver =
      s.problem.make_solver(Precision<T>{}, s.recipe, s.solver_options, ctx.decomposed() ? &ctx : nullptr);
  phases.done("solver_setup");
  if (ctx.decomposed() && s.initial_state != InitialStatePath::per_slab)
    solver->load(my_part(ctx, start));
  else
    solver->load(start);  // not a copy: a whole state is GBs on a large grid (a slab: a rank's share of them)
  // Its arrays (GBs on a large grid) go back to the heap now, for the downloads to come to reuse. A rank's own
  // slab goes on every rank; rank 0 builds the whole state again for the reference check (run_rank).
  comm.barrier();  // every rank has taken its part
  if (s.initial_state == InitialStatePath::per_slab || (comm.rank() == 0 && !reference_check_runs(s, comm.size())))
    start.fields.clear();
  phases.done("load");
  out.steps_per_graph = solver->steps_per_graph();
  std::function<void(const HostState<T>&)> snapshot;
  if (!ctx.decomposed() && s.options.output_every > 0)
    snapshot = [&](const HostState<T>& state) {
      char tag[32];
      std::snprintf(tag, sizeof tag, "step%08d", state.step);
      for (const std::string& f : s.problem.write_output(state, s.options.output_dir, tag)) out.outputs.push_back(f);
    };
  const bool gpu = s.recipe.backend == Backend::cuda;
  out.run = timed_steps(*solver, s.options, comm, gpu, ctx.device, s.solver.sections, phases, snapshot);
  SectionModels& m = out.models;
  for (int k = 0; k < int(s.solver.sections.size()); ++k) {  // collectives: every rank, same order
    m.largest.push_back(solver->work_model(k));
    m.flops_whole.push_back(comm.allreduce_sum(m.largest.back().flops));
    m.halo_bytes.push_back(comm.allreduce_max(solver->halo_bytes_per_call(k)));
    m.calls_default.push_back(solver->calls_per_step(k));
  }
  return out;
}

// The result's "timing" block on rank 0: the slowest rank's step and stages, each rank's medians, the method.
inline nlohmann::json timing_json(const RunSetup& s, const RankContext& ctx, const std::vector<RankTimes>& per_rank,
                                  const RankTimes& times, const nlohmann::json& stages, double flops_per_step,
                                  const SectionModels& m, bool gpu, int steps_per_graph) {
  const bool graph = s.options.launch == "graph";
  const Summary step = summarize(times.step);
  nlohmann::json step_kept;  // set when the step samples stored are a subsample
  nlohmann::json per_rank_steps = nlohmann::json::array();
  for (const RankTimes& r : per_rank) per_rank_steps.push_back(summarize(r.step).median);
  // Each rank's median time per step of every section it timed (the thesis's Table 4.3: per-GPU kernel
  // and exchange times; the stages are the slowest rank's).
  nlohmann::json per_rank_sections = nlohmann::json::array();
  for (const RankTimes& r : per_rank) {
    nlohmann::json mine = nlohmann::json::object();
    for (const auto& [section, samples] : r.per_step) mine[s.solver.section_name(section)] = summarize(samples).median;
    per_rank_sections.push_back(mine);
  }
  nlohmann::json timing = {{"step", summary_json(step)},
                           {"step_raw_seconds", bounded_samples(times.step, &step_kept)},
                           {"flops_per_step", flops_per_step},
                           {"gflops", step.median > 0 ? flops_per_step / step.median * 1e-9 : 0.0},
                           {"stage_order", s.solver.stages},
                           {"stages", stages},
                           {"halo", ctx.halo ? halo_timing(s, times, m, step, ctx) : nlohmann::json::object()},
                           {"sections", other_section_timing(s, times, m)},
                           {"per_rank_step_median", per_rank_steps},
                           {"per_rank_section_median", per_rank_sections},
                           {"method", timing_method(graph, gpu, steps_per_graph)}};
  if (!step_kept.is_null())
    timing["raw_samples"] = {{"max_kept", kMaxRawSamples}, {"steps", step_kept},
                             {"rule", "series longer than max_kept are stored as every stride-th sample; "
                                      "the summaries use every sample"}};
  return timing;
}

// The checks of the gathered final state on rank 0: finite, bounded (a failed run otherwise), the physics
// validation, the solver's own invariants, and the reference.
template <class T>
void check_the_final_state(nlohmann::json& result, const RunSetup& s, const HostState<T>& start, const HostState<T>& fin,
                           const TwinRun<T>& twin, const TimedOutcome<T>& run, int end_step, int ranks, PhaseClock& phases) {
  result["checks"]["finite"] = finite_check(fin, end_step);
  phases.done("finite_check");
  const bool finite = result["checks"]["finite"]["pass"].get<bool>();
  if (!finite) {
    result["status"] = "failed";
    result["failure"] = result["checks"]["finite"]["detail"];
  } else {
    result["checks"]["bounded"] = bounded_check(fin, velocity_scale_of(s.problem.describe()), end_step);
    if (!result["checks"]["bounded"].value("pass", true)) {
      result["status"] = "failed";
      result["failure"] = result["checks"]["bounded"]["detail"];
    }
  }
  result["checks"]["validation"] = finite ? s.problem.validate(fin, run.steady)
                                          : nlohmann::json{{"kind", "none"}, {"detail", "the final state is not finite"}};
  for (auto& [key, value] : run.final_checks.items()) result["checks"][key] = value;
  phases.done("validation");
  result["checks"]["reference"] = reference_check(s, start, fin, ranks, twin);
}

// The run's phases (rank 0's, and every rank's up to the gather), then the file: a failed write still prints what
// was measured.
inline void record_phases_and_write(nlohmann::json& result, const RunSetup& s, const PhaseClock& phases,
                                    const std::vector<std::vector<char>>& all_phases) {
  result["run"]["phase_seconds"] = phases.seconds_json();
  result["run"]["phase_order"] = phases.order_json();
  if (all_phases.size() > 1) {
    nlohmann::json rank_phases = nlohmann::json::array();
    for (const std::vector<char>& b : all_phases) rank_phases.push_back(nlohmann::json::parse(std::string(b.begin(), b.end())));
    result["run"]["phase_seconds_per_rank"] = rank_phases;
  }
  if (s.options.json_path.empty()) return;
  try {
    write_json(s.options.json_path, result, s.options.overwrite);
  } catch (const std::exception&) {
    print_summary(result);  // a full disk must not lose what the run measured from the terminal as well
    std::fflush(stdout);    // before the error (stderr), also where stdout is a pipe
    throw;
  }
}

// What the gather gives: rank 0 every rank's phases and timings (JSON text) and the whole final state (the other
// ranks none of them); every rank every rank's placement.
template <class T>
struct Gathered {
  std::vector<std::vector<char>> phases, times;
  int end_step = 0;  // every rank's own
  HostState<T> fin;
  std::vector<RankPlacement> placements;
};

// The gather to rank 0 after the timed steps (collectives: every rank calls it); the final state is moved out of
// `run`, not copied (a large grid's fields are GBs).
template <class T>
Gathered<T> gather_to_rank_0(const RunSetup& s, const RankContext& ctx, TimedOutcome<T>& run, PhaseClock& phases) {
  Communicator& comm = *ctx.comm;
  Gathered<T> g;
  const std::string my_phases = phases.seconds_json().dump();
  g.phases = comm.gather(my_phases.data(), my_phases.size(), 0);
  const std::string my_times = times_json(run.times).dump();
  g.times = comm.gather(my_times.data(), my_times.size(), 0);
  g.end_step = run.end_state.step;
  g.fin = gather_state(comm, ctx.slabs, s.problem.grid(), std::move(run.end_state));
  g.placements = gather_placements(comm, ctx.device);
  phases.done("gather");
  return g;
}

// Rank 0's summaries of the gathered run: the "run" block with its decomposition, the "timing" block (the slowest
// rank's stages against the copy bandwidth measured in the header), and with --profile the "profile" block.
template <class T>
void summarize_the_run(nlohmann::json& result, const RunSetup& s, const RankContext& ctx, const RankSteps<T>& done,
                       const Gathered<T>& g, const device::CopyBandwidth& copy, PhaseClock& phases) {
  const bool gpu = s.recipe.backend == Backend::cuda;
  std::vector<RankTimes> per_rank;
  for (const std::vector<char>& b : g.times)
    per_rank.push_back(times_from_json(nlohmann::json::parse(std::string(b.begin(), b.end()))));
  const RankTimes times = slowest_rank(per_rank);
  double flops_per_step = 0;
  const nlohmann::json stages = stage_timing(s, times, done.models, gpu ? copy.bytes_per_second : 0,
                                             s.options.launch == "graph", flops_per_step);
  result["run"] = run_description(s, s.solver_options.threads, done.run.timed_steps, done.run.stop_reason,
                                  done.run.final_time, done.run.wall_seconds, done.run.last_change);
  result["run"]["decomposition"] = decomposition_json(ctx, g.placements, done.run.halo_description);
  result["run"]["decomposition"]["initial_state"] = initial_state_path_name(s.initial_state);
  result["timing"] = timing_json(s, ctx, per_rank, times, stages, flops_per_step, done.models, gpu, done.steps_per_graph);
  if (s.options.profile) result["profile"] = profile_report(done.run.profile, stages);
  phases.done("summaries");
}

// One rank's run, step by step: the header, the solver's steps, the gather to rank 0, and there the timing, the
// checks and the file.
// start: the whole initial state, shared by the ranks of the threads driver; rank 0 empties its fields once
// every rank has loaded its part, unless the reference check reads it again. Per slab (s.initial_state): the
// rank's own slab, emptied on every rank once loaded; rank 0 builds the whole state for the reference check.
// phases: the run's clock, carried on through this rank's phases (run.phase_seconds: rank 0's; with
// several ranks also each rank's up to the gather, run.phase_seconds_per_rank).
template <class T>
nlohmann::json run_rank(const RunSetup& s, RankContext ctx, HostState<T>& start, PhaseClock phases) {
  Communicator& comm = *ctx.comm;
  const bool root = comm.rank() == 0;
  const int ranks = comm.size();
  const bool gpu = s.recipe.backend == Backend::cuda;
  device::CopyBandwidth copy;
  nlohmann::json result = root ? result_header(s, gpu, copy) : nlohmann::json();
  comm.barrier();  // the bandwidth test runs alone
  phases.done("metadata");

  RankSteps<T> done = step_the_solver(s, ctx, start, phases);
  comm.barrier();  // every rank's GPU memory is free again (the check below may need it)
  phases.done("release");

  const Gathered<T> g = gather_to_rank_0(s, ctx, done.run, phases);
  // The whole final state is gathered to rank 0 all the same (above): the finite, bounded and physics checks and
  // --output read the whole grid; only the reference run moves to the twin when the whole grid is too large for it.
  TwinRun<T> twin;
  if (s.reference.twin) {
    twin = run_down_scaled_twin<T>(s, ctx, g.end_step);
    phases.done("down_scaled_twin");
  }
  if (!root) {
    comm.barrier();  // wait for rank 0's check
    return nlohmann::json();
  }
  summarize_the_run(result, s, ctx, done, g, copy, phases);

  if (s.initial_state == InitialStatePath::per_slab && reference_check_runs(s, ranks)) {
    // The one-rank reference starts from the whole state: built now, after the run's solver is gone, once.
    start = s.problem.initial_state(Precision<T>{});
    phases.done("initial_state_for_reference");
  }
  check_the_final_state(result, s, start, g.fin, twin, done.run, g.end_step, ranks, phases);
  comm.barrier();
  phases.done("reference_check");
  if (!s.options.output_dir.empty()) {
    for (const std::string& f : s.problem.write_output(g.fin, s.options.output_dir, "final")) done.outputs.push_back(f);
    result["output"] = done.outputs;
    phases.done("output");
  }
  if (gpu) {
    result["kernels"] = kernel_report(s.recipe, int(sizeof(T)));
    phases.done("kernel_report");
  }
  record_phases_and_write(result, s, phases, g.phases);  // the phases up to here: writing the file is the last step
  return result;
}

}  // namespace nsb
