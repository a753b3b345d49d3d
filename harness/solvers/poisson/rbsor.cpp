// Red-black SOR (Gohari's stream-function solve; Jacobi's Gauss-Seidel cousin): each iteration relaxes
// the red points (i + j + k even) from their black neighbours, then the black ones from the new red
// values, x = (1 - omega) x + omega * (Gauss-Seidel value); the poisson/rbsor stage does one iteration,
// ghosts included. omega is a tuning of that stage (w190 = 1.90, the default; (0, 2) only). A fixed
// count of iterations, or until the relative residual is below the tolerance, checked every
// check_every iterations by the residual stage (a read-back).
#include <algorithm>

#include "poisson/iterative.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

// omega of the rbsor stage's choice, before it is resolved, so that an omega outside (0, 2) is refused
// by name rather than as an unknown tuning.
void check_omega_choice(const PoissonSettings& s) {
  const auto chosen = s.kernels.find("poisson/rbsor");
  if (chosen == s.kernels.end()) return;
  const std::string tuning = tuning_part(chosen->second);
  if (tuning.rfind('w', 0) == 0 || tuning.find("_w") != std::string::npos) omega_of_tuning(parse_tuning(tuning));
}

// Red and black alternate along every axis; across a periodic face that holds only for an even count.
void check_colouring(const PoissonFaces& f, const Grid& g) {
  const int n[3] = {g.nx, g.ny, g.nz};
  for (int a = 0; a < 3; ++a)
    if (f.face[a][0] == PoissonFace::periodic && n[a] % 2 != 0)
      throw std::invalid_argument(std::string("rbsor: the periodic ") + "xyz"[a] + " axis has an odd count of cells (" +
                                  std::to_string(n[a]) + "): a point and its wrapped neighbour would share a colour");
}

template <class T>
class RedBlackSor final : public PoissonMethod<T> {
 public:
  explicit RedBlackSor(const PoissonSettings& s) : s_(s) {
    check_omega_choice(s);
    if (s.check_every < 0) throw std::invalid_argument("rbsor: check_every must be 0 (the default) or more");
  }
  PoissonReport solve(PoissonSystem<T>& system) override {
    const PoissonEquation<T> e = system.equation();
    if (!stages_) {
      check_colouring(e.faces, e.grid);
      check_reachable_tolerance<T>(e.grid, s_.tolerance, "rbsor");
      stages_ = std::make_unique<PoissonStages<T>>(s_, e, 1);
      omega_ = omega_of_tuning(stages_->stage("rbsor").tuning);
    }
    PoissonStages<T>& st = *stages_;
    const SolveClock clock;
    PoissonCall<T> c = poisson_call(e);
    const SolveStart<T> start = start_solve(st, c, 0);
    c.rhs_shift = start.rhs_shift;
    c.omega = T(omega_);
    c.r = st.vector(0);
    c.out = st.scalar(0);
    st.run("faces", c);  // the guess's ghosts
    PoissonReport r;
    const bool tolerance = s_.tolerance > 0;
    for (int it = 1; it <= s_.iterations; ++it) {
      st.run("rbsor", c);
      r.iterations = it;
      const bool check = (tolerance || s_.record_history) &&
                         (it % s_.check_interval(kIterativeCheckEvery) == 0 || it == s_.iterations);
      if (!check) continue;
      st.run("residual", c);
      r.absolute_residual = std::sqrt(st.read(0, c.exec) / double(e.grid.interior_points()));
      r.relative_residual = r.absolute_residual / std::max(start.rhs_rms, 1e-300);
      if (s_.record_history) r.history.push_back({it, clock.seconds(), r.relative_residual});
      if (tolerance && r.relative_residual <= s_.tolerance) break;
    }
    finish_solve(st, c, 0);
    r.kernels = st.kernels();
    return r;
  }

 private:
  PoissonSettings s_;
  std::unique_ptr<PoissonStages<T>> stages_;  // built at the first solve, for the equation's backend
  double omega_ = 1;
};

template <class T>
std::unique_ptr<PoissonMethod<T>> make(const PoissonSettings& s) {
  return std::make_unique<RedBlackSor<T>>(s);
}

const PoissonMethodRegistrar reg{{"rbsor",
                                  "red-black SOR (poisson/rbsor; omega = its tuning's w, 1.90 by default): a fixed count "
                                  "of iterations, or until the residual is below a tolerance",
                                  &make<float>, &make<double>, 1}};

}  // namespace
}  // namespace nsb
