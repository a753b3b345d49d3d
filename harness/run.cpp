#include "run.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <mutex>
#include <memory>
#include <stdexcept>
#include <thread>

#include "build_info.hpp"  // generated each build: git commit, compiler, flags
#include "decomposition.hpp"
#include "projection/models.hpp"
#include "mpi_driver.hpp"
#include "profile.hpp"
#include "stats.hpp"
#include "projection/validation.hpp"

namespace nsb {

using nlohmann::json;

namespace {

Backend parse_backend(const std::string& s) {
  if (s == "cpu_serial") return Backend::cpu_serial;
  if (s == "cpu_omp") return Backend::cpu_omp;
  if (s == "cuda") return Backend::cuda;
  throw std::runtime_error("unknown backend '" + s + "'; known: cpu_serial cpu_omp cuda");
}

json summary_json(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr},
          {"min", s.min},     {"max", s.max},       {"mean", s.mean}};
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// Relative difference of two fields over the whole padded array (ghosts included: they are state too).
template <class T>
json compare_field(const std::vector<T>& got, const std::vector<T>& ref) {
  double max_diff = 0, max_ref = 0, sum_d2 = 0, sum_r2 = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = double(got[i]) - double(ref[i]);
    if (!std::isfinite(double(got[i]))) max_diff = INFINITY;
    max_diff = std::max(max_diff, std::abs(d));
    max_ref = std::max(max_ref, std::abs(double(ref[i])));
    sum_d2 += d * d;
    sum_r2 += double(ref[i]) * double(ref[i]);
  }
  const double scale = max_ref > 0 ? max_ref : 1;
  return {{"max_abs_diff", max_diff},
          {"max_rel_diff", max_diff / scale},
          {"rms_rel_diff", sum_r2 > 0 ? std::sqrt(sum_d2 / sum_r2) : std::sqrt(sum_d2)}};
}

// Tolerance of a whole-solver comparison with the CPU reference, relative to the field's largest
// value. GPU and CPU differ only in rounding (fused multiply-adds, summation order), which compounds
// over the steps: measured worst cases are ~5e-16 in double and ~8e-7 in float after 110 steps.
template <class T>
double solver_tolerance() {
  return sizeof(T) == 4 ? 2e-4 : 1e-10;
}

// Raw timings of one rank: every call of every section, their sums per step, and the step times.
struct RankTimes {
  std::map<int, std::vector<double>> per_call;
  std::map<int, std::vector<double>> per_step;
  std::vector<double> step;
};

RankTimes collect_times(const std::vector<Sample>& samples, int chunk) {
  RankTimes t;
  std::map<int, std::map<int, double>> sums;
  for (const Sample& s : samples) {
    if (s.section == kStepSection) {
      t.step.push_back(s.seconds / chunk);
      continue;
    }
    t.per_call[s.section].push_back(s.seconds);
    sums[s.section][s.step] += s.seconds;
  }
  for (auto& [section, by_step] : sums)
    for (auto& [step, sec] : by_step) t.per_step[section].push_back(sec);
  return t;
}

json times_json(const RankTimes& t) {
  json j = {{"step", t.step}, {"per_call", json::object()}, {"per_step", json::object()}};
  for (auto& [k, v] : t.per_call) j["per_call"][std::to_string(k)] = v;
  for (auto& [k, v] : t.per_step) j["per_step"][std::to_string(k)] = v;
  return j;
}

RankTimes times_from_json(const json& j) {
  RankTimes t;
  t.step = j["step"].get<std::vector<double>>();
  for (auto& [k, v] : j["per_call"].items()) t.per_call[std::stoi(k)] = v.get<std::vector<double>>();
  for (auto& [k, v] : j["per_step"].items()) t.per_step[std::stoi(k)] = v.get<std::vector<double>>();
  return t;
}

// A decomposed step is as slow as its slowest rank: element by element, the maximum over the ranks.
RankTimes slowest_rank(const std::vector<RankTimes>& ranks) {
  auto max_of = [](std::vector<double>& into, const std::vector<double>& v) {
    if (into.empty()) into = v;
    into.resize(std::min(into.size(), v.size()));
    for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], v[i]);
  };
  RankTimes out;
  for (const RankTimes& r : ranks) {
    max_of(out.step, r.step);
    for (auto& [k, v] : r.per_call) max_of(out.per_call[k], v);
    for (auto& [k, v] : r.per_step) max_of(out.per_step[k], v);
  }
  return out;
}

// Where this rank sits in the run: how the ranks talk, its slab, its halo variant and its GPU.
struct RankEnv {
  Communicator* comm = nullptr;
  std::vector<Slab> slabs;
  const HaloVariant* halo = nullptr;
  Tuning halo_tuning;
  int device = -1;
  bool oversubscribed = false;  // more ranks than GPUs: timings are not those of one GPU per rank
};

// Gathers the ranks' slabs of one field into the whole padded field on rank 0.
template <class T>
std::vector<T> gather_field(Communicator& comm, const std::vector<Slab>& slabs, const Grid& global,
                            const std::vector<T>& local) {
  if (slabs.size() == 1) return local;
  const std::vector<std::vector<char>> parts = comm.gather(local.data(), local.size() * sizeof(T), 0);
  std::vector<T> out;
  if (comm.rank() != 0) return out;
  out.assign(global.padded_points(), T(0));
  for (std::size_t r = 0; r < parts.size(); ++r) {
    std::vector<T> slab(parts[r].size() / sizeof(T));
    std::memcpy(slab.data(), parts[r].data(), parts[r].size());
    gather_slab(out, global, slabs[r], slab);
  }
  return out;
}

template <class T>
json compare_states(const HostState<T>& got, const HostState<T>& ref, double tol, bool& pass) {
  json fields = {{"u", compare_field(got.u, ref.u)}, {"v", compare_field(got.v, ref.v)},
                 {"w", compare_field(got.w, ref.w)}, {"p", compare_field(got.p, ref.p)}};
  pass = true;
  for (auto& item : fields.items()) pass = pass && item.value()["max_rel_diff"].template get<double>() <= tol;
  return fields;
}

template <class T>
HostState<T> run_steps(const Case& c, const ResolvedRecipe& rr, const SolverOptions& so, const HostState<T>& start,
                       int steps) {
  ProjectionSolver<T> s(c, rr, so, nullptr);
  s.load(start);
  for (int i = 0; i < steps; ++i) s.step();
  return s.save();
}

// The trace pass over `steps` steps, then the counter pass over one step (every kernel replayed once
// per counter pass CUPTI needs: slow, so one step). A pass that cannot run says why.
template <class T>
json profile_passes(ProjectionSolver<T>& solver, int steps, int device) {
  json out;
  std::string why;
  // A pass that fails midway is reported, never allowed to cost the run's timings and checks.
  if (std::unique_ptr<profile::TracePass> trace = profile::make_trace_pass(&why)) {
    try {
      solver.set_timer(trace.get());
      for (int s = 0; s < steps; ++s) solver.step();
      solver.set_timer(nullptr);
      out["trace"] = {{"performed", true}, {"steps", steps}, {"sections", profile::summarize_trace(trace->finish())}};
    } catch (const std::exception& e) {
      solver.set_timer(nullptr);
      out["trace"] = {{"performed", false}, {"reason", e.what()}};
    }
  } else {
    out["trace"] = {{"performed", false}, {"reason", why}};
  }
  if (std::unique_ptr<profile::CounterPass> counters = profile::make_counter_pass(device, &why)) {
    try {
      solver.set_timer(counters.get());
      solver.step();
      solver.set_timer(nullptr);
      out["counters"] = {{"performed", true}, {"steps", 1}, {"metrics", profile::counter_metrics()},
                         {"replay", "kernel replay, one range per kernel, summed per section call"},
                         {"sections", profile::summarize_counters(counters->finish())}};
    } catch (const std::exception& e) {
      solver.set_timer(nullptr);
      out["counters"] = {{"performed", false}, {"reason", e.what()}};
    }
  } else {
    out["counters"] = {{"performed", false}, {"reason", why}};
  }
  if (!out["counters"]["performed"].get<bool>())
    std::fprintf(stderr, "nsbench: hardware counters not collected: %s\n", out["counters"]["reason"].get<std::string>().c_str());
  return out;
}

// Per stage: event-timed call (timing pass) vs the sum of its kernels (trace pass), and DRAM bytes
// (counter pass) vs the variant's byte model.
json profile_report(json profiled, const json& stages) {
  json per_stage = json::object();
  for (auto& [name, st] : stages.items()) {
    if (!st.contains("per_call")) continue;
    json row = {{"variant", st["variant"]}, {"tuning", st["tuning"]},
                {"event_median_s", st["per_call"]["median"]}, {"model_bytes", st["model"]["bytes"]}};
    const json& tr = profiled["trace"];
    if (tr["performed"].get<bool>() && tr["sections"].contains(name)) {
      const double k = tr["sections"][name]["kernel_time_per_call"]["median_s"].get<double>();
      const double e = st["per_call"]["median"].get<double>();
      row["kernel_median_s"] = k;
      row["kernels_per_call"] = tr["sections"][name]["kernels_per_call"];
      row["gap_s"] = e - k;
      row["gap_fraction"] = e > 0 ? (e - k) / e : 0.0;
    }
    const json& ct = profiled["counters"];
    if (ct["performed"].get<bool>() && ct["sections"].contains(name) && ct["sections"][name].contains("dram_bytes_per_call")) {
      const json& c = ct["sections"][name];
      const double dram = c["dram_bytes_per_call"].get<double>(), model = st["model"]["bytes"].get<double>();
      row["dram_bytes"] = dram;
      row["dram_over_model"] = model > 0 ? dram / model : 0.0;
      const json& m = c["median_per_call"];
      for (const char* key : {"lts__t_sector_hit_rate.pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                              "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"})
        if (m.contains(key)) row[key] = m[key];
    }
    per_stage[name] = row;
  }
  profiled["stages"] = per_stage;
  profiled["method"] = "separate passes after the timed steps and the state saved for the check: CUPTI activity "
                       "trace (kernels tagged with their solver section by external correlation ids), then the CUPTI "
                       "range profiler with kernel replay; event times are those of the timing pass";
  return profiled;
}

// One rank's run (every rank calls it; a run without decomposition is one rank). Rank 0 gathers the
// timings and the final state, checks them and returns the result; other ranks return null.
template <class T>
json run_typed(const RunOptions& o, const Case& c, const ResolvedRecipe& rr, const RankEnv& env,
               const HostState<T>& start) {
  Communicator& comm = *env.comm;
  const bool root = comm.rank() == 0;
  const int ranks = comm.size();
  const bool gpu = rr.backend == Backend::cuda;
  const int threads = rr.backend == Backend::cpu_omp ? (o.solver.threads > 0 ? o.solver.threads : omp_get_max_threads()) : 1;
  json result;
  device::CopyBandwidth copy;
  if (root) {
    result["schema"] = "nsbench.run/1";
    result["timestamp"] = now_utc();
    result["command_line"] = o.command_line;
    result["machine"] = machine_metadata(threads);
    result["build"] = build_metadata();
    if (gpu) {
      copy = device::measure_copy_bandwidth();
      result["machine"]["gpu"]["copy_bandwidth"] = {{"bytes_per_second", copy.bytes_per_second},
                                                    {"bytes_per_copy", copy.bytes_per_copy},
                                                    {"samples", copy.samples},
                                                    {"median_s", copy.median_s},
                                                    {"min_s", copy.min_s},
                                                    {"max_s", copy.max_s}};
    }
  }
  comm.barrier();  // the bandwidth test runs alone

  SolverOptions so = o.solver;
  so.threads = threads;
  const Slab& slab = env.slabs[std::size_t(comm.rank())];
  Case lc = c;
  lc.grid = slab_grid(c.grid, slab);
  lc.bc = slab_bc(c.bc, slab);
  const RankSetup setup{env.slabs, comm.rank(), &comm, env.halo, env.halo_tuning, env.device};

  const bool graph = o.launch == "graph";
  const int chunk = graph ? 2 : 1;  // steps per timed sample
  int timed = 0, last_iterations = 0;
  double change = NAN, wall = 0, final_time = 0, divergence = 0;
  bool steady = false;
  std::string stop_reason = "fixed step count";
  RankTimes mine;
  HostState<T> local_end;
  json profiled;
  json halo_description;
  {
    ProjectionSolver<T> solver(lc, rr, so, nullptr, ranks > 1 ? &setup : nullptr);
    if (solver.halo()) halo_description = solver.halo()->describe();
    std::unique_ptr<SectionTimer> timer;
    if (gpu) timer = std::make_unique<GpuTimer>(solver.stream());
    else timer = std::make_unique<CpuTimer>();

    solver.load(ranks > 1 ? HostState<T>{lc.grid, scatter_slab(start.u, c.grid, slab), scatter_slab(start.v, c.grid, slab),
                                         scatter_slab(start.w, c.grid, slab), scatter_slab(start.p, c.grid, slab),
                                         {}, {}, {}, start.step, start.time}
                          : start);
    solver.set_timer(timer.get());

    // Warm-up: module load, first touch, clocks; not recorded. Graph mode needs one plain step first, so
    // that the recorded steps are not the first (Adams-Bashforth's first step is Euler).
    timer->enabled = false;
    for (int s = 0; s < std::max(o.warmup, graph ? 1 : 0); ++s) solver.step();
    std::unique_ptr<void, void (*)(void*)> graph_exec(nullptr, device::graph_destroy);  // freed on any exit
    if (graph) {
      // Two steps bring every swapped pointer (u/u*, p/p_new) back to where it was, so one recording of
      // two steps replays for ever. Recording runs nothing: the step counters are wound back after it.
      device::capture_begin(solver.stream());
      solver.step();
      solver.step();
      graph_exec.reset(device::capture_end(solver.stream()));
      solver.replayed(-2);
    }
    solver.sync();
    comm.barrier();  // every rank starts the timed steps together
    timer->enabled = true;

    const auto wall0 = std::chrono::steady_clock::now();
    auto last_report = wall0;
    const int check_every = std::max(1, o.steady_check_every / chunk);
    for (int sample = 0; timed < o.steps; ++sample) {
      if (graph) {
        timer->set_step(timed);
        timer->begin(kStepSection);
        device::graph_launch(graph_exec.get(), solver.stream());
        timer->end(kStepSection);
        solver.replayed(2);
      } else {
        solver.step();
      }
      timed += chunk;
      if (o.until_steady && (sample + 1) % check_every == 0) {
        timer->enabled = false;  // the monitor is not part of the scheme's cost
        change = solver.change_rms() / (c.dt * c.u_ref);
        timer->enabled = true;
        if (change < o.steady_tol) {
          steady = true;
          stop_reason = "steady: velocity change per unit time below --steady-tol";
          break;
        }
      }
      const auto now = std::chrono::steady_clock::now();
      if (root && o.progress && std::chrono::duration<double>(now - last_report).count() > 5) {
        last_report = now;
        const double el = std::chrono::duration<double>(now - wall0).count();
        std::fprintf(stderr, "  step %d/%d  t = %.4g  elapsed %.0f s, at most %.0f s left%s\n", timed, o.steps,
                     solver.time(), el, el / timed * (o.steps - timed),
                     std::isnan(change) ? "" : ("  change " + std::to_string(change)).c_str());
      }
    }
    if (o.until_steady && !steady) stop_reason = "step cap reached before steady state (raise --steps)";
    solver.sync();
    comm.barrier();
    wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    mine = collect_times(timer->samples(), chunk);
    timer->enabled = false;
    divergence = solver.divergence_rms();
    last_iterations = solver.last_jacobi_iterations();
    final_time = solver.time();
    local_end = solver.save();
    // The profiling passes come after everything measured or checked above (see profile.hpp).
    if (o.profile) profiled = profile_passes(solver, o.profile_steps, env.device);
  }
  comm.barrier();  // every rank's GPU memory is free again (the check below may need it)

  // Rank 0 gathers the timings and the final state.
  const std::string my_times = times_json(mine).dump();
  const std::vector<std::vector<char>> all_times = comm.gather(my_times.data(), my_times.size(), 0);
  HostState<T> fin;
  fin.grid = c.grid;
  fin.u = gather_field(comm, env.slabs, c.grid, local_end.u);
  fin.v = gather_field(comm, env.slabs, c.grid, local_end.v);
  fin.w = gather_field(comm, env.slabs, c.grid, local_end.w);
  fin.p = gather_field(comm, env.slabs, c.grid, local_end.p);
  fin.step = local_end.step;
  fin.time = local_end.time;
  const std::vector<int> devices = comm.allgather_value(env.device);
  if (!root) {
    comm.barrier();  // wait for rank 0's check
    return json();
  }
  std::vector<RankTimes> per_rank;
  for (const std::vector<char>& b : all_times) per_rank.push_back(times_from_json(json::parse(std::string(b.begin(), b.end()))));
  const RankTimes times = slowest_rank(per_rank);

  // Statistics per section: every call, and per step (a stage may run several times in a step). The
  // byte model is that of the largest slab: the slowest rank's work.
  Grid largest = c.grid;
  largest.nz = 0;
  for (const Slab& s : env.slabs) largest.nz = std::max(largest.nz, s.nz);
  const int elem = int(sizeof(T));
  const double ceiling = gpu ? copy.bytes_per_second : 0;
  json stages = json::object();
  double flops_per_step = 0;
  for (int k = 0; k < int(StageKind::count); ++k) {
    const StageKind kind = StageKind(k);
    const ResolvedStage& rs = rr[kind];
    json st = {{"variant", rs.variant->id()}, {"tuning", rs.tuning.name}, {"tags", rs.variant->tags},
               {"deterministic", rs.variant->determinism == Determinism::deterministic},
               {"synchronizes", rs.variant->synchronizes}};
    const double calls_default = kind == StageKind::pressure ? so.jacobi_iterations : kind == StageKind::reduce ? 0 : 1;
    if (times.per_call.count(k)) {
      const Summary call = summarize(times.per_call.at(k)), step = summarize(times.per_step.at(k));
      const double calls = double(times.per_call.at(k).size()) / double(times.per_step.at(k).size());
      const WorkModel m = work_model(kind, largest, ZRange::interior(largest), elem, so.scheme, c.gamma != 0);
      st["per_call"] = summary_json(call);
      st["per_step"] = summary_json(step);
      st["calls_per_step"] = calls;
      st["model"] = {{"points", m.points}, {"bytes", m.bytes}, {"flops", m.flops}};
      const double bw = m.bytes / call.median;
      st["achieved"] = {{"bytes_per_second", bw}, {"flops_per_second", m.flops / call.median}};
      if (ceiling > 0) st["achieved"]["fraction_of_copy_bandwidth"] = bw / ceiling;
      st["raw_seconds"] = times.per_call.at(k);
      flops_per_step += work_model(kind, c.grid, ZRange::interior(c.grid), elem, so.scheme, c.gamma != 0).flops * calls;
    } else if (graph) {  // no per-stage samples: count the calls a step makes
      flops_per_step += work_model(kind, c.grid, ZRange::interior(c.grid), elem, so.scheme, c.gamma != 0).flops * calls_default;
    }
    stages[stage_name(kind)] = st;
  }
  const Summary step = summarize(times.step);

  result["run"] = {
      {"case", c.name},
      {"grid", {{"nx", c.grid.nx}, {"ny", c.grid.ny}, {"nz", c.grid.nz}, {"lx", c.grid.lx}, {"ly", c.grid.ly},
                {"lz", c.grid.lz}}},
      {"precision", sizeof(T) == 4 ? "float" : "double"},
      {"backend", backend_name(rr.backend)},
      {"recipe", rr.name},
      {"threads", threads},
      {"launch", graph ? "graph" : "stream"},
      {"nvtx", o.nvtx},
      {"re", c.u_ref / c.nu},
      {"nu", c.nu},
      {"dt", c.dt},
      {"gamma", c.gamma},
      {"scheme", so.scheme == TimeScheme::euler ? "euler" : "adams_bashforth2"},
      {"jacobi", {{"iterations", so.jacobi_iterations}, {"tolerance", so.jacobi_tol}, {"check_every", so.check_every},
                  {"last_iterations", last_iterations}}},
      {"warmup_steps", o.warmup},
      {"timed_steps", timed},
      {"until_steady", o.until_steady},
      {"stop_reason", stop_reason},
      {"final_time", final_time},
      {"wall_seconds", wall},
  };
  if (!std::isnan(change)) result["run"]["last_change"] = change;

  json decomposition = {{"ranks", ranks}, {"driver", comm.driver()}, {"axis", "z"}, {"oversubscribed", env.oversubscribed}};
  json slabs = json::array();
  for (const Slab& s : env.slabs)
    slabs.push_back({{"rank", s.rank}, {"z_begin", s.z_begin}, {"nz", s.nz}, {"lo_rank", s.lo_rank},
                     {"hi_rank", s.hi_rank}, {"device", devices[std::size_t(s.rank)]}});
  decomposition["slabs"] = slabs;
  json halo = json::object();
  if (env.halo) {
    decomposition["halo"] = {{"variant", env.halo->id()}, {"tuning", env.halo_tuning.name}, {"tags", env.halo->tags},
                             {"details", halo_description}};
    // Bytes the busiest rank sends per exchange: its edge planes of each field, one per neighbour.
    const double plane_bytes = double(c.grid.sz()) * elem;
    int sides = 0;
    for (const Slab& s : env.slabs) sides = std::max(sides, int(s.has_lo()) + int(s.has_hi()));
    double halo_per_step = 0;
    for (int section : {kHaloPredictorSection, kHaloPressureSection, kHaloCorrectionSection}) {
      if (!times.per_call.count(section)) continue;
      const Summary call = summarize(times.per_call.at(section)), per_step = summarize(times.per_step.at(section));
      const int fields = section == kHaloPressureSection ? 1 : 3;
      const double bytes = plane_bytes * fields * sides;
      halo[halo_section_name(section)] = {
          {"per_call", summary_json(call)}, {"per_step", summary_json(per_step)},
          {"calls_per_step", double(times.per_call.at(section).size()) / double(times.per_step.at(section).size())},
          {"bytes_sent_per_call", bytes}, {"bytes_per_second", bytes / call.median},
          {"raw_seconds", times.per_call.at(section)}};
      halo_per_step += per_step.median;
    }
    halo["total_per_step_median"] = halo_per_step;
    halo["share_of_step"] = step.median > 0 ? halo_per_step / step.median : 0.0;
    halo["timing"] = env.halo->tags.count("sync") && env.halo->tags.at("sync") == "async"
                         ? "exposed time: the compute stream's wait for the ghost planes after the interior"
                         : "whole exchange, blocking";
  }
  result["run"]["decomposition"] = decomposition;

  json per_rank_steps = json::array();
  for (const RankTimes& r : per_rank) per_rank_steps.push_back(summarize(r.step).median);
  result["timing"] = {{"step", summary_json(step)},
                      {"step_raw_seconds", times.step},
                      {"flops_per_step", flops_per_step},
                      {"gflops", step.median > 0 ? flops_per_step / step.median * 1e-9 : 0.0},
                      {"stages", stages},
                      {"halo", halo},
                      {"per_rank_step_median", per_rank_steps},
                      {"method", graph ? "CUDA events around each replay of a CUDA graph of two steps, halved; "
                                         "per-stage times are not taken in graph mode (use --launch stream)"
                                 : gpu ? "CUDA events on each rank's solver stream around each stage and each step; "
                                         "with several ranks, each call's time is the slowest rank's"
                                       : "steady_clock around each stage and each step"}};

  if (o.profile) result["profile"] = profile_report(profiled, stages);

  // Checks: physics validation of the final state, projection quality, and a reference: the CPU for a
  // single GPU, the undecomposed run of the same recipe for several ranks.
  const Validation val = validate(c, fin);
  json vj = {{"kind", val.kind}, {"detail", val.detail}, {"max_error", val.max_error}, {"rms_error", val.rms_error}};
  if (val.kind == "taylor_green")
    vj["energy_ratio"] = val.energy_ratio, vj["energy_ratio_exact"] = val.energy_ratio_exact;
  if (val.kind == "ghia") {
    auto prof = [](const std::vector<ProfilePoint>& p) {
      json a = json::array();
      for (const ProfilePoint& q : p) a.push_back({q.position, q.reference, q.computed});
      return a;
    };
    vj["u_profile"] = prof(val.u_profile);
    vj["w_profile"] = prof(val.w_profile);
  }
  // Ghia's data describe the steady flow: a comparison before steady state is reported but flagged.
  vj["steady_state"] = steady;
  result["checks"]["validation"] = vj;
  result["checks"]["divergence_rms"] = divergence;
  json ref = {{"performed", false}};
  const double tol = solver_tolerance<T>();
  try {
    if (ranks > 1 && o.check) {
      bool pass = false;
      const HostState<T> r = run_steps<T>(c, rr, so, start, fin.step - start.step);
      json fields = compare_states(fin, r, tol, pass);
      ref = {{"performed", true}, {"against", "the same recipe on one rank (no decomposition), same steps"},
             {"steps", fin.step}, {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
    } else if (gpu && o.check) {
      // The CPU reference from the same initial state for the same number of steps.
      SolverOptions reference_options = so;
      reference_options.threads = 0;  // every core: the reference of a large GPU run is the slow part
      const HostState<T> r = run_steps<T>(c, resolve(cpu_recipe(Backend::cpu_omp), {}), reference_options, start,
                                          fin.step - start.step);
      bool pass = false;
      json fields = compare_states(fin, r, tol, pass);
      ref = {{"performed", true}, {"against", "cpu_omp reference, same initial state and step count"},
             {"steps", fin.step}, {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
    } else if (!gpu && ranks == 1) {
      ref["reason"] = "this run is the CPU reference";
    } else {
      ref["reason"] = "skipped by --no-check";
    }
  } catch (const std::exception& e) {  // e.g. the whole grid does not fit one GPU
    ref = {{"performed", false}, {"reason", std::string("the reference run could not be made: ") + e.what()}};
  }
  comm.barrier();
  result["checks"]["reference"] = ref;

  if (gpu) {
    json kernels = json::object();
    for (int k = 0; k < int(StageKind::count); ++k) {
      const Variant& v = *rr[StageKind(k)].variant;
      for (const KernelRef& kr : v.kernels) {
        if (kr.elem_bytes != elem || !kr.runs(rr[StageKind(k)].tuning)) continue;
        const device::KernelAttributes a = device::kernel_attributes(kr.fn);
        kernels[v.id() + ":" + kr.name] = {{"registers", a.registers},
                                           {"static_shared_bytes", a.static_shared_bytes},
                                           {"local_bytes", a.local_bytes},
                                           {"max_threads_per_block", a.max_threads_per_block}};
      }
    }
    result["kernels"] = kernels;
  }

  if (!o.json_path.empty()) write_json(o.json_path, result);
  return result;
}

}  // namespace

void write_json(const std::string& path, const json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write result file " + path);
  out << j.dump(1) << "\n";
  if (!out) throw std::runtime_error("writing result file " + path + " failed");
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json machine_metadata(int threads_used) {
  json m = {{"cpu", {{"model", cpu_model()}, {"logical_cores", std::thread::hardware_concurrency()},
                     {"threads_used", threads_used}, {"omp_max_threads", omp_get_max_threads()}}}};
  char host[256] = {0};
  if (FILE* f = std::fopen("/proc/sys/kernel/hostname", "r")) {
    if (std::fgets(host, sizeof host, f)) host[std::strcspn(host, "\n")] = 0;
    std::fclose(f);
  }
  m["hostname"] = host;
  if (device::count() > 0) {
    const device::Properties p = device::properties(0);
    m["gpu"] = {{"name", p.name},
                {"count", device::count()},
                {"sm_count", p.sm_count},
                {"compute_capability", std::to_string(p.cc_major) + "." + std::to_string(p.cc_minor)},
                {"memory_bytes", p.memory_bytes},
                {"l2_bytes", p.l2_bytes},
                {"sm_clock_khz", p.clock_khz},
                {"memory_clock_khz", p.memory_clock_khz},
                {"bus_width_bits", p.bus_width_bits},
                {"driver_version", p.driver_version},
                {"runtime_version", p.runtime_version},
                {"pci_bus_id", p.pci_bus_id}};
  } else {
    m["gpu"] = nullptr;
    m["gpu_absent_reason"] = device::unavailable_reason();
  }
  return m;
}

json build_metadata() {
  return {{"git_commit", kGitCommit},       {"git_dirty", kGitDirty},         {"compiler", kCompiler},
          {"cxx_flags", kCxxFlags},         {"cuda_compiler", kCudaCompiler}, {"cuda_flags", kCudaFlags},
          {"cuda_architectures", kCudaArchitectures}, {"build_type", kBuildType},
          {"with_cuda", device::built_with_cuda()}};
}

namespace {

// The halo variant a decomposed run uses: --halo NAME[:TUNING], or the default for the driver and
// backend. Throws naming the variants that would fit when the choice cannot run here.
const HaloVariant* choose_halo(const std::string& choice, const std::string& driver, Backend b, Tuning& tuning) {
  const bool gpu = b == Backend::cuda;
  std::string name = choice.substr(0, choice.find(':'));
  const std::string tname = choice.find(':') == std::string::npos ? "" : choice.substr(choice.find(':') + 1);
  if (name.empty()) name = driver == "mpi" ? (gpu ? "mpi_host_staged" : "mpi_sendrecv") : (gpu ? "p2p_sync" : "shared_memory_copy");
  const HaloVariant& v = HaloRegistry::instance().get(name);
  const bool fits_backend = (v.backend == Backend::cuda) == gpu;
  if ((v.driver != driver && v.driver != "any") || !fits_backend) {
    std::string fitting;
    for (const HaloVariant& h : HaloRegistry::instance().all())
      if ((h.driver == driver || h.driver == "any") && (h.backend == Backend::cuda) == gpu) fitting += " " + h.name;
    throw std::runtime_error(v.id() + " runs " + (v.backend == Backend::cuda ? "GPU" : "host") + " arrays under the " +
                             v.driver + " driver; this run has " + (gpu ? "GPU" : "host") + " arrays under the " +
                             driver + " driver" + (driver == "threads" ? " (--ranks N)" : " (mpirun)") +
                             "; halo variants that fit:" + (fitting.empty() ? std::string(" none in this build") : fitting));
  }
  if (tname.empty()) {
    tuning = v.tunings.front();
  } else if (const Tuning* t = v.find_tuning(tname)) {
    tuning = *t;
  } else {
    std::string known;
    for (const Tuning& t2 : v.tunings) known += " " + t2.name;
    throw std::runtime_error("unknown tuning '" + tname + "' for " + v.id() + "; known:" + known);
  }
  return &v;
}

template <class T>
json run_ranks(const RunOptions& o, const Case& c, const ResolvedRecipe& rr) {
  const bool gpu = rr.backend == Backend::cuda;
  const int gpus = gpu ? device::count() : 0;
  Communicator* world = mpi::world();
  const int ranks = world ? world->size() : o.ranks;
  if (gpu) {  // before the initial state is built on the host: a grid too large fails at once
    const Grid slab0 = slab_grid(c.grid, decompose_z(c.grid, ranks, c.bc.periodic(2))[0]);
    device::set_device(world ? mpi::local_rank() % gpus : 0);
    ProjectionSolver<T>::require_gpu_memory(slab0, o.solver.scheme);
  }
  const HostState<T> start = initial_state<T>(c);

  if (world) {  // one MPI process per rank, GPUs bound by local rank
    RankEnv env;
    env.comm = world;
    env.slabs = decompose_z(c.grid, ranks, c.bc.periodic(2));
    if (ranks > 1) env.halo = choose_halo(o.halo, "mpi", rr.backend, env.halo_tuning);
    if (gpu) {
      env.device = mpi::local_rank() % gpus;
      env.oversubscribed = mpi::local_size() > gpus;
      device::set_device(env.device);
    }
    env.oversubscribed = world->allreduce_max(env.oversubscribed ? 1 : 0) > 0;
    try {
      return run_typed<T>(o, c, rr, env, start);
    } catch (const std::exception& e) {
      world->abort("rank " + std::to_string(world->rank()) + ": " + e.what());  // does not return
      throw;
    }
  }

  if (ranks == 1) {
    SingleComm single;
    RankEnv env{&single, decompose_z(c.grid, 1, c.bc.periodic(2)), nullptr, {}, gpu ? 0 : -1, false};
    if (gpu) device::set_device(0);
    return run_typed<T>(o, c, rr, env, start);
  }

  // One process, one host thread per rank (the thesis's one POSIX thread per GPU).
  RankEnv shared;
  shared.slabs = decompose_z(c.grid, ranks, c.bc.periodic(2));
  shared.halo = choose_halo(o.halo, "threads", rr.backend, shared.halo_tuning);
  shared.oversubscribed = gpu && ranks > gpus;
  auto group = std::make_shared<ThreadGroup>(ranks);
  json result;
  std::string error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(ranks)
  {
    const int r = omp_get_thread_num();
    ThreadComm comm(group, r);
    try {
      if (omp_get_num_threads() != ranks)
        throw std::runtime_error("OpenMP gave " + std::to_string(omp_get_num_threads()) + " threads for " +
                                 std::to_string(ranks) + " ranks (check OMP_THREAD_LIMIT)");
      RankEnv env = shared;
      env.comm = &comm;
      if (gpu) env.device = r % gpus, device::set_device(env.device);
      json j = run_typed<T>(o, c, rr, env, start);
      if (r == 0) result = std::move(j);
    } catch (const PeerFailed&) {  // another rank's error is the one to report
    } catch (const std::exception& e) {
      {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.empty()) error = "rank " + std::to_string(r) + ": " + e.what();
      }
      group->abort(e.what());
    }
  }
  if (!error.empty()) throw std::runtime_error(error);
  return result;
}

}  // namespace

json run(const RunOptions& o) {
  const Case c = make_case(o.case_options);
  const Backend b = parse_backend(o.backend);
  if (o.precision != "float" && o.precision != "double")
    throw std::runtime_error("unknown precision '" + o.precision + "'; known: float double");
  if (o.steps < 1) throw std::runtime_error("--steps must be at least 1");
  if (o.warmup < 0) throw std::runtime_error("--warmup must not be negative");
  if (o.solver.jacobi_iterations < 1) throw std::runtime_error("--jacobi-iterations must be at least 1");
  if (o.solver.check_every < 1) throw std::runtime_error("--check-every must be at least 1");
  if (o.ranks < 1) throw std::runtime_error("--ranks must be at least 1");
  if (o.ranks > 1 && mpi::world())
    throw std::runtime_error("--ranks is for the threads driver; under mpirun the rank count is mpirun's -np");
  const int ranks = mpi::world() ? mpi::world()->size() : o.ranks;
  if (!o.halo.empty() && ranks == 1)
    throw std::runtime_error("--halo needs several ranks: --ranks N (threads) or mpirun -np N");
  if (o.launch != "stream" && o.launch != "graph")
    throw std::runtime_error("unknown --launch '" + o.launch + "'; known: stream graph");
  if (o.launch == "graph" && b != Backend::cuda) throw std::runtime_error("--launch graph needs --backend cuda");
  if (o.launch == "graph" && o.solver.jacobi_tol > 0)
    throw std::runtime_error("--launch graph needs a fixed Jacobi count: the tolerance mode reads the residual "
                             "back to the host, which a graph cannot record");
  if (o.launch == "graph" && ranks > 1)
    throw std::runtime_error("--launch graph runs one rank: halo exchanges synchronise with other ranks on the host");
  if (b == Backend::cuda && device::count() == 0)
    throw std::runtime_error("--backend cuda: " + device::unavailable_reason());
  if (o.profile && (b != Backend::cuda || ranks > 1 || o.launch != "stream"))
    throw std::runtime_error("--profile needs --backend cuda, one rank and --launch stream (the passes tag kernels "
                             "with the stage that launched them on this process's GPU)");
  if (o.profile && o.profile_steps < 1) throw std::runtime_error("--profile-steps must be at least 1");
  nvtx_enabled() = o.nvtx;
  std::string recipe = o.recipe;
  if (recipe.empty()) recipe = b == Backend::cuda ? "thibault-optimal" : b == Backend::cpu_omp ? "cpu-omp" : "cpu-serial";
  const ResolvedRecipe rr = resolve(find_recipe(recipe), o.stage_overrides);
  const bool cpu_pair = rr.backend != Backend::cuda && b != Backend::cuda;
  if (rr.backend != b && !cpu_pair)
    throw std::runtime_error("recipe '" + recipe + "' runs on " + backend_name(rr.backend) + ", not on --backend " +
                             o.backend);
  ResolvedRecipe use = rr;
  if (cpu_pair) use.backend = b;  // cpu-serial stages under --backend cpu_omp run threaded and vice versa
  return o.precision == "float" ? run_ranks<float>(o, c, use) : run_ranks<double>(o, c, use);
}

namespace {

void print_profile(const json& p) {
  for (const char* pass : {"trace", "counters"})
    if (!p[pass]["performed"].get<bool>())
      std::printf("  profile: %s pass not made: %s\n", pass, p[pass]["reason"].get<std::string>().c_str());
  std::printf("  profile (event time from the timing pass, kernel time from the CUPTI trace, DRAM bytes from the counters):\n");
  std::printf("  %-12s %11s %11s %7s %11s %11s %8s %7s %6s\n", "stage", "event us", "kernels us", "gap", "model MB",
              "DRAM MB", "DRAM/mod", "L2 hit", "occup");
  for (auto& [name, s] : p["stages"].items()) {
    auto num = [&](const char* key, double scale, const char* fmt) {
      if (!s.contains(key)) return std::string("-");
      char b[32];
      std::snprintf(b, sizeof b, fmt, s[key].get<double>() * scale);
      return std::string(b);
    };
    std::printf("  %-12s %11s %11s %7s %11s %11s %8s %7s %6s\n", name.c_str(),
                num("event_median_s", 1e6, "%.2f").c_str(), num("kernel_median_s", 1e6, "%.2f").c_str(),
                num("gap_fraction", 100, "%.1f%%").c_str(), num("model_bytes", 1e-6, "%.2f").c_str(),
                num("dram_bytes", 1e-6, "%.2f").c_str(), num("dram_over_model", 1, "%.3f").c_str(),
                num("lts__t_sector_hit_rate.pct", 1, "%.1f%%").c_str(),
                num("sm__warps_active.avg.pct_of_peak_sustained_active", 1, "%.0f%%").c_str());
  }
}

}  // namespace

void print_summary(const json& r) {
  const json& run = r["run"];
  const json& g = run["grid"];
  std::printf("nsbench run: case %s, grid %dx%dx%d, %s, backend %s (%s launches), recipe %s, threads %d\n",
              run["case"].get<std::string>().c_str(), g["nx"].get<int>(), g["ny"].get<int>(), g["nz"].get<int>(),
              run["precision"].get<std::string>().c_str(), run["backend"].get<std::string>().c_str(),
              run["launch"].get<std::string>().c_str(), run["recipe"].get<std::string>().c_str(),
              run["threads"].get<int>());
  std::printf("  Re %.6g, dt %.4g, %s, Jacobi %d sweeps/step%s; %d timed steps after %d warm-up (%s), t = %.4g\n",
              run["re"].get<double>(), run["dt"].get<double>(), run["scheme"].get<std::string>().c_str(),
              run["jacobi"]["last_iterations"].get<int>(),
              run["jacobi"]["tolerance"].get<double>() > 0 ? " (to tolerance)" : "", run["timed_steps"].get<int>(),
              run["warmup_steps"].get<int>(), run["stop_reason"].get<std::string>().c_str(),
              run["final_time"].get<double>());
  const json& t = r["timing"];
  std::printf("  time per step: median %.4g ms (IQR %.3g ms, min %.4g ms, %zu samples), %.3g GFLOPS\n",
              t["step"]["median"].get<double>() * 1e3, t["step"]["iqr"].get<double>() * 1e3,
              t["step"]["min"].get<double>() * 1e3, t["step"]["count"].get<std::size_t>(), t["gflops"].get<double>());
  std::printf("  %-12s %-36s %12s %8s %10s %9s\n", "stage", "variant:tuning", "median/call", "calls", "GB/s",
              "of copy");
  for (int k = 0; k < int(StageKind::count); ++k) {
    const std::string name = stage_name(StageKind(k));
    const json& s = t["stages"][name];
    if (!s.contains("per_call")) continue;
    const std::string vt = s["variant"].get<std::string>() + ":" + s["tuning"].get<std::string>();
    const json& a = s["achieved"];
    char frac[16] = "-";
    if (a.contains("fraction_of_copy_bandwidth"))
      std::snprintf(frac, sizeof frac, "%.1f%%", 100 * a["fraction_of_copy_bandwidth"].get<double>());
    std::printf("  %-12s %-36s %9.4g us %8.1f %10.1f %9s\n", name.c_str(), vt.c_str(),
                s["per_call"]["median"].get<double>() * 1e6, s["calls_per_step"].get<double>(),
                a["bytes_per_second"].get<double>() * 1e-9, frac);
  }
  const json& d = run["decomposition"];
  if (d["ranks"].get<int>() > 1) {
    std::printf("  %d ranks (%s driver%s), z-slabs:", d["ranks"].get<int>(), d["driver"].get<std::string>().c_str(),
                d["oversubscribed"].get<bool>() ? ", OVERSUBSCRIBED: more ranks than GPUs" : "");
    for (const json& s : d["slabs"])
      if (s["device"].get<int>() >= 0) std::printf(" %d@gpu%d", s["nz"].get<int>(), s["device"].get<int>());
      else std::printf(" %d", s["nz"].get<int>());
    std::printf("\n  halo %s:%s, %.1f%% of the step (%s)\n", d["halo"]["variant"].get<std::string>().c_str(),
                d["halo"]["tuning"].get<std::string>().c_str(), 100 * t["halo"]["share_of_step"].get<double>(),
                t["halo"]["timing"].get<std::string>().c_str());
    for (const char* h : {"halo_predictor", "halo_pressure", "halo_correction"}) {
      if (!t["halo"].contains(h)) continue;
      const json& x = t["halo"][h];
      std::printf("  %-16s median/call %9.4g us %8.1f calls %10.1f GB/s (%.3g MB sent per call by the busiest rank)\n", h,
                  x["per_call"]["median"].get<double>() * 1e6, x["calls_per_step"].get<double>(),
                  x["bytes_per_second"].get<double>() * 1e-9, x["bytes_sent_per_call"].get<double>() * 1e-6);
    }
  }
  const json& v = r["checks"]["validation"];
  if (v["kind"] != "none")
    std::printf("  validation (%s): max error %.4g, RMS error %.4g (units of the reference velocity)%s\n",
                v["kind"].get<std::string>().c_str(), v["max_error"].get<double>(), v["rms_error"].get<double>(),
                v["kind"] == "ghia" && !v["steady_state"].get<bool>() ? "; NOT at steady state (use --until-steady)"
                                                                        : "");
  else
    std::printf("  validation: none (%s)\n", v["detail"].get<std::string>().c_str());
  if (v["kind"] == "taylor_green")
    std::printf("  kinetic energy E/E0 = %.6g, exact exp(-4 nu t) = %.6g\n", v["energy_ratio"].get<double>(),
                v["energy_ratio_exact"].get<double>());
  std::printf("  RMS divergence after projection: %.3g\n", r["checks"]["divergence_rms"].get<double>());
  if (r.contains("profile")) print_profile(r["profile"]);
  const json& ref = r["checks"]["reference"];
  if (ref["performed"].get<bool>()) {
    double worst = 0;
    for (auto& [n, f] : ref["fields"].items()) worst = std::max(worst, f["max_rel_diff"].get<double>());
    std::printf("  reference check: %s (worst max relative difference %.3g, tolerance %.1g, %d steps)\n",
                ref["pass"].get<bool>() ? "PASS" : "FAIL", worst, ref["tolerance_max_rel"].get<double>(),
                ref["steps"].get<int>());
  }
}

}  // namespace nsb
