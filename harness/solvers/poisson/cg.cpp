// Conjugate gradients, matrix-free on the 7-point operator (Liu's pressure solve), plain (cg) or with
// the Jacobi preconditioner (pcg). One iteration is three stages, whose variants pick fused or
// separate kernels and the dot products' reduction (library, buffer, atomics):
//   apply_dot     q = L p, pq = p.q
//   cg_update     alpha = rz / pq; x += alpha p; r -= alpha q; rz' = r.z, rr = r.r
//   cg_direction  p = z + (rz' / rz) p, p's ghosts
// The scalars stay on the device (each stage reads alpha and beta there), so the host waits only at a
// convergence check, every check_every iterations. Two kinds of check (the methods' names say which):
//   host (cg, pcg)                      rr read back and compared on the host: the solve stops at the
//                                       first multiple of check_every past the tolerance;
//   device (cg_device_check, pcg_...)   poisson/cg_check compares rr on the device after every update and
//                                       counts; once it stops, cg_update takes alpha = 0, so x and r stay
//                                       at that iterate; the host reads the flag and count every
//                                       check_every iterations. The same iterations and solution as the
//                                       host check at every iteration, with a host wait only every
//                                       check_every (the iterations past the stop still run, as no-ops).
// Signs: stage_call.hpp.
//
// On a rank's slab (PoissonEquation::ranks) every sum is summed over the ranks before it is read
// (iterative.hpp: on the host, two round trips an iteration, as the paper's per-GPU cuBLAS dots; or on the
// GPU, stream-ordered, where the solver's ranks offer PoissonRanks::sum_on_device), and p's cut
// ghost planes are exchanged after every direction (the paper's one halo exchange an iteration).
//
// On a uniform grid D is constant away from the faces, so pcg's iterates differ from cg's only through
// the boundary rows (a neumann or dirichlet face changes D there).
#include <algorithm>

#include "poisson/iterative.hpp"

namespace nsb {
namespace {

// Scalar slots (PoissonStages::scalar): 0 p.q; {1, 2} the device check's {stopped, iterations}; 3 a zero;
// {4, 5} and {6, 7} {r.z, r.r} of alternate iterations (cg_update writes its out[0] and out[1]), so the
// previous r.z survives the update.
constexpr int kPq = 0, kStop = 1, kCount = 2;
inline int rz_slot(int parity) { return 4 + 2 * parity; }

template <class T>
class ConjugateGradients final : public PoissonMethod<T> {
 public:
  ConjugateGradients(const PoissonSettings& s, bool precondition, bool device_check)
      : s_(s), precondition_(precondition), device_check_(device_check) {
    if (s.check_every < 0) throw std::invalid_argument("cg: check_every must be 0 (the default) or more");
  }
  PoissonReport solve(PoissonSystem<T>& system) override {
    const PoissonEquation<T> e = system.equation();
    if (!stages_) {
      check_reachable_tolerance<T>(e.grid, s_.tolerance, precondition_ ? "pcg" : "cg");
      stages_ = std::make_unique<PoissonStages<T>>(s_, e, 3, true);  // r, p, q
      if (stages_->ranks()) stages_->ranks()->attach({e.p, stages_->vector(1)});  // x and p: their ghosts are read
    }
    PoissonStages<T>& st = *stages_;
    const SolveClock clock;
    PoissonCall<T> c = poisson_call(e);
    const SolveStart<T> start = start_solve(st, c, kPq);
    const double points = st.points();
    c.rhs_shift = start.rhs_shift;
    c.precondition = precondition_;
    c.r = st.vector(0), c.p = st.vector(1), c.q = st.vector(2);
    st.run("faces", c);  // the guess's ghosts
    st.exchange(c.x);
    c.out = st.scalar(rz_slot(0));
    st.run("residual", c);  // r = b - L x; r.r into slot rz_slot(0), read only at checks
    st.sum(rz_slot(0), 1, c.exec);
    PoissonReport r;
    const double rhs = std::max(start.rhs_rms, 1e-300);
    r.absolute_residual = std::sqrt(st.read(rz_slot(0), c.exec) / points);
    r.relative_residual = r.absolute_residual / rhs;
    const bool tolerance = s_.tolerance > 0;
    if (tolerance && r.relative_residual <= s_.tolerance) return finish(st, c, r);
    // z = m r and rz: the direction stage with no previous rz makes p = z; rz itself comes from a
    // cg_update with alpha = 0 (rz / pq with rz = 0), which leaves x and r as they are.
    double* zero = st.scalar(3);
    set_scalar(st, zero, 0.0, c.exec);
    c.rz = zero, c.pq = st.scalar(kPq), c.out = st.scalar(rz_slot(0));
    set_scalar(st, st.scalar(kPq), 1.0, c.exec);
    st.run("cg_update", c);  // alpha = 0: rz into rz_slot(0)
    st.sum(rz_slot(0), 2, c.exec);
    c.rz = st.scalar(rz_slot(0)), c.rz_prev = nullptr;
    st.run("cg_direction", c);
    st.exchange(c.p);
    const bool on_device = device_check_ && tolerance;
    if (on_device) {  // running, no iteration counted; cg_update reads the flag from here on
      set_scalar(st, st.scalar(kStop), 0.0, c.exec);
      set_scalar(st, st.scalar(kCount), 0.0, c.exec);
      c.stop = st.scalar(kStop), c.tolerance = s_.tolerance, c.rhs_rms = rhs;
    }
    for (int it = 1; it <= s_.iterations; ++it) {
      const int now = (it - 1) % 2, next = it % 2;
      c.out = st.scalar(kPq);
      st.run("apply_dot", c);
      st.sum(kPq, 1, c.exec);
      c.rz = st.scalar(rz_slot(now)), c.pq = st.scalar(kPq), c.out = st.scalar(rz_slot(next));
      st.run("cg_update", c);
      st.sum(rz_slot(next), 2, c.exec);
      c.rz = st.scalar(rz_slot(next)), c.rz_prev = st.scalar(rz_slot(now));
      if (on_device) {
        c.out = st.scalar(kStop);
        st.run("cg_check", c);
      }
      r.iterations = it;
      const bool check = (tolerance || s_.record_history) &&
                         (it % s_.check_interval(kIterativeCheckEvery) == 0 || it == s_.iterations);
      if (check) {
        const bool stopped = on_device && st.read(kStop, c.exec) != 0;
        if (on_device) r.iterations = int(st.read(kCount, c.exec));
        const double rr = st.read(rz_slot(next) + 1, c.exec);
        r.absolute_residual = std::sqrt(rr / points);
        r.relative_residual = cg_relative_residual(rr, points, rhs);
        if (s_.record_history) r.history.push_back({it, clock.seconds(), r.relative_residual});
        if (stopped || (!on_device && tolerance && r.relative_residual <= s_.tolerance)) break;
      }
      if (it < s_.iterations) st.run("cg_direction", c), st.exchange(c.p);
    }
    return finish(st, c, r);
  }

 private:
  PoissonReport finish(PoissonStages<T>& st, PoissonCall<T>& c, PoissonReport r) {
    finish_solve(st, c, kPq);
    r.kernels = st.kernels();
    return r;
  }
  static void set_scalar(PoissonStages<T>& st, double* at, double v, const Exec& exec) {
    if (!st.gpu()) {
      *at = v;
      return;
    }
    device::stream_sync(exec.stream);
    device::copy_to_device(at, &v, sizeof v);
  }

  PoissonSettings s_;
  bool precondition_, device_check_;
  std::unique_ptr<PoissonStages<T>> stages_;  // built at the first solve, for the equation's backend
};

template <class T, bool Precondition, bool DeviceCheck>
std::unique_ptr<PoissonMethod<T>> make(const PoissonSettings& s) {
  return std::make_unique<ConjugateGradients<T>>(s, Precondition, DeviceCheck);
}

constexpr double kArrays = 3;  // r, p, q
const PoissonMethodRegistrar cg_reg{{"cg",
                                     "conjugate gradients, matrix-free 7-point operator (poisson/apply_dot, cg_update, "
                                     "cg_direction); device-side scalars, residual checked every check_every iterations",
                                     &make<float, false, false>, &make<double, false, false>, kArrays}};
const PoissonMethodRegistrar pcg_reg{{"pcg", "conjugate gradients with the Jacobi (diagonal) preconditioner",
                                      &make<float, true, false>, &make<double, true, false>, kArrays}};
const PoissonMethodRegistrar cg_device_reg{{"cg_device_check",
                                            "cg with the convergence check on the device (poisson/cg_check after every "
                                            "update; the host reads its flag every check_every iterations)",
                                            &make<float, false, true>, &make<double, false, true>, kArrays}};
const PoissonMethodRegistrar pcg_device_reg{{"pcg_device_check", "pcg with the convergence check on the device",
                                             &make<float, true, true>, &make<double, true, true>, kArrays}};

}  // namespace
}  // namespace nsb
