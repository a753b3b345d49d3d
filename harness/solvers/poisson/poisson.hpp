// The Poisson family: how a solver's pressure (or stream-function) equation is solved, shared by the
// solvers. A method is stateful (its workspaces and plans live as long as the solver: CG's residual
// and search vectors, multigrid's coarse grids, FFT plans) and is built once per solver from the
// family's registry; every step the solver asks it to solve its system.
//
// The solver keeps its fields and its stages: the method drives the iteration through the
// PoissonSystem the solver implements (a sweep, the residual, the ghost rule), so a method works on
// any solver whose equation offers those operations, on one rank or many (the solver's sweep
// exchanges ghost planes, its reductions sum over the ranks).
//
// Methods: jacobi (Thibault 2009: a fixed count of sweeps, or sweeps until the residual falls below a
// tolerance). Red-black SOR, CG/PCG, multigrid and FFT solves join here (issue "Poisson family").
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace nsb {

struct PoissonSettings {
  int iterations = 20;     // sweeps per solve, or the cap with a tolerance
  double tolerance = 0;    // > 0: iterate until RMS residual <= tolerance * RMS(right-hand side)
  int check_every = 10;    // sweeps between residual checks in tolerance mode
};

struct PoissonReport {
  int iterations = 0;
  double absolute_residual = 0;  // RMS of the last residual checked (0 without a tolerance)
  double relative_residual = 0;  // ... over RMS(right-hand side)
};

// What a method may ask of the solver that owns the equation.
class PoissonSystem {
 public:
  virtual ~PoissonSystem() = default;
  // One Jacobi sweep p -> p_new of the solver's sweep stage, ghost planes exchanged between ranks.
  virtual void sweep() = 0;
  // RMS over the whole grid of the residual of the last sweep's input, read from p_new - p
  // (synchronises: a reduction read back to the host).
  virtual double sweep_residual_rms() = 0;
  // RMS over the whole grid of the right-hand side (synchronises).
  virtual double rhs_rms() = 0;
  // p <- p_new, and the ghost rule of p.
  virtual void accept_sweep() = 0;
};

class PoissonMethod {
 public:
  virtual ~PoissonMethod() = default;
  virtual PoissonReport solve(PoissonSystem& system) = 0;
};

struct PoissonMethodInfo {
  std::string name;
  std::string description;
  std::unique_ptr<PoissonMethod> (*make)(const PoissonSettings&);
};

// The family's methods, by name; throws std::runtime_error naming the known ones.
const std::vector<PoissonMethodInfo>& poisson_methods();
std::unique_ptr<PoissonMethod> make_poisson_method(const std::string& name, const PoissonSettings& s);

}  // namespace nsb
