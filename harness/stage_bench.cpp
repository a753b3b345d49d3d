#include "stage_bench.hpp"

#include <cstdio>
#include <stdexcept>

#include "device.hpp"
#include "projection/models.hpp"
#include "projection/solver.hpp"
#include "run.hpp"
#include "stats.hpp"

namespace nsb {

template <class T>
StageFixture<T>::StageFixture(const Grid& g) {
  const std::size_t n = g.padded_points();
  stream = device::stream_create();
  fields.reserve(12);
  std::vector<T*> p;
  for (int i = 0; i < 12; ++i) {
    fields.emplace_back(n, true, "stage-bench field");
    p.push_back(fields.back().get());
    device::fill_random(p.back(), n, sizeof(T), 1000 + i, stream);
  }
  scratch = device::alloc(kReduceScratchBytes, "stage-bench scratch");
  out = static_cast<double*>(device::alloc(sizeof(double), "stage-bench result"));
  call.grid = g;
  call.zr = ZRange::interior(g);
  FieldPtrs<T>& f = call.f;
  f.u = p[0], f.v = p[1], f.w = p[2], f.us = p[3], f.vs = p[4], f.ws = p[5];
  f.hu = p[6], f.hv = p[7], f.hw = p[8], f.p = p[9], f.p_new = p[10], f.div = p[11];
  BoundarySpec bc;  // a cavity: walls, free-slip span, moving lid
  bc.face[1][0].type = bc.face[1][1].type = FaceType::free_slip;
  bc.face[2][1].wall_velocity[0] = 1;
  call.bc = BoundaryRules<T>::make(bc);
  call.prm.dt = T(1e-3), call.prm.nu = T(1e-3), call.prm.scheme = TimeScheme::euler, call.prm.first_step = false;
  call.prm.coef = make_grid_coef<T>(g);
  call.exec = Exec{Backend::cuda, 0, stream, scratch, kReduceScratchBytes};
  call.reduce_a = f.p_new, call.reduce_b = f.p, call.reduce_out = out;
}

template <class T>
StageFixture<T>::~StageFixture() {
  device::free(scratch);
  device::free(out);
  device::stream_destroy(stream);
}

template struct StageFixture<float>;
template struct StageFixture<double>;

namespace {

template <class T>
nlohmann::json bench_typed(const StageBenchOptions& o) {
  const Grid g = o.grid;
  const std::size_t n = g.padded_points();
  device::require_free(12 * n * sizeof(T) + kReduceScratchBytes,
                       "grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz),
                       "12 fields and the reduction scratch");
  nlohmann::json result;
  result["schema"] = "nsbench.stages/1";
  result["timestamp"] = now_utc();
  result["command_line"] = o.command_line;
  result["machine"] = machine_metadata(1);
  result["build"] = build_metadata();
  const device::CopyBandwidth copy = device::measure_copy_bandwidth();
  result["machine"]["gpu"]["copy_bandwidth"] = {{"bytes_per_second", copy.bytes_per_second},
                                                {"median_s", copy.median_s}, {"samples", copy.samples}};
  result["grid"] = {{"nx", g.nx}, {"ny", g.ny}, {"nz", g.nz}};
  result["precision"] = sizeof(T) == 4 ? "float" : "double";

  StageFixture<T> fx(g);
  StageCall<T>& call = fx.call;
  void* const stream = fx.stream;

  nlohmann::json rows = nlohmann::json::array();
  device::EventPool ev(o.samples);
  for (const Variant& v : Registry::instance().all()) {
    if (v.backend != Backend::cuda) continue;
    if (!o.stage.empty() && o.stage != stage_name(v.stage)) continue;
    if (!o.variant.empty() && o.variant != v.name) continue;
    // Momentum is timed with both time schemes: Adams-Bashforth also streams the previous right-hand side.
    const std::vector<TimeScheme> schemes = v.stage == StageKind::momentum
                                                ? std::vector<TimeScheme>{TimeScheme::euler, TimeScheme::adams_bashforth2}
                                                : std::vector<TimeScheme>{TimeScheme::euler};
    for (const TimeScheme scheme : schemes)
    for (const Tuning& t : v.tunings) {
      if (!o.tuning.empty() && o.tuning != t.name) continue;
      call.tuning = t;
      call.prm.scheme = scheme;
      const char* scheme_name = scheme == TimeScheme::euler ? "euler" : "ab2";
      nlohmann::json row = {{"stage", stage_name(v.stage)}, {"variant", v.id()}, {"tuning", t.name}, {"tags", v.tags},
                            {"scheme", scheme_name}};
      try {
        for (int w = 0; w < o.warmup; ++w) v.fn<T>()(call);
        for (int s = 0; s < o.samples; ++s) {
          NvtxRange range(v.id().c_str());  // an ncu --nvtx-include filter picks exactly this variant's calls
          ev.record_start(s, stream);
          v.fn<T>()(call);
          ev.record_stop(s, stream);
        }
        std::vector<double> secs(o.samples);
        for (int s = 0; s < o.samples; ++s) secs[s] = ev.elapsed_seconds(s);
        device::stream_sync(stream);
        const Summary sm = summarize(secs);
        const WorkModel m = work_model(v.stage, g, call.zr, sizeof(T), call.prm.scheme, false);
        row["median_s"] = sm.median, row["iqr_s"] = sm.iqr, row["min_s"] = sm.min, row["samples"] = sm.count;
        row["raw_seconds"] = secs;
        row["model_bytes"] = m.bytes, row["model_flops"] = m.flops;
        row["bytes_per_second"] = m.bytes / sm.median;
        row["flops_per_second"] = m.flops / sm.median;
        row["fraction_of_copy_bandwidth"] = m.bytes / sm.median / copy.bytes_per_second;
        nlohmann::json kernels = nlohmann::json::array();
        for (const KernelRef& k : v.kernels) {
          if (k.elem_bytes != int(sizeof(T)) || !k.runs(t)) continue;
          const device::KernelAttributes a = device::kernel_attributes(k.fn);
          kernels.push_back({{"name", k.name}, {"registers", a.registers}, {"static_shared_bytes", a.static_shared_bytes},
                             {"local_bytes", a.local_bytes}});
        }
        row["kernels"] = kernels;
        const int regs = kernels.empty() ? -1 : kernels[0]["registers"].get<int>();
        std::printf("%-12s %-36s %-15s %-5s %10.2f us  IQR %7.2f  %8.1f GB/s  %5.1f%% of copy  regs %d\n",
                    stage_name(v.stage), v.id().c_str(), t.name.c_str(), scheme_name, sm.median * 1e6, sm.iqr * 1e6,
                    m.bytes / sm.median * 1e-9, 100 * m.bytes / sm.median / copy.bytes_per_second, regs);
      } catch (const std::exception& e) {
        row["error"] = e.what();
        std::printf("%-12s %-36s %-15s ERROR %s\n", stage_name(v.stage), v.id().c_str(), t.name.c_str(), e.what());
        device::stream_sync(stream);
      }
      std::fflush(stdout);
      rows.push_back(row);
    }
  }
  result["rows"] = rows;
  if (!o.json_path.empty()) write_json(o.json_path, result);
  return result;
}

}  // namespace

nlohmann::json bench_stages(const StageBenchOptions& o) {
  if (device::count() == 0) throw std::runtime_error("nsbench stages needs a GPU: " + device::unavailable_reason());
  if (o.samples < 3) throw std::runtime_error("--samples must be at least 3");
  std::printf("stage benchmark: grid %dx%dx%d, %s, %d samples after %d warm-up calls per variant x tuning\n",
              o.grid.nx, o.grid.ny, o.grid.nz, o.precision.c_str(), o.samples, o.warmup);
  if (o.precision == "float") return bench_typed<float>(o);
  if (o.precision == "double") return bench_typed<double>(o);
  throw std::runtime_error("unknown precision '" + o.precision + "'");
}

}  // namespace nsb
