// One IMLE time step (Liu, Wu, Kao & Sheu 2019, Algorithm 1; notes Sec. 1.4), written as the paper's
// algorithm over the stage kinds of harness/solvers/imle/, on one rank:
//
//   1. diffusion  CC-CCD (Dirichlet) along x, y, z of each velocity component        imle/ccd
//   2. predict    u* = u + dt nu lap u                                                 imle/predict
//   3. move       r* - x = dt u*                                                       imle/move
//   4. MLS        u*_interp at the cell centres from the moved particles               imle/mls
//   5. PPE        lap_h p = (rho / dt) div_2h u*_interp, Neumann walls                 imle/ppe_rhs + a Poisson method
//   6. gradient   CC-CCD (Neumann) of p along x, y, z                                  imle/ccd
//   7. correct    u = u*_interp - dt / rho grad p                                      imle/correct
//   (reinitialisation: none needed, point_formulas.hpp)
//
// The pressure is the Poisson family's: a method that works on the equation (the paper's classical CG:
// make_poisson_method<T>("cg", ...)), handed a PoissonSystem whose equation() is the 7-point Laplacian
// of p with Neumann walls and right-hand side (rho / dt) rhs. The family's Neumann ghost rule is the
// mirror value CC-CCD's Neumann closure reads (ccd_formulas.hpp).
//
// It owns no memory: the fields are a FieldSet the caller made with imle_field_names(), each velocity's
// ghosts holding the walls' values, and its kernels are resolved variants. The registered Solver around
// it (imle_solver.hpp: cases, recipes, timers, NVTX) brackets the sections.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fields.hpp"
#include "imle/ccd_call.hpp"
#include "imle/mls_call.hpp"
#include "imle/point_call.hpp"
#include "poisson/poisson.hpp"
#include "registry.hpp"

namespace nsb {

// The fields of a step, by name (one FieldSet of the grid's padded points).
inline std::vector<std::string> imle_field_names() {
  return {"u",        "v",        "w",        "p",        "u_star",   "v_star",   "w_star",   "disp_x",   "disp_y",
          "disp_z",   "u_interp", "v_interp", "w_interp", "rhs",      "ccd_d1_x", "ccd_d1_y", "ccd_d1_z", "ccd_d2_x",
          "ccd_d2_y", "ccd_d2_z", "ccd_scratch_0", "ccd_scratch_1", "ccd_scratch_2"};
}

struct ImleParameters {
  double dt = 0, nu = 0, rho = 1;
};

// The chosen kernel of each stage kind.
struct ImleKernels {
  struct Choice {
    const Variant* variant = nullptr;
    Tuning tuning;
  };
  Choice ccd, predict, move, mls, ppe_rhs, correct;
};

// The IMLE pressure equation for a Poisson method: the equation only (no Jacobi sweep of its own).
template <class T>
class ImlePressureSystem final : public PoissonSystem<T> {
 public:
  explicit ImlePressureSystem(PoissonEquation<T> e) : eq_(e) {}
  void sweep() override { refuse(); }
  double sweep_residual_rms() override { return refuse(); }
  double rhs_rms() override { return refuse(); }
  void accept_sweep() override { refuse(); }
  PoissonEquation<T> equation() override { return eq_; }

 private:
  static double refuse() {
    throw std::runtime_error("the IMLE solver's pressure needs a Poisson method that works on the equation (cg), "
                             "not one that sweeps through the solver's own stage (jacobi)");
  }
  PoissonEquation<T> eq_;
};

template <class T>
class ImleStep {
 public:
  // Sections a step brackets (a Solver's timing sections): the stage kinds in step order, then the
  // pressure solve (which runs between ppe_rhs and correct).
  enum Section : int { kCcd = 0, kPredict, kMove, kMls, kPpeRhs, kCorrect, kPressure };
  static const std::vector<std::string>& sections() {
    static const std::vector<std::string> s = {"ccd", "predict", "move", "mls", "ppe_rhs", "correct", "pressure"};
    return s;
  }

  ImleStep(const Grid& g, const ImleParameters& prm, const FieldSet<T>& f, const ImleKernels& k, Exec exec,
           PoissonMethod<T>& pressure, std::function<void(int section, bool begin)> bracket = {})
      : g_(g), prm_(prm), f_(f), k_(k), exec_(exec), pressure_(pressure), bracket_(std::move(bracket)) {
    for (int axis = 0; axis < 3; ++axis)
      for (CcdBc bc : {CcdBc::dirichlet, CcdBc::neumann}) {
        const int n = axis == 0 ? g.nx : axis == 1 ? g.ny : g.nz;
        const std::vector<double> lu = ccd_factor(n, bc);  // once, outside every timing (paper Sec. 3.2)
        Buffer<T>& b = factor_[axis][int(bc)];
        b = Buffer<T>(lu.size(), f.on_device(), "ccd factor");
        b.upload(std::vector<T>(lu.begin(), lu.end()));
      }
    const ZRange all = ZRange::interior(g);
    workspace_ = Buffer<T>(mls_workspace_bytes(g, all, int(sizeof(T))) / sizeof(T), f.on_device(), "mls systems");
  }

  void step() {
    const ZRange all = ZRange::interior(g_);
    const char* vel[3] = {"u", "v", "w"};
    const char* star[3] = {"u_star", "v_star", "w_star"};
    const char* interp[3] = {"u_interp", "v_interp", "w_interp"};
    const char* d1[3] = {"ccd_d1_x", "ccd_d1_y", "ccd_d1_z"};
    const char* d2[3] = {"ccd_d2_x", "ccd_d2_y", "ccd_d2_z"};
    for (int c = 0; c < 3; ++c) {  // 1-2: diffusion and prediction, a component at a time
      for (int axis = 0; axis < 3; ++axis) ccd(vel[c], d1[axis], d2[axis], axis, CcdBc::dirichlet);
      point(k_.predict, kPredict, {vel[c], d2[0], d2[1], d2[2]}, {star[c]}, T(prm_.dt * prm_.nu));
    }
    point(k_.move, kMove, {star[0], star[1], star[2]}, {"disp_x", "disp_y", "disp_z"}, T(prm_.dt));  // 3
    mls(all);                                                                                     // 4
    point(k_.ppe_rhs, kPpeRhs, {interp[0], interp[1], interp[2]}, {"rhs"}, T(0));                       // 5
    solve_pressure();
    for (int axis = 0; axis < 3; ++axis) ccd("p", d1[axis], d2[axis], axis, CcdBc::neumann);     // 6
    for (int c = 0; c < 3; ++c)                                                                   // 7
      point(k_.correct, kCorrect, {interp[c], d1[c]}, {vel[c]}, T(prm_.dt / prm_.rho));
  }

  const PoissonReport& last_pressure() const { return report_; }

 private:
  struct Bracket {  // a section's begin and end around a scope
    const ImleStep& s;
    int section;
    Bracket(const ImleStep& st, int sec) : s(st), section(sec) { if (s.bracket_) s.bracket_(section, true); }
    ~Bracket() { if (s.bracket_) s.bracket_(section, false); }
  };
  template <class Call>
  static void call(const ImleKernels::Choice& k, Call& c, const char* stage) {
    if (!k.variant) throw std::runtime_error(std::string("IMLE step: no kernel chosen for ") + stage);
    c.tuning = k.tuning;
    c.exec.backend = k.variant->backend;
    k.variant->fn<Call>()(c);
  }

  void ccd(const char* in, const char* out1, const char* out2, int axis, CcdBc bc) {
    const Bracket b(*this, kCcd);
    CcdCall<T> c;
    c.grid = g_, c.zr = ZRange::interior(g_), c.axis = axis, c.bc = bc;
    c.phi = f_[in], c.d1 = f_[out1], c.d2 = f_[out2];
    c.factor = factor_[axis][int(bc)].get();
    c.h = T(axis_spacing(g_, axis));
    for (int s = 0; s < 3; ++s) c.scratch[s] = f_["ccd_scratch_" + std::to_string(s)];
    c.exec = exec_;
    call(k_.ccd, c, "imle/ccd");
  }

  void point(const ImleKernels::Choice& k, int section, std::vector<const char*> in, std::vector<const char*> out, T coef) {
    const Bracket b(*this, section);
    ImlePointCall<T> c;
    c.grid = g_, c.zr = ZRange::interior(g_), c.coef = coef, c.exec = exec_;
    for (std::size_t i = 0; i < in.size(); ++i) c.in[i] = f_[in[i]];
    for (std::size_t i = 0; i < out.size(); ++i) c.out[i] = f_[out[i]];
    call(k, c, "a pointwise IMLE stage");
  }

  void mls(ZRange zr) {
    const Bracket b(*this, kMls);
    MlsCall<T> c;
    c.grid = g_, c.zr = zr, c.exec = exec_;
    const char* disp[3] = {"disp_x", "disp_y", "disp_z"};
    const char* star[3] = {"u_star", "v_star", "w_star"};
    const char* interp[3] = {"u_interp", "v_interp", "w_interp"};
    for (int a = 0; a < 3; ++a) c.disp[a] = f_[disp[a]], c.value[a] = f_[star[a]], c.out[a] = f_[interp[a]];
    c.workspace = workspace_.get(), c.workspace_bytes = workspace_.size() * sizeof(T);
    call(k_.mls, c, "imle/mls");
  }

  void solve_pressure() {
    const Bracket b(*this, kPressure);
    PoissonEquation<T> e;
    e.grid = g_;  // every face neumann (PoissonFaces' default): singular, the method fixes the level
    e.p = f_["p"];
    e.rhs = f_["rhs"];
    e.rhs_scale = T(prm_.rho / prm_.dt);
    e.exec = exec_;
    ImlePressureSystem<T> system(e);
    report_ = pressure_.solve(system);
  }

  Grid g_;
  ImleParameters prm_;
  const FieldSet<T>& f_;
  ImleKernels k_;
  Exec exec_;
  PoissonMethod<T>& pressure_;
  std::function<void(int, bool)> bracket_;
  Buffer<T> factor_[3][2];
  Buffer<T> workspace_;
  PoissonReport report_;
};

}  // namespace nsb
