#include "stage_bench.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "cpu_bandwidth.hpp"
#include "device.hpp"
#include "nvtx.hpp"
#include "run/result.hpp"
#include "stage_kind.hpp"
#include "stats.hpp"
#include "verify.hpp"

namespace nsb {

namespace {

bool selected(const StageBenchOptions& o, const Variant& v) {
  return v.backend == parse_backend(o.backend) && (o.solver.empty() || o.solver == v.solver()) &&
         any_stage_matches(o.stages, v) && any_variant_matches(o.variants, v);
}

// A row whose first warm-up call took longer than this gets no further warm-up calls: that call already
// loaded the module and touched the fields first, and each call more would cost the benchmark seconds
// (imle/mls/two_phase_aos takes about 1 s a call at 256x256x128). The row records that the rule applied.
constexpr double kLongWarmupCallSeconds = 0.5;

// `warmup` untimed calls, or one when the first took over kLongWarmupCallSeconds; the row's record of
// the rule where it applied (null where every warm-up call was made).
template <class T>
nlohmann::json warm_up(StageFixture<T>& fx, const Variant& v, const Tuning& t, int warmup) {
  for (int w = 0; w < warmup; ++w) {
    const auto start = std::chrono::steady_clock::now();
    fx.run(v, t);
    if (w > 0) continue;
    if (v.backend == Backend::cuda) device::stream_sync(fx.stream());
    const double first = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (first > kLongWarmupCallSeconds && warmup > 1) {
      char rule[160];
      std::snprintf(rule, sizeof rule, "a first warm-up call over %g s (module load and first touch done) gets no "
                    "further warm-up calls", kLongWarmupCallSeconds);
      return {{"calls", 1}, {"asked", warmup}, {"first_call_s", first}, {"rule", rule}};
    }
  }
  return nullptr;
}

}  // namespace

template <class T>
nlohmann::json time_stage_call(StageFixture<T>& fx, const Variant& v, const Tuning& t, int samples, int warmup,
                               device::EventPool* ev, double copy_bandwidth) {
  void* const stream = fx.stream();
  const bool gpu = v.backend == Backend::cuda;
  const nlohmann::json short_warmup = warm_up(fx, v, t, warmup);
  fx.phase_reset();
  std::vector<double> secs(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) {
    NvtxRange range(v.id().c_str());  // an ncu --nvtx-include filter picks exactly this variant's calls
    if (gpu) {
      ev->record_start(s, stream);
      fx.run(v, t);
      ev->record_stop(s, stream);
    } else {  // a CPU variant returns when its work is done
      const auto start = std::chrono::steady_clock::now();
      fx.run(v, t);
      secs[std::size_t(s)] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  }
  if (gpu) {
    for (int s = 0; s < samples; ++s) secs[std::size_t(s)] = ev->elapsed_seconds(s);
    device::stream_sync(stream);
  }
  const Summary sm = summarize(secs);
  const WorkModel m = fx.model();
  nlohmann::json row;
  row["median_s"] = sm.median, row["iqr_s"] = sm.iqr, row["min_s"] = sm.min, row["samples"] = sm.count;
  row["raw_seconds"] = secs;
  row["model_bytes"] = m.bytes, row["model_flops"] = m.flops;
  row["bytes_per_second"] = m.bytes / sm.median;
  row["flops_per_second"] = m.flops / sm.median;
  row["fraction_of_copy_bandwidth"] = m.bytes / sm.median / copy_bandwidth;
  row["kernels"] = kernels_run(v, t, int(sizeof(T)));
  if (!short_warmup.is_null()) row["warmup"] = short_warmup;
  for (const auto& [name, part] : fx.phase_seconds()) {  // the parts a variant timed itself, each call's
    const Summary ps = summarize(part);
    row["phases"][name] = {{"median_s", ps.median}, {"iqr_s", ps.iqr}, {"samples", ps.count}};
  }
  return row;
}

template nlohmann::json time_stage_call<float>(StageFixture<float>&, const Variant&, const Tuning&, int, int,
                                               device::EventPool*, double);
template nlohmann::json time_stage_call<double>(StageFixture<double>&, const Variant&, const Tuning&, int, int,
                                                device::EventPool*, double);

namespace {

// The CPU's STREAM copy and triad bandwidth on the threads a CPU row uses.
struct CpuLimits {
  double copy = std::nan(""), triad = std::nan("");
};

// A CPU row's share of the CPU's bandwidth, as a GPU row's fraction_of_copy_bandwidth is of the GPU's.
void add_cpu_fractions(nlohmann::json& row, const CpuLimits& cpu) {
  const double achieved = row["bytes_per_second"].get<double>();
  row["fraction_of_cpu_copy_bandwidth"] = achieved / cpu.copy;
  row["fraction_of_cpu_triad_bandwidth"] = achieved / cpu.triad;
}

void print_row(const nlohmann::json& row, const std::string& stage, const std::string& variant,
               const std::string& tuning, const std::string& workload, Backend backend) {
  const bool gpu = backend == Backend::cuda;
  const int regs = row["kernels"].empty() ? -1 : row["kernels"][0]["registers"].get<int>();
  const double fraction = gpu ? row["fraction_of_copy_bandwidth"].get<double>()
                              : row["fraction_of_cpu_triad_bandwidth"].get<double>();
  std::printf("%-12s %-46s %-20s %-5s %10.2f us  IQR %7.2f  %8.1f GB/s  %5.1f%% of %s  regs %d\n", stage.c_str(),
              variant.c_str(), tuning.c_str(), workload.c_str(), row["median_s"].get<double>() * 1e6,
              row["iqr_s"].get<double>() * 1e6, row["bytes_per_second"].get<double>() * 1e-9, 100 * fraction,
              gpu ? "copy" : "CPU triad", regs);
}

template <class T>
nlohmann::json bench_typed(const StageBenchOptions& o) {
  const Grid g = o.grid;
  nlohmann::json result;
  result["schema"] = "nsbench.stages/2";
  result["timestamp"] = now_utc();
  result["command_line"] = o.command_line;
  const Backend backend = parse_backend(o.backend);
  if (backend == Backend::cpu_omp && o.threads > 0) omp_set_num_threads(o.threads);
  const int threads = backend == Backend::cpu_omp ? omp_get_max_threads() : 1;
  result["machine"] = machine_metadata(threads);
  result["build"] = build_metadata();
  result["backend"] = o.backend;
  // A row's limit: the GPU's copy bandwidth, or the CPU's on the threads the rows use (STREAM copy
  // and triad, measured by machine_metadata); a limit not measured is NaN, written as null.
  device::CopyBandwidth copy{};
  copy.bytes_per_second = std::nan("");
  CpuLimits cpu;
  if (backend == Backend::cuda) {
    copy = device::measure_copy_bandwidth();
    result["machine"]["gpu"]["copy_bandwidth"] = {{"bytes_per_second", copy.bytes_per_second},
                                                  {"median_s", copy.median_s}, {"samples", copy.samples}};
  } else {
    result["threads"] = threads;
    const nlohmann::json& bw = result["machine"]["cpu"]["bandwidth"];
    cpu = {cpu_stream_bytes_per_second(bw, "copy", threads), cpu_stream_bytes_per_second(bw, "triad", threads)};
  }
  result["grid"] = {{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}};
  result["precision"] = sizeof(T) == 4 ? "float" : "double";

  nlohmann::json rows = nlohmann::json::array();
  std::optional<device::EventPool> ev;  // the GPU's events (none on a CPU run: a build without CUDA has none)
  if (backend == Backend::cuda) ev.emplace(std::size_t(o.samples));
  for (const StageKind& k : StageKindRegistry::instance().all()) {
    std::vector<const Variant*> variants;
    for (const Variant* v : Registry::instance().of_stage(k.id()))
      if (selected(o, *v)) variants.push_back(v);
    if (variants.empty()) continue;
    const Grid kg = k.verify_grid ? k.verify_grid(g) : g;
    // One fixture at a time per kind and workload (a 512^3 double fixture alone can be 12 GiB).
    for (const std::string& workload : k.workloads) {
      const auto fx = k.fixture<T>()(FixtureSpec{k.name, kg, backend == Backend::cuda ? Backend::cuda : Backend::cpu_serial, workload, 1000, false});
      for (const Variant* v : variants)
        for (const Tuning& t : v->tunings) {
          if (!o.tuning.empty() && o.tuning != t.name) continue;
          if (!k.runs(*v, workload)) continue;
          nlohmann::json row = {{"solver", k.solver}, {"stage", k.name}, {"variant", v->id()}, {"tuning", t.name},
                                {"tags", v->tags}, {"scheme", workload}};
          try {
            row.update(time_stage_call(*fx, *v, t, o.samples, o.warmup, ev ? &*ev : nullptr, copy.bytes_per_second));
            if (backend != Backend::cuda) add_cpu_fractions(row, cpu);
            print_row(row, k.name, v->id(), t.name, workload, backend);
          } catch (const std::exception& e) {
            row["error"] = e.what();
            std::printf("%-12s %-46s %-20s ERROR %s\n", k.name.c_str(), v->id().c_str(), t.name.c_str(), e.what());
            if (backend == Backend::cuda) device::stream_sync(fx->stream());
          }
          std::fflush(stdout);
          rows.push_back(row);
        }
    }
  }
  result["rows"] = rows;
  if (!o.json_path.empty()) write_json(o.json_path, result, o.overwrite);
  return result;
}

}  // namespace

nlohmann::json bench_stages(const StageBenchOptions& o) {
  const Backend backend = parse_backend(o.backend);
  if (backend == Backend::cuda && device::count() == 0)
    throw std::runtime_error("nsbench stages needs a GPU: " + device::unavailable_reason());
  if (o.samples < 3) throw std::runtime_error("--samples must be at least 3");
  if (o.grid.nx < 1 || o.grid.ny < 1 || o.grid.nz < 1)
    throw std::runtime_error("impossible grid " + std::to_string(o.grid.nx) + "x" + std::to_string(o.grid.ny) + "x" +
                             std::to_string(o.grid.nz) + ": every axis needs at least 1 interior cell");
  check_variant_filters(o.solver, o.stages, o.variants, o.tuning);
  bool any = false;
  for (const Variant& v : Registry::instance().all()) any = any || selected(o, v);
  if (!any)
    throw std::runtime_error(std::string("nothing to time: no ") + backend_name(backend) +
                             " variant matches the filters (nsbench list shows each variant's backend)");
  std::printf("stage benchmark (%s): grid %dx%dx%d, %s, %d samples after %d warm-up calls per variant x tuning\n",
              backend_name(backend), o.grid.nx, o.grid.ny, o.grid.nz, o.precision.c_str(), o.samples, o.warmup);
  if (o.precision == "float") return bench_typed<float>(o);
  if (o.precision == "double") return bench_typed<double>(o);
  throw std::runtime_error("unknown precision '" + o.precision + "'");
}

}  // namespace nsb
