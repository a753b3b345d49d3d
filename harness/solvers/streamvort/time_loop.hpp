// The stream-function/vorticity solver of Gohari et al. (2012), Sec. 2.2 and Fig. 13, one time step:
//
//   omega_new = omega + dt (nu L omega - U omega_xi - V omega_eta)  vorticity  (explicit, interior rows;
//                                                                   convection hybrid or upwind2)
//   omega <-> omega_new                                             (pointers swap)
//   S times: psi_new = Jacobi(psi; omega), residual -> history[s]  stream     (S = --jacobi-iterations)
//            psi <-> psi_new
//     or, with --poisson sor: psi = SOR(psi; omega) in place          stream_sor (four colours, omega of
//                                                                               --case-param sor_omega)
//   omega on rows 0 and ny + 1 from psi                             boundary   (wall, far field)
//   nu_eff = nu + nu_t (Baldwin-Lomax) along every xi column       turbulence (turbulent cases only;
//                                                                   the next step's vorticity reads it)
//
// The same S sweeps a step on every backend (the paper compares CPU and GPU "based on the equal number
// of iterations"). Each sweep's residual (max |psi_new - psi|) is written to its slot of a history on
// the solver's side of the memory, read back only by final_checks(), so no step waits on the host and
// a step can be replayed as a CUDA graph. The boundary rows of psi (body 0, far field the free stream,
// the plate's inflow column) are in both psi arrays from load() on and no stage writes them.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "nvtx.hpp"
#include "solver_base.hpp"
#include "streamvort/case.hpp"
#include "grid2d/stage_call.hpp"

namespace nsb {

enum StreamvortSection : int {
  kVorticitySection = 0, kStreamSection = 1, kBoundarySection = 2, kTurbulenceSection = 3, kStreamSorSection = 4
};
inline std::vector<std::string> streamvort_sections() { return {"vorticity", "stream", "boundary", "turbulence", "stream_sor"}; }

template <class T>
class FlowSolver final : public SolverBase<T> {
  using Base = SolverBase<T>;
  using Base::stream_, Base::timer_, Base::step_, Base::time_, Base::begin, Base::end, Base::timed, Base::sync;

 public:
  FlowSolver(const FlowCase& c, const ResolvedRecipe& r, const SolverOptions& o)
      : Base(c.dt), case_(c), grid_(c.geo.grid), recipe_(r), sweeps_(o.jacobi_iterations), gpu_(r.backend == Backend::cuda),
        fields_(grid_.padded_points(), gpu_), vorticity_stage_(&recipe_["vorticity"]), stream_stage_(&recipe_["stream"]),
        boundary_stage_(&recipe_["boundary"]), turbulence_stage_(&recipe_["turbulence"]),
        sor_(o.poisson_method == "sor") {
    if (sor_) stream_stage_ = &recipe_["stream_sor"];
    for (const char* name : {"x", "y", "ca", "cb", "cg", "p", "q", "ij", "psi", "psi_new", "omega", "omega_new"})
      fields_.add(name);
    if (case_.turbulent) fields_.add("wall_dist"), fields_.add("nu_eff");
    exec_ = Exec{r.backend, o.threads, nullptr, nullptr, 0};
    if (gpu_) {
      stream_ = device::stream_create();
      scratch_ = device::alloc(kReduceScratchBytes, "streamvort reduction scratch");
      history_device_ = static_cast<T*>(device::alloc(sizeof(T) * std::size_t(sweeps_), "streamvort residuals"));
      exec_ = Exec{r.backend, o.threads, stream_, scratch_, kReduceScratchBytes};
    }
    history_host_.assign(std::size_t(sweeps_), T(0));
    const auto up = [&](const char* name, const std::vector<double>& v) {
      fields_.upload(name, std::vector<T>(v.begin(), v.end()));
    };
    const Metrics& m = case_.metrics;
    up("x", case_.geo.x), up("y", case_.geo.y), up("ca", m.ca), up("cb", m.cb), up("cg", m.cg), up("p", m.p),
        up("q", m.q), up("ij", m.ij);
    if (case_.turbulent) up("wall_dist", case_.wall_dist), up("nu_eff", std::vector<double>(grid_.padded_points(), case_.nu));
  }
  ~FlowSolver() override {
    if (!stream_) return;
    device::free(history_device_);
    device::free(scratch_);
    device::stream_destroy(stream_);
  }
  FlowSolver(const FlowSolver&) = delete;
  FlowSolver& operator=(const FlowSolver&) = delete;

  static std::size_t device_bytes(const Grid& g, int sweeps, bool turbulent) {
    return (turbulent ? 14 : 12) * g.padded_points() * sizeof(T) + kReduceScratchBytes + std::size_t(sweeps) * sizeof(T);
  }

  void load(const HostState<T>& s) override {
    psi_ = fields_["psi"], psi_new_ = fields_["psi_new"], omega_ = fields_["omega"], omega_new_ = fields_["omega_new"];
    for (const char* name : {"psi", "psi_new"}) fields_.upload(name, s.field("psi"));
    for (const char* name : {"omega", "omega_new"}) fields_.upload(name, s.field("omega"));
    step_ = s.step;
    time_ = s.time;
    sync();
  }
  HostState<T> save() const override {
    sync();
    HostState<T> s{grid_, {}, step_, time_};
    s.fields.emplace_back("psi", fields_.buffer_of(psi_).download());
    s.fields.emplace_back("omega", fields_.buffer_of(omega_).download());
    return s;
  }

  void step() override {
    if (timer_) timer_->set_step(step_);
    NvtxRange step_range("step");
    begin(kStepSection);
    timed(kVorticitySection, "vorticity", [&] {
      const VorticityCall<T> c{grid_, omega_, psi_, f("ca"), f("cb"), f("cg"), f("p"), f("q"), f("ij"), omega_new_,
                               T(case_.nu), T(case_.dt), case_.psi_ends, stage("vorticity").tuning, exec_,
                               case_.turbulent ? f("nu_eff") : nullptr, case_.convection};
      stage("vorticity").variant->template fn<VorticityCall<T>>()(c);
    });
    std::swap(omega_, omega_new_);
    for (int s = 0; s < sweeps_; ++s) {
      timed(sor_ ? kStreamSorSection : kStreamSection, sor_ ? "stream_sor" : "stream", [&] {
        const StreamCall<T> c{grid_, psi_, omega_, f("ca"), f("cb"), f("cg"), f("p"), f("q"), sor_ ? psi_ : psi_new_,
                              T(sor_ ? case_.sor_omega : case_.relax), case_.psi_ends, residual_slot(s),
                              stage("stream").tuning, exec_};
        stage("stream").variant->template fn<StreamCall<T>>()(c);
      });
      if (!sor_) std::swap(psi_, psi_new_);
    }
    timed(kBoundarySection, "boundary", [&] {
      const BoundaryCall<T> c{grid_, psi_, f("cg"), f("x"), f("y"), omega_, case_.geo.wall_begin, case_.psi_ends,
                              T(1), T(0), stage("boundary").tuning, exec_};
      stage("boundary").variant->template fn<BoundaryCall<T>>()(c);
    });
    if (case_.turbulent)
      timed(kTurbulenceSection, "turbulence", [&] {
        const TurbulenceCall<T> c{grid_, psi_, omega_, f("ca"), f("cb"), f("cg"), f("wall_dist"), f("nu_eff"), T(case_.nu),
                                  case_.geo.wall_begin, case_.psi_ends, stage("turbulence").tuning, exec_};
        stage("turbulence").variant->template fn<TurbulenceCall<T>>()(c);
      });
    end(kStepSection);
    ++step_;
    time_ += case_.dt;
  }

  // The last step's residual history (one value a sweep), read back.
  std::vector<T> residual_history() const {
    if (!gpu_) return history_host_;
    sync();
    std::vector<T> h(static_cast<std::size_t>(sweeps_));
    device::copy_to_host(h.data(), history_device_, h.size() * sizeof(T));
    return h;
  }

  // The residuals of the last step's first and last sweeps, the forces on the body, the largest |omega|.
  nlohmann::json final_checks() override {
    const HostState<T> s = save();
    const std::vector<T> h = residual_history();
    const std::vector<double> omega(s.field("omega").begin(), s.field("omega").end());
    nlohmann::json out = {{"stream_residual_first_sweep", h.empty() ? 0.0 : double(h.front())},
                          {"stream_residual_last_sweep", h.empty() ? 0.0 : double(h.back())},
                          {"max_abs_omega", 0.0}};
    double max_abs = 0;
    for (double w : omega) max_abs = std::max(max_abs, std::abs(w));
    out["max_abs_omega"] = max_abs;
    if (case_.geo.spec.body == Body::airfoil) {
      const Forces f = wall_forces(case_.geo, case_.metrics, omega, case_.nu);
      out["cl"] = f.cl, out["cd"] = f.cd, out["cd_pressure"] = f.cd_pressure, out["cd_friction"] = f.cd_friction;
    }
    return out;
  }
  WorkModel work_model(int section) const override {
    const int elem = int(sizeof(T));
    if (section == kVorticitySection)
      return case_.turbulent ? turbulent_vorticity_model(grid_, elem) : vorticity_model(grid_, elem, case_.convection);
    if (section == kTurbulenceSection) return case_.turbulent ? turbulence_model(grid_, elem) : WorkModel{};
    if (section == (sor_ ? kStreamSorSection : kStreamSection)) return stream_model(grid_, elem);
    if (section == kBoundarySection) return boundary_model(grid_, elem);
    return {};
  }
  double calls_per_step(int section) const override {
    if (section == kTurbulenceSection) return case_.turbulent ? 1 : 0;
    if (section == kStreamSection || section == kStreamSorSection)
      return section == (sor_ ? kStreamSorSection : kStreamSection) ? sweeps_ : 0;
    return 1;
  }

  int steps_per_graph() const override { return 2; }  // omega swaps once a step, psi S times: two steps restore both

 private:
  T* f(const char* name) const { return fields_[name]; }
  const ResolvedStage& stage(const char* name) const {
    return name[0] == 'v' ? *vorticity_stage_ : name[0] == 's' ? *stream_stage_ : name[0] == 't' ? *turbulence_stage_ : *boundary_stage_;
  }
  T* residual_slot(int s) { return (gpu_ ? history_device_ : history_host_.data()) + s; }

  FlowCase case_;
  Grid grid_;
  ResolvedRecipe recipe_;
  int sweeps_;
  bool gpu_;
  FieldSet<T> fields_;
  const ResolvedStage *vorticity_stage_, *stream_stage_, *boundary_stage_, *turbulence_stage_;
  bool sor_;  // the stream function by streamvort/stream_sor (in place) instead of Jacobi
  Exec exec_;
  T *psi_ = nullptr, *psi_new_ = nullptr, *omega_ = nullptr, *omega_new_ = nullptr;
  void* scratch_ = nullptr;
  T* history_device_ = nullptr;
  std::vector<T> history_host_;
};

}  // namespace nsb
