// What the family's iterative methods share (rbsor.cpp, cg.cpp, the poisson solver): their stages
// resolved once for the equation's backend from PoissonSettings::kernels, work vectors and device
// scalars, the null-space rule, and the residual history.
//
// Null space (no dirichlet face): the right-hand side's interior mean is removed before solving
// (rhs_shift, so the equation is compatible) and the solution's interior mean is set to zero on return
// (the faces stage's shift). Tolerances: RMS(rhs_scale (rhs - rhs_shift) - L p) over
// RMS(rhs_scale (rhs - rhs_shift)), interior points.
//
// Ranks (cg, pcg on a rank's slab: PoissonEquation::ranks): every sum a stage writes is summed over the
// ranks by sum() (on the GPU where the ranks can, else through the host) before anything reads it (so the scalars on the device are the whole grid's), means
// and RMS divide by the whole grid's points, and the solution's cut ghost planes are exchanged.
#pragma once

#include <chrono>
#include <cstdio>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/stage_call.hpp"
#include "recipe.hpp"

namespace nsb {

// "variant[:tuning]" -> its tuning part ("" when none).
inline std::string tuning_part(const std::string& choice) {
  const auto colon = choice.find(':');
  return colon == std::string::npos ? "" : choice.substr(colon + 1);
}

template <class T>
class PoissonStages {
 public:
  // rank_aware: the method calls sum() and exchanges (cg, pcg), so it may take a decomposed equation.
  PoissonStages(const PoissonSettings& s, const PoissonEquation<T>& e, int work_vectors, bool rank_aware = false)
      : settings_(s), backend_(e.exec.backend), vectors_(e.grid.padded_points(), e.exec.backend == Backend::cuda),
        ranks_(e.decomposed ? e.ranks : nullptr), points_(e.grid.interior_points()) {
    if (e.decomposed && !(rank_aware && e.ranks))
      throw std::invalid_argument("this iterative Poisson method solves on one rank (cg and pcg also on a solver's "
                                  "ranks); this equation is a rank's slab of a decomposed grid");
    if (ranks_) points_ = ranks_->global_points();
    if (work_vectors > kMaxVectors) throw std::logic_error("PoissonStages: at most 3 work vectors");
    for (int v = 0; v < work_vectors; ++v) {
      vectors_.add(kVectorNames[v]);
      vectors_.upload(kVectorNames[v], std::vector<T>(e.grid.padded_points(), T(0)));
    }
    if (gpu()) {
      scalars_ = static_cast<double*>(device::alloc(kScalars * sizeof(double), "poisson method scalars"));
      scratch_ = device::alloc(kReduceScratchBytes, "poisson method reduction scratch");
    } else {
      scalars_ = host_scalars_;
    }
  }
  ~PoissonStages() {
    if (gpu()) device::free(scalars_), device::free(scratch_);
  }
  PoissonStages(const PoissonStages&) = delete;
  PoissonStages& operator=(const PoissonStages&) = delete;

  bool gpu() const { return backend_ == Backend::cuda; }
  T* vector(int v) { return vectors_[kVectorNames[v]]; }
  double* scalar(int i) { return scalars_ + i; }
  static constexpr int kScalars = 8;
  static constexpr int kMaxVectors = 3;
  static constexpr const char* kVectorNames[kMaxVectors] = {"w0", "w1", "w2"};

  // The stage's variant and tuning: the settings' choice, or the kind's default for the backend. A CPU
  // backend given a GPU variant (a GPU run's choices, reused by its CPU reference run) takes its CPU
  // reference with the choice's tuning where that reference has it (rbsor's omegas).
  const ResolvedStage& stage(const std::string& name) {
    const auto found = resolved_.find(name);
    if (found != resolved_.end()) return found->second;
    const std::string id = "poisson/" + name;
    const auto chosen = settings_.kernels.find(id);
    std::string choice = chosen == settings_.kernels.end() ? "" : chosen->second;
    if (!choice.empty() && backend_ != Backend::cuda) {
      const Variant* v = Registry::instance().find(id, choice.substr(0, choice.find(':')));
      if (v && v->backend == Backend::cuda) choice = cpu_choice(id, choice);
    }
    return resolved_.emplace(name, resolve_stage_choice(id, backend_, choice)).first->second;
  }
  void run(const std::string& name, PoissonCall<T>& c) {
    const ResolvedStage& s = stage(name);
    c.tuning = s.tuning;
    if (gpu() && !c.exec.scratch) c.exec.scratch = scratch_, c.exec.scratch_bytes = kReduceScratchBytes;
    s.variant->template fn<PoissonCall<T>>()(c);
  }
  // The variant ids this method ran, for the run's record.
  std::map<std::string, std::string> kernels() const {
    std::map<std::string, std::string> out;
    for (const auto& [name, s] : resolved_) out["poisson/" + name] = s.variant->name + ":" + s.tuning.name;
    return out;
  }
  // The CPU reference standing in for GPU choice `choice` of stage `id`: the backend's reference variant,
  // with the choice's relaxation factor where the tuning has one (w150 of "global_2d:bx32_by4_sz8_w150").
  std::string cpu_choice(const std::string& id, const std::string& choice) const {
    std::string out = backend_name(backend_);
    const std::string tuning = tuning_part(choice);
    const int w = tuning.empty() ? 0 : parse_tuning(tuning).w;
    if (w != 0) {
      char name[16];
      std::snprintf(name, sizeof name, "w%d", w);
      if (Registry::instance().get(id, out).find_tuning(name)) out.append(":").append(name);
    }
    return out;
  }
  // Slots i .. i+n-1, written by the last stage on this rank, summed over the ranks in place: on the GPU
  // where the solver's ranks can (PoissonRanks::sum_on_device, no host wait), else the paper's host-side
  // reduction of per-GPU dots (synchronises). One rank: nothing to do.
  void sum(int i, int n, const Exec& exec) {
    if (!ranks_) return;
    if (gpu() && ranks_->sum_on_device(scalars_ + i, n)) return;
    double v[kScalars];
    if (gpu()) device::stream_sync(exec.stream), device::copy_to_host(v, scalars_ + i, std::size_t(n) * sizeof(double));
    else std::copy(scalars_ + i, scalars_ + i + n, v);
    for (int k = 0; k < n; ++k) v[k] = ranks_->sum(v[k]);
    if (gpu()) device::copy_to_device(scalars_ + i, v, std::size_t(n) * sizeof(double));
    else std::copy(v, v + n, scalars_ + i);
  }
  // The exchange of a vector's cut ghost planes (one rank: nothing to do).
  void exchange(T* vector) {
    if (ranks_) ranks_->exchange(vector);
  }
  PoissonRanks<T>* ranks() const { return ranks_; }
  double points() const { return points_; }  // interior cells of the whole grid
  // Sums written by the last stage into scalars(i..i+1), read back (synchronises).
  double read(int i, const Exec& exec) {
    if (!gpu()) return scalars_[i];
    double v = 0;
    device::stream_sync(exec.stream);
    device::copy_to_host(&v, scalars_ + i, sizeof v);
    return v;
  }

 private:
  PoissonSettings settings_;
  Backend backend_;
  FieldSet<T> vectors_;
  std::map<std::string, ResolvedStage> resolved_;
  double* scalars_ = nullptr;
  void* scratch_ = nullptr;  // the reductions' partials and library storage, where the equation brings none
  double host_scalars_[kScalars] = {};
  PoissonRanks<T>* ranks_;
  double points_;
};

// A call for equation e: its grid, faces, coefficients, arrays and execution.
template <class T>
PoissonCall<T> poisson_call(const PoissonEquation<T>& e) {
  PoissonCall<T> c;
  c.grid = e.grid;
  c.faces = e.faces;
  c.coef = make_poisson_coef<T>(e.grid);
  c.x = e.p;
  c.rhs = e.rhs;
  c.rhs_scale = e.rhs_scale;
  c.exec = e.exec;
  return c;
}

// The start of a solve: the right-hand side's shift (its mean where the equation is singular) and the
// RMS of the compatible right-hand side, by the dot stage (scalar slot `slot`).
template <class T>
struct SolveStart {
  T rhs_shift = 0;
  double rhs_rms = 0;
};
template <class T>
SolveStart<T> start_solve(PoissonStages<T>& st, PoissonCall<T> c, int slot) {
  const double points = st.points();
  c.a = c.rhs, c.b = nullptr, c.out = st.scalar(slot);
  st.run("dot", c);
  st.sum(slot, 1, c.exec);
  const double mean = st.read(slot, c.exec) / points;
  c.b = c.rhs;
  st.run("dot", c);
  st.sum(slot, 1, c.exec);
  const double mean_square = st.read(slot, c.exec) / points;
  SolveStart<T> s;
  const bool singular = c.faces.singular();
  s.rhs_shift = singular ? T(mean) : T(0);
  const double variance = singular ? std::max(mean_square - mean * mean, 0.0) : mean_square;
  s.rhs_rms = std::abs(double(c.rhs_scale)) * std::sqrt(variance);
  return s;
}

// The end of a solve: the solution's interior mean set to zero where the equation is singular, and its
// ghost layer from the faces.
template <class T>
void finish_solve(PoissonStages<T>& st, PoissonCall<T> c, int slot) {
  c.shift = 0;
  if (c.faces.singular()) {
    c.a = c.x, c.b = nullptr, c.out = st.scalar(slot);
    st.run("dot", c);
    st.sum(slot, 1, c.exec);
    c.shift = T(st.read(slot, c.exec) / st.points());
  }
  st.run("faces", c);
  st.exchange(c.x);
}

// Seconds since a solve began, for the residual history (taken where a check has synchronised).
class SolveClock {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace nsb
