#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "poisson/poisson.hpp"

namespace nsb {
namespace {

// Jacobi iteration (thesis Sec. 2.3): a fixed count of sweeps, or sweeps until the RMS residual falls
// below tolerance x RMS(rhs), checked every check_every sweeps (a check reads a reduction back).
class Jacobi final : public PoissonMethod {
 public:
  explicit Jacobi(const PoissonSettings& s) : s_(s) {}
  PoissonReport solve(PoissonSystem& system) override {
    PoissonReport r;
    const bool tolerance = s_.tolerance > 0;
    const double rhs = tolerance ? system.rhs_rms() : 0;
    for (int it = 1; it <= s_.iterations; ++it) {
      system.sweep();
      const bool check = tolerance && (it % s_.check_every == 0 || it == s_.iterations);
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

template <class M>
std::unique_ptr<PoissonMethod> make(const PoissonSettings& s) {
  return std::make_unique<M>(s);
}

}  // namespace

const std::vector<PoissonMethodInfo>& poisson_methods() {
  static const std::vector<PoissonMethodInfo> methods = {
      {"jacobi", "Jacobi sweeps: a fixed count, or until the residual is below a tolerance", &make<Jacobi>},
  };
  return methods;
}

std::unique_ptr<PoissonMethod> make_poisson_method(const std::string& name, const PoissonSettings& s) {
  std::string known;
  for (const PoissonMethodInfo& m : poisson_methods()) {
    if (m.name == name) return m.make(s);
    known += " " + m.name;
  }
  throw std::runtime_error("unknown Poisson method '" + name + "'; known:" + known);
}

}  // namespace nsb
