#include "run.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include "build_info.hpp"  // generated each build: git commit, compiler, flags
#include "models.hpp"
#include "stats.hpp"
#include "validation.hpp"

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

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
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

template <class T>
json run_typed(const RunOptions& o, const Case& c, const ResolvedRecipe& rr) {
  const bool gpu = rr.backend == Backend::cuda;
  const int threads = rr.backend == Backend::cpu_omp ? (o.solver.threads > 0 ? o.solver.threads : omp_get_max_threads()) : 1;
  json result;
  result["schema"] = "nsbench.run/1";
  result["timestamp"] = now_utc();
  result["command_line"] = o.command_line;
  result["machine"] = machine_metadata(threads);
  result["build"] = build_metadata();

  device::CopyBandwidth copy;
  if (gpu) {
    copy = device::measure_copy_bandwidth();
    result["machine"]["gpu"]["copy_bandwidth"] = {{"bytes_per_second", copy.bytes_per_second},
                                                  {"bytes_per_copy", copy.bytes_per_copy},
                                                  {"samples", copy.samples},
                                                  {"median_s", copy.median_s},
                                                  {"min_s", copy.min_s},
                                                  {"max_s", copy.max_s}};
  }

  SolverOptions so = o.solver;
  so.threads = threads;
  ProjectionSolver<T> solver(c, rr, so, nullptr);
  std::unique_ptr<SectionTimer> timer;
  if (gpu) timer = std::make_unique<GpuTimer>(solver.stream());
  else timer = std::make_unique<CpuTimer>();

  const HostState<T> start = initial_state<T>(c);
  solver.load(start);
  solver.set_timer(timer.get());

  // Warm-up: module load, first touch, clocks; not recorded. Graph mode needs one plain step first, so
  // that the recorded steps are not the first (Adams-Bashforth's first step is Euler).
  const bool graph = o.launch == "graph";
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
  timer->enabled = true;
  const int chunk = graph ? 2 : 1;  // steps per timed sample

  const auto wall0 = std::chrono::steady_clock::now();
  auto last_report = wall0;
  int timed = 0;
  double change = NAN;
  bool steady = false;
  std::string stop_reason = "fixed step count";
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
    if (o.progress && std::chrono::duration<double>(now - last_report).count() > 5) {
      last_report = now;
      const double el = std::chrono::duration<double>(now - wall0).count();
      std::fprintf(stderr, "  step %d/%d  t = %.4g  elapsed %.0f s, at most %.0f s left%s\n", timed, o.steps,
                   solver.time(), el, el / timed * (o.steps - timed),
                   std::isnan(change) ? "" : ("  change " + std::to_string(change)).c_str());
    }
  }
  if (o.until_steady && !steady) stop_reason = "step cap reached before steady state (raise --steps)";
  solver.sync();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  // Statistics per section: every call, and per step (a stage may run several times in a step).
  const std::vector<Sample>& samples = timer->samples();
  std::map<int, std::vector<double>> per_call;
  std::map<int, std::map<int, double>> per_step_sum;
  std::map<int, std::map<int, int>> calls_in_step;
  for (const Sample& s : samples) {
    per_call[s.section].push_back(s.seconds);
    per_step_sum[s.section][s.step] += s.seconds;
    calls_in_step[s.section][s.step] += 1;
  }
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
    if (per_call.count(k)) {
      std::vector<double> steps_v;
      for (auto& [step, t] : per_step_sum[k]) steps_v.push_back(t);
      const Summary call = summarize(per_call[k]), step = summarize(steps_v);
      const double calls = double(per_call[k].size()) / double(steps_v.size());
      const WorkModel m = work_model(kind, c.grid, ZRange::interior(c.grid), elem, so.scheme, c.gamma != 0);
      st["per_call"] = summary_json(call);
      st["per_step"] = summary_json(step);
      st["calls_per_step"] = calls;
      st["model"] = {{"points", m.points}, {"bytes", m.bytes}, {"flops", m.flops}};
      const double bw = m.bytes / call.median;
      st["achieved"] = {{"bytes_per_second", bw}, {"flops_per_second", m.flops / call.median}};
      if (ceiling > 0) st["achieved"]["fraction_of_copy_bandwidth"] = bw / ceiling;
      st["raw_seconds"] = per_call[k];
      flops_per_step += m.flops * calls;
    } else if (graph) {  // no per-stage samples: count the calls a step makes
      const double calls = kind == StageKind::pressure ? so.jacobi_iterations : kind == StageKind::reduce ? 0 : 1;
      flops_per_step += work_model(kind, c.grid, ZRange::interior(c.grid), elem, so.scheme, c.gamma != 0).flops * calls;
    }
    stages[stage_name(kind)] = st;
  }
  std::vector<double> step_times;
  for (const Sample& s : samples)
    if (s.section == kStepSection) step_times.push_back(s.seconds / chunk);
  const Summary step = summarize(step_times);

  result["run"] = {
      {"case", c.name},
      {"grid", {{"nx", c.grid.nx}, {"ny", c.grid.ny}, {"nz", c.grid.nz}, {"lx", c.grid.lx}, {"ly", c.grid.ly},
                {"lz", c.grid.lz}}},
      {"precision", sizeof(T) == 4 ? "float" : "double"},
      {"backend", backend_name(rr.backend)},
      {"recipe", rr.name},
      {"threads", threads},
      {"launch", graph ? "graph" : "stream"},
      {"re", c.u_ref / c.nu},
      {"nu", c.nu},
      {"dt", c.dt},
      {"gamma", c.gamma},
      {"scheme", so.scheme == TimeScheme::euler ? "euler" : "adams_bashforth2"},
      {"jacobi", {{"iterations", so.jacobi_iterations}, {"tolerance", so.jacobi_tol}, {"check_every", so.check_every},
                  {"last_iterations", solver.last_jacobi_iterations()}}},
      {"warmup_steps", o.warmup},
      {"timed_steps", timed},
      {"until_steady", o.until_steady},
      {"stop_reason", stop_reason},
      {"final_time", solver.time()},
      {"wall_seconds", wall},
  };
  if (!std::isnan(change)) result["run"]["last_change"] = change;
  result["timing"] = {{"step", summary_json(step)},
                      {"step_raw_seconds", step_times},
                      {"flops_per_step", flops_per_step},
                      {"gflops", step.median > 0 ? flops_per_step / step.median * 1e-9 : 0.0},
                      {"stages", stages},
                      {"method", graph ? "CUDA events around each replay of a CUDA graph of two steps, halved; "
                                         "per-stage times are not taken in graph mode (use --launch stream)"
                                       : gpu ? "CUDA events on the solver stream around each stage and each step"
                                             : "steady_clock around each stage and each step"}};

  // Checks: physics validation of the final state, projection quality, and (GPU) the CPU reference.
  const HostState<T> fin = solver.save();
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
  {
    timer->enabled = false;
    result["checks"]["divergence_rms"] = solver.divergence_rms();
  }
  json ref = {{"performed", false}};
  if (gpu && o.check) {
    // The CPU reference from the same initial state for the same number of steps.
    const ResolvedRecipe cpu = resolve(cpu_recipe(Backend::cpu_omp), {});
    SolverOptions reference_options = so;
    reference_options.threads = 0;  // every core: the reference of a large GPU run is the slow part
    ProjectionSolver<T> reference(c, cpu, reference_options, nullptr);
    reference.load(start);
    for (int s = 0; s < fin.step; ++s) reference.step();
    const HostState<T> r = reference.save();
    const double tol = solver_tolerance<T>();
    json fields = {{"u", compare_field(fin.u, r.u)}, {"v", compare_field(fin.v, r.v)},
                   {"w", compare_field(fin.w, r.w)}, {"p", compare_field(fin.p, r.p)}};
    bool pass = true;
    for (auto& item : fields.items()) pass = pass && item.value()["max_rel_diff"].template get<double>() <= tol;
    ref = {{"performed", true}, {"against", "cpu_omp reference, same initial state and step count"},
           {"steps", fin.step}, {"tolerance_max_rel", tol}, {"fields", fields}, {"pass", pass}};
  } else if (!gpu) {
    ref["reason"] = "this run is the CPU reference";
  } else {
    ref["reason"] = "skipped by --no-check";
  }
  result["checks"]["reference"] = ref;

  if (gpu) {
    json kernels = json::object();
    for (int k = 0; k < int(StageKind::count); ++k) {
      const Variant& v = *rr[StageKind(k)].variant;
      for (const KernelRef& kr : v.kernels) {
        if (kr.elem_bytes != elem) continue;
        const device::KernelAttributes a = device::kernel_attributes(kr.fn);
        kernels[v.id() + ":" + kr.name] = {{"registers", a.registers},
                                           {"static_shared_bytes", a.static_shared_bytes},
                                           {"local_bytes", a.local_bytes},
                                           {"max_threads_per_block", a.max_threads_per_block}};
      }
    }
    result["kernels"] = kernels;
  }

  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    if (!out) throw std::runtime_error("cannot write result file " + o.json_path);
    out << result.dump(1) << "\n";
  }
  return result;
}

}  // namespace

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

json run(const RunOptions& o) {
  const Case c = make_case(o.case_options);
  const Backend b = parse_backend(o.backend);
  if (o.precision != "float" && o.precision != "double")
    throw std::runtime_error("unknown precision '" + o.precision + "'; known: float double");
  if (o.steps < 1) throw std::runtime_error("--steps must be at least 1");
  if (o.warmup < 0) throw std::runtime_error("--warmup must not be negative");
  if (o.solver.jacobi_iterations < 1) throw std::runtime_error("--jacobi-iterations must be at least 1");
  if (o.solver.check_every < 1) throw std::runtime_error("--check-every must be at least 1");
  if (o.launch != "stream" && o.launch != "graph")
    throw std::runtime_error("unknown --launch '" + o.launch + "'; known: stream graph");
  if (o.launch == "graph" && b != Backend::cuda) throw std::runtime_error("--launch graph needs --backend cuda");
  if (o.launch == "graph" && o.solver.jacobi_tol > 0)
    throw std::runtime_error("--launch graph needs a fixed Jacobi count: the tolerance mode reads the residual "
                             "back to the host, which a graph cannot record");
  if (b == Backend::cuda && device::count() == 0)
    throw std::runtime_error("--backend cuda: " + device::unavailable_reason());
  std::string recipe = o.recipe;
  if (recipe.empty()) recipe = b == Backend::cuda ? "thibault-optimal" : b == Backend::cpu_omp ? "cpu-omp" : "cpu-serial";
  const ResolvedRecipe rr = resolve(find_recipe(recipe), o.stage_overrides);
  const bool cpu_pair = rr.backend != Backend::cuda && b != Backend::cuda;
  if (rr.backend != b && !cpu_pair)
    throw std::runtime_error("recipe '" + recipe + "' runs on " + backend_name(rr.backend) + ", not on --backend " +
                             o.backend);
  ResolvedRecipe use = rr;
  if (cpu_pair) use.backend = b;  // cpu-serial stages under --backend cpu_omp run threaded and vice versa
  return o.precision == "float" ? run_typed<float>(o, c, use) : run_typed<double>(o, c, use);
}

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
