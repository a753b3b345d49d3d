// Jacobi iteration (thesis Sec. 2.3), through the solver's own sweep stage: a fixed count of sweeps,
// or sweeps until the RMS residual falls below tolerance x RMS(rhs), checked every check_every sweeps
// (a check reads a reduction back).
#include <algorithm>

#include "poisson/poisson.hpp"

namespace nsb {
namespace {

template <class T>
class Jacobi final : public PoissonMethod<T> {
 public:
  explicit Jacobi(const PoissonSettings& s) : s_(s) {}
  PoissonReport solve(PoissonSystem<T>& system) override {
    PoissonReport r;
    const bool tolerance = s_.tolerance > 0;
    const double rhs = tolerance ? system.rhs_rms() : 0;
    for (int it = 1; it <= s_.iterations; ++it) {
      system.sweep();
      const bool check = tolerance && (it % s_.check_interval(kIterativeCheckEvery) == 0 || it == s_.iterations);
      if (check) r.absolute_residual = system.sweep_residual_rms();
      system.accept_sweep();
      r.iterations = it;
      if (check && r.absolute_residual <= s_.tolerance * std::max(rhs, 1e-300)) break;
    }
    r.relative_residual = tolerance && rhs > 0 ? r.absolute_residual / rhs : r.absolute_residual;
    return r;
  }

 private:
  PoissonSettings s_;
};

template <class T>
std::unique_ptr<PoissonMethod<T>> make(const PoissonSettings& s) {
  return std::make_unique<Jacobi<T>>(s);
}

const PoissonMethodRegistrar reg{{"jacobi", "Jacobi sweeps of the solver's own sweep stage: a fixed count, or until the residual is below a tolerance",
                                  &make<float>, &make<double>}};

}  // namespace
}  // namespace nsb
