// A run's checks of its Poisson solves' convergence (host code: kept out of poisson.hpp, which the
// family's CUDA files include).
#pragma once

#include <nlohmann/json.hpp>

#include "poisson/poisson.hpp"

namespace nsb {

// A solve to a tolerance that stopped at its iteration cap first, for a run's checks: the last solve's
// relative residual against the tolerance (nothing without a tolerance: a fixed count converges to nothing).
// A capped study may mean it; a result that hid it would read as converged.
inline nlohmann::json poisson_convergence_checks(const PoissonReport& r, double tolerance) {
  if (!(tolerance > 0)) return nlohmann::json::object();
  return {{"poisson_tolerance", tolerance}, {"poisson_last_relative_residual", r.relative_residual},
          {"poisson_last_iterations", r.iterations}, {"poisson_converged", r.relative_residual <= tolerance}};
}

}  // namespace nsb
