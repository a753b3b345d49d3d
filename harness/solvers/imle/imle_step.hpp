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
// it (imle/time_loop.hpp: cases, recipes, timers, NVTX) brackets the sections.
//
// On several ranks (imle_ranks.hpp: z-slabs, the layout, what crosses the cut) the same algorithm runs on
// the rank's planes, with u* and w_interp exchanged, CC-CCD's z lines gathered and CG summing over ranks.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fields.hpp"
#include "imle/ccd_call.hpp"
#include "imle/imle_ranks.hpp"
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

template <class T>
class ImleStep {
 public:
  // Sections a step brackets (a Solver's timing sections): the stage kinds in step order, then the
  // pressure solve (which runs between ppe_rhs and correct).
  // pressure solve (which runs between ppe_rhs and correct), then the exposed time of the halo exchanges
  // of u* and w_interp (several ranks; CG's exchanges are part of the pressure's, the z-line gathers of
  // ccd's).
  enum Section : int { kCcd = 0, kPredict, kMove, kMls, kPpeRhs, kCorrect, kPressure, kHalo };
  static const std::vector<std::string>& sections() {
    static const std::vector<std::string> s = {"ccd", "predict", "move", "mls", "ppe_rhs", "correct", "pressure", "halo"};
    return s;
  }

  // One rank: layout ImleLayout::whole(grid), ranks null. The fields are allocated on layout.store.
  ImleStep(const ImleLayout& layout, const ImleParameters& prm, const FieldSet<T>& f, const ImleKernels& k, Exec exec,
           PoissonMethod<T>& pressure, std::function<void(int section, bool begin)> bracket = {},
           ImleRanks<T>* ranks = nullptr)
      : l_(layout), prm_(prm), f_(f), k_(k), exec_(exec), pressure_(pressure), bracket_(std::move(bracket)),
        ranks_(ranks) {
    const Grid& g = l_.own;
    for (int axis = 0; axis < 3; ++axis)
      for (CcdBc bc : {CcdBc::dirichlet, CcdBc::neumann}) {
        const int n = axis == 0 ? g.nx : axis == 1 ? g.ny : l_.global.nz;  // z lines are the whole grid's
        const std::vector<double> lu = ccd_factor(n, bc);  // once, outside every timing (paper Sec. 3.2)
        Buffer<T>& b = factor_[axis][int(bc)];
        b = Buffer<T>(lu.size(), f.on_device(), "ccd factor");
        b.upload(std::vector<T>(lu.begin(), lu.end()));
      }
    workspace_ = Buffer<T>(mls_workspace_bytes(l_.store, l_.all_in_store(), int(sizeof(T))) / sizeof(T), f.on_device(),
                           "mls systems");
  }

  void step() {
    const ZRange mine = ZRange::interior(l_.own);
    const char* vel[3] = {"u", "v", "w"};
    const char* star[3] = {"u_star", "v_star", "w_star"};
    const char* interp[3] = {"u_interp", "v_interp", "w_interp"};
    const char* d1[3] = {"ccd_d1_x", "ccd_d1_y", "ccd_d1_z"};
    const char* d2[3] = {"ccd_d2_x", "ccd_d2_y", "ccd_d2_z"};
    for (int c = 0; c < 3; ++c) {  // 1-2: diffusion and prediction, a component at a time
      for (int axis = 0; axis < 3; ++axis) ccd(vel[c], d1[axis], d2[axis], axis, CcdBc::dirichlet);
      point(k_.predict, kPredict, false, mine, {vel[c], d2[0], d2[1], d2[2]}, {star[c]}, T(prm_.dt * prm_.nu));
    }
    move_and_interpolate();                                                                       // 3-4
    if (ranks_) {  // ppe_rhs's wide difference reads w_interp across the cut
      const Bracket b(*this, kHalo);
      ranks_->halo().exchange({own_view(interp[2])});
    }
    point(k_.ppe_rhs, kPpeRhs, true, l_.own_in_store(), {interp[0], interp[1], interp[2]}, {"rhs"}, T(0));  // 5
    solve_pressure();
    for (int axis = 0; axis < 3; ++axis) ccd("p", d1[axis], d2[axis], axis, CcdBc::neumann);     // 6
    for (int c = 0; c < 3; ++c)                                                                   // 7
      point(k_.correct, kCorrect, false, mine, {interp[c], d1[c]}, {vel[c]}, T(prm_.dt / prm_.rho));
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

  // The rank's own view of a field (its padded planes, the cut ghosts being the stored neighbour planes).
  T* own_view(const std::string& name) const { return f_[name] + l_.own_offset(); }

  // 3-4: the particles move (Eq. 8) and MLS brings them back to the centres (Eqs. 9-10), on the stored
  // planes. On several ranks u* crosses the cut first and move runs on the neighbour planes too (it is
  // pointwise: their displacements need no exchange). An overlapping halo variant (the paper's two
  // streams) exchanges while move and MLS compute the planes that need no neighbour; the planes next to a
  // cut follow its finish().
  void move_and_interpolate() {
    const ZRange all = l_.all_in_store(), mine = l_.own_in_store();
    if (!ranks_) return move(all), mls(all);
    HaloExchange<T>& h = ranks_->halo();
    const std::vector<T*> star = {own_view("u_star"), own_view("v_star"), own_view("w_star")};
    const ZRange inner{mine.k_begin + l_.lo, mine.k_end - l_.hi};  // targets whose neighbourhood is all own
    if (!h.overlaps() || inner.levels() < 1) {
      {
        const Bracket b(*this, kHalo);
        h.exchange(star);
      }
      return move(all), mls(mine);
    }
    {
      const Bracket b(*this, kHalo);
      h.start(star);
    }
    move(mine), mls(inner);
    {
      const Bracket b(*this, kHalo);
      h.finish();
    }
    if (l_.lo) move({all.k_begin, mine.k_begin}), mls({mine.k_begin, inner.k_begin});
    if (l_.hi) move({mine.k_end, all.k_end}), mls({inner.k_end, mine.k_end});
  }
  void move(ZRange zr) {
    point(k_.move, kMove, true, zr, {"u_star", "v_star", "w_star"}, {"disp_x", "disp_y", "disp_z"}, T(prm_.dt));
  }

  // A CC-CCD call on the own planes; on several ranks z lines on the whole grid, gathered (imle_ranks.hpp).
  void ccd(const char* in, const char* out1, const char* out2, int axis, CcdBc bc) {
    const Bracket b(*this, kCcd);
    CcdCall<T> c;
    c.grid = l_.own, c.zr = ZRange::interior(l_.own), c.axis = axis, c.bc = bc;
    c.phi = own_view(in), c.d1 = own_view(out1), c.d2 = own_view(out2);
    for (int s = 0; s < 3; ++s) c.scratch[s] = own_view("ccd_scratch_" + std::to_string(s));
    const bool gathered = axis == 2 && ranks_;
    if (gathered) {
      c.grid = l_.global, c.zr = ZRange::interior(l_.global);
      c.phi = ranks_->gather(c.phi), c.d1 = ranks_->whole("d1"), c.d2 = ranks_->whole("d2");
      for (int s = 0; s < 3; ++s) c.scratch[s] = ranks_->whole("scratch_" + std::to_string(s));
    }
    c.factor = factor_[axis][int(bc)].get();
    c.h = T(axis_spacing(l_.own, axis));
    c.exec = exec_;
    call(k_.ccd, c, "imle/ccd");
    if (gathered) ranks_->keep_own(own_view(out1), c.d1), ranks_->keep_own(own_view(out2), c.d2);
  }

  // A pointwise stage on the own planes or the stored ones (`stored`), z-levels zr of that grid.
  void point(const ImleKernels::Choice& k, int section, bool stored, ZRange zr, std::vector<const char*> in,
             std::vector<const char*> out, T coef) {
    const Bracket b(*this, section);
    const std::size_t at = stored ? 0 : l_.own_offset();
    ImlePointCall<T> c;
    c.grid = stored ? l_.store : l_.own, c.zr = zr, c.coef = coef, c.exec = exec_;
    for (std::size_t i = 0; i < in.size(); ++i) c.in[i] = f_[in[i]] + at;
    for (std::size_t i = 0; i < out.size(); ++i) c.out[i] = f_[out[i]] + at;
    call(k, c, "a pointwise IMLE stage");
  }

  void mls(ZRange zr) {  // on the stored planes
    if (zr.levels() < 1) return;
    const Bracket b(*this, kMls);
    MlsCall<T> c;
    c.grid = l_.store, c.zr = zr, c.exec = exec_;
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
    e.grid = l_.own;  // every wall neumann (PoissonFaces' default): singular, the method fixes the level
    if (l_.lo) e.faces.face[2][0] = PoissonFace::periodic;  // a cut: interior rows, ghosts exchanged
    if (l_.hi) e.faces.face[2][1] = PoissonFace::periodic;
    e.decomposed = ranks_ != nullptr, e.ranks = ranks_;
    e.p = own_view("p");
    e.rhs = own_view("rhs");
    e.rhs_scale = T(prm_.rho / prm_.dt);
    e.exec = exec_;
    EquationOnlySystem<T> system(e, "the IMLE solver's pressure needs a Poisson method that works on the equation "
                                       "(cg), not one that sweeps through the solver's own stage (jacobi)");
    report_ = pressure_.solve(system);
  }

  ImleLayout l_;
  ImleParameters prm_;
  const FieldSet<T>& f_;
  ImleKernels k_;
  Exec exec_;
  PoissonMethod<T>& pressure_;
  std::function<void(int, bool)> bracket_;
  Buffer<T> factor_[3][2];
  Buffer<T> workspace_;
  PoissonReport report_;
  ImleRanks<T>* ranks_;
};

}  // namespace nsb
