// What every result file carries besides its timings: machine and build metadata, the time it was
// written, and how it is written; plus the generic comparison of two states field by field.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver.hpp"
#include "stats.hpp"

namespace nsb {

// Machine and build metadata for results (also used by the stage benchmarks and nsbench-micro).
nlohmann::json machine_metadata(int threads_used);
std::string cpu_model();  // /proc/cpuinfo's first "model name", or "unknown"
nlohmann::json build_metadata();
std::string now_utc();  // "2026-11-22T04:30:00Z", for result files
// Writes a result file (one line of JSON) atomically: into a temporary file beside it, then moved into place, so a
// reader never sees half a file. Never over an existing file unless `replace` (--force): the move is a link() that
// fails when `path` appeared meanwhile, and this run's result is then kept as <path>.pid<N>.json. Throws naming
// the path and the reason (strerror: "No space left on device") when it cannot; a failed write leaves no file.
void write_json(const std::string& path, const nlohmann::json& j, bool replace = false);
// Before a run: throws, naming the problem, when a result could not be written to `path` at the end
// (its folder is missing or not writable) or when the file exists and `overwrite` is false, so that
// no run's output is lost to a bad path.
void check_result_path(const std::string& path, bool overwrite);

// Raw samples of one series as stored in a result: all of them up to kMaxRawSamples, else a uniform
// subsample (every k-th, in order) of about that many; statistics are always taken from all samples.
// `kept` says which ({"kept": m, "of": n, "stride": k}) when a subsample was taken.
constexpr std::size_t kMaxRawSamples = 2000;
nlohmann::json bounded_samples(const std::vector<double>& samples, nlohmann::json* kept = nullptr);

nlohmann::json summary_json(const Summary& s);

// The compiled kernels a variant runs with tuning t in one precision: name, registers, static shared
// and local (spill) bytes, the largest block, from cudaFuncGetAttributes.
nlohmann::json kernels_run(const Variant& v, const Tuning& t, int elem_bytes);

// Relative difference of two fields over the whole padded array (ghosts included: they are state too).
template <class T>
nlohmann::json compare_field(const std::vector<T>& got, const std::vector<T>& ref) {
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

// Every field of `ref` compared with the same field of `got`; pass when every max relative difference
// is within tol.
template <class T>
nlohmann::json compare_states(const HostState<T>& got, const HostState<T>& ref, double tol, bool& pass) {
  nlohmann::json fields = nlohmann::json::object();
  pass = true;
  for (const auto& [name, values] : ref.fields) {
    fields[name] = compare_field(got.field(name), values);
    pass = pass && fields[name]["max_rel_diff"].template get<double>() <= tol;
  }
  return fields;
}

// Tolerance of a whole-solver comparison with the CPU reference, relative to the field's largest
// value. GPU and CPU differ only in rounding (fused multiply-adds, summation order), which compounds
// over the steps: measured worst cases are ~5e-16 in double and ~8e-7 in float after 110 projection steps.
template <class T>
double solver_tolerance() {
  return sizeof(T) == 4 ? 2e-4 : 1e-10;
}

// A Krylov pressure solve (cg, pcg) amplifies that rounding: its iterates depend on every earlier dot
// product, so a change of summation order alone (the CPU's own thread count) moves its residual history
// by percents mid-solve and the state after a few steps by up to ~1e-9 of a field's largest value (the
// IMLE solver, issue 22: docs/solvers/imle.md has the measurements). Its runs get this tolerance instead.
inline bool krylov_method(const std::string& poisson_method) { return poisson_method == "cg" || poisson_method == "pcg"; }
template <class T>
double reference_tolerance(const std::string& pressure_method) {
  return sizeof(T) == 8 && krylov_method(pressure_method) ? 1e-8 : solver_tolerance<T>();
}

}  // namespace nsb
