// The timing and description parts of a run's result: per-section statistics with the work models,
// the halo exchanges, the run's own description and its decomposition.
#include <algorithm>
#include <string>

#include "halo.hpp"
#include "run/rank_run.hpp"

namespace nsb {

using json = nlohmann::json;

json stage_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m, double ceiling, bool graph,
                  double& flops_per_step) {
  json stages = json::object();
  for (const std::string& name : s.solver.stages) {
    const int k = s.solver.section_index(name);
    const ResolvedStage& rs = s.recipe[name];
    json st = {{"variant", rs.variant->id()}, {"tuning", rs.tuning.name}, {"tags", rs.variant->tags},
               {"deterministic", rs.variant->determinism == Determinism::deterministic},
               {"synchronizes", rs.variant->synchronizes}};
    if (k >= 0 && times.per_call.count(k)) {
      const Summary call = summarize(times.per_call.at(k)), step = summarize(times.per_step.at(k));
      const double calls = double(times.per_call.at(k).size()) / double(times.per_step.at(k).size());
      const WorkModel& w = m.largest[std::size_t(k)];
      st["per_call"] = summary_json(call);
      st["per_step"] = summary_json(step);
      st["calls_per_step"] = calls;
      st["model"] = {{"points", w.points}, {"bytes", w.bytes}, {"flops", w.flops}};
      const double bw = w.bytes / call.median;
      st["achieved"] = {{"bytes_per_second", bw}, {"flops_per_second", w.flops / call.median}};
      if (ceiling > 0) st["achieved"]["fraction_of_copy_bandwidth"] = bw / ceiling;
      json kept;
      st["raw_seconds"] = bounded_samples(times.per_call.at(k), &kept);
      if (!kept.is_null()) st["raw_seconds_subsampled"] = kept;
      flops_per_step += m.flops_whole[std::size_t(k)] * calls;
    } else if (graph && k >= 0) {  // no per-stage samples: count the calls a step makes
      flops_per_step += m.flops_whole[std::size_t(k)] * m.calls_default[std::size_t(k)];
    }
    stages[name] = st;
  }
  return stages;
}

json halo_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m, const Summary& step,
                 const RankContext& ctx) {
  json halo = json::object();
  double per_step_total = 0;
  for (int k = 0; k < int(s.solver.sections.size()); ++k) {
    const double bytes = m.halo_bytes[std::size_t(k)];
    if (bytes <= 0 || !times.per_call.count(k)) continue;
    const Summary call = summarize(times.per_call.at(k)), per_step = summarize(times.per_step.at(k));
    halo[s.solver.section_name(k)] = {
        {"per_call", summary_json(call)}, {"per_step", summary_json(per_step)},
        {"calls_per_step", double(times.per_call.at(k).size()) / double(times.per_step.at(k).size())},
        {"bytes_sent_per_call", bytes}, {"bytes_per_second", bytes / call.median},
        {"raw_seconds", bounded_samples(times.per_call.at(k))}};
    per_step_total += per_step.median;
  }
  halo["total_per_step_median"] = per_step_total;
  halo["share_of_step"] = step.median > 0 ? per_step_total / step.median : 0.0;
  halo["timing"] = ctx.halo->tags.count("sync") && ctx.halo->tags.at("sync") == "async"
                       ? "exposed time: the compute stream's wait for the ghost planes after the interior"
                       : "whole exchange, blocking";
  return halo;
}

// The solver's own sections that are neither stages nor halo exchanges (e.g. a Poisson method's whole
// solve, which runs kernels of its own family): per-call and per-step statistics and their work model.
json other_section_timing(const RunSetup& s, const RankTimes& times, const SectionModels& m) {
  json out = json::object();
  for (int k = 0; k < int(s.solver.sections.size()); ++k) {
    const std::string name = s.solver.section_name(k);
    const bool is_stage = std::find(s.solver.stages.begin(), s.solver.stages.end(), name) != s.solver.stages.end();
    if (is_stage || m.halo_bytes[std::size_t(k)] > 0 || !times.per_call.count(k)) continue;
    const Summary call = summarize(times.per_call.at(k)), step = summarize(times.per_step.at(k));
    const WorkModel& w = m.largest[std::size_t(k)];
    out[name] = {{"per_call", summary_json(call)},
                 {"per_step", summary_json(step)},
                 {"calls_per_step", double(times.per_call.at(k).size()) / double(times.per_step.at(k).size())},
                 {"model", {{"points", w.points}, {"bytes", w.bytes}, {"flops", w.flops}}},
                 {"raw_seconds", bounded_samples(times.per_call.at(k))}};
  }
  return out;
}

json run_description(const RunSetup& s, int threads, int timed, const std::string& stop_reason, double final_time,
                     double wall, double last_change) {
  const Grid& g = s.problem.grid();
  const SolverOptions& so = s.solver_options;
  json run = {{"solver", s.solver.name},
              {"grid", {{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}, {"lx", g.lx}, {"ly", g.ly}, {"lz", g.lz}}},
              {"precision", s.options.precision},
              {"backend", backend_name(s.recipe.backend)},
              {"recipe", s.recipe.name},
              {"threads", threads},
              {"launch", s.options.launch},
              {"nvtx", s.options.nvtx},
              {"scheme", so.scheme == TimeScheme::euler ? "euler" : "adams_bashforth2"},
              {"jacobi", {{"iterations", so.jacobi_iterations}, {"tolerance", so.jacobi_tol}, {"check_every", so.check_every}}},
              {"poisson_method", so.poisson_method},
              {"poisson_kernels", so.poisson_kernels},
              {"warmup_steps", s.options.warmup},
              {"timed_steps", timed},
              {"until_steady", s.options.until_steady},
              {"stop_reason", stop_reason},
              {"final_time", final_time},
              {"wall_seconds", wall}};
  run.update(s.problem.describe());  // case, physical parameters, time step
  if (!s.options.recipe_file.empty()) run["recipe_file"] = s.options.recipe_file;  // a tuned recipe's (nsbench tune)
  if (!std::isnan(last_change)) run["last_change"] = last_change;
  return run;
}

json decomposition_json(const RankContext& ctx, const std::vector<RankPlacement>& placements, const json& halo_details) {
  // y-slabs (a SlabAssigner's decompose_y: fracstep V2) own rows of every plane; z-slabs planes of every row
  const bool y_slabs = !ctx.slabs.empty() && ctx.slabs.front().ny > 0;
  const auto [shared_lo, shared_hi] = ranks_sharing_a_gpu(placements);
  json d = {{"ranks", ctx.comm->size()}, {"driver", ctx.comm->driver()}, {"axis", y_slabs ? "y" : "z"},
            {"hosts", host_count(placements)}, {"oversubscribed", shared_lo >= 0}};
  if (shared_lo >= 0) d["ranks_sharing_a_gpu"] = {shared_lo, shared_hi};
  json slabs = json::array();
  for (const Slab& sl : ctx.slabs) {
    const RankPlacement& where = placements[std::size_t(sl.rank)];
    json one = {{"rank", sl.rank}, {"z_begin", sl.z_begin}, {"nz", sl.nz}, {"lo_rank", sl.lo_rank},
                {"hi_rank", sl.hi_rank}, {"device", where.device}, {"host", where.host}, {"gpu", where.gpu},
                {"peak_host_bytes", where.peak_host_bytes}};
    if (y_slabs) one["y_begin"] = sl.y_begin, one["ny"] = sl.ny;
    slabs.push_back(one);
  }
  d["slabs"] = slabs;
  if (ctx.halo)
    d["halo"] = {{"variant", ctx.halo->id()}, {"tuning", ctx.tuning.name}, {"tags", ctx.halo->tags}, {"details", halo_details}};
  return d;
}

json timing_method(bool graph, bool gpu, int steps_per_graph) {
  if (graph)
    return "CUDA events around each replay of a CUDA graph of " + std::to_string(steps_per_graph) +
           " steps, divided by the steps; per-stage times are not taken in graph mode (use --launch stream)";
  return gpu ? "CUDA events on each rank's solver stream around each stage and each step; with several ranks, each "
               "call's time is the slowest rank's"
             : "steady_clock around each stage and each step";
}

}  // namespace nsb
