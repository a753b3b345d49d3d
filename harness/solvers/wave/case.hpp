// The wave solver's case, standing_wave: a wave grid (formulas.hpp), its time step, the exact solution
// that starts and checks a run, and the discrete energy the scheme conserves.
//
// Command line: --grid NXx1xNY. The wave's y is the grid's third axis (the layout of formulas.hpp), so
// 8192 x 8192 is --grid 8192x1x8192; NX and NY are independent (square cells, so ly follows from NY).
// --dt overrides the time step, else dt = --safety x the stable one (rho = c dt / h <= 1/sqrt(2)).
// The mode is m = n = 1 (CaseOptions has no field for others; WaveCase::exact can be set in code).
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "solver.hpp"
#include "wave/formulas.hpp"

namespace nsb {

struct WaveCase {
  Grid grid;           // the whole grid
  StandingWave exact;  // on the grid's domain, c = 1
  double dt = 0;

  double h() const { return wave_spacing(grid); }
  double rho() const { return exact.c * dt / h(); }
};

// Throws std::invalid_argument naming the option when the wave cannot use it: a grid that is not
// NXx1xNY, an unstable --dt, a --safety outside (0, 1], the projection solver's --re or --gamma.
WaveCase make_wave_case(const CaseOptions& o);

// The projection solver's options (time scheme, pressure solve) have no meaning here; throws
// std::runtime_error naming them.
void check_wave_options(const SolverOptions& o);

// The exact solution at t = -dt and t = 0 on every node ("u_prev", "u"); boundary nodes 0. Starting
// from exact values of both levels makes the first step as accurate as any other (no Taylor start).
template <class T>
HostState<T> wave_initial_state(const WaveCase& c);
// Rank s's slab of it (its rows and ghost rows), built alone, every value as the whole state's.
template <class T>
HostState<T> wave_initial_slab(const WaveCase& c, const Slab& s);

// {"kind": "exact", "max_error", "rms_error" (over the unknowns, of u at the state's time), ...}.
template <class T>
nlohmann::json wave_validation(const WaveCase& c, const HostState<T>& s);

// The energy the scheme conserves exactly, up to rounding, from one step to the next (multiply the
// scheme by u^{n+1} - u^{n-1} and sum by parts; the boundary nodes are 0):
//   E = (h / dt)^2 sum_nodes (u - u_prev)^2 + c^2 sum_edges (u_a - u_b)(u_prev_a - u_prev_b),
// the edges joining neighbouring nodes. It is positive under the stability limit, so a drift beyond
// rounding means a wrong step, boundary or halo row. On a rank's slab (grid g): its rows' nodes and
// their edges, the edges to the row below only where that row is the physical boundary
// (lower_boundary), so that the ranks' sums add up to the whole grid's.
template <class T>
double wave_energy(const WaveCase& c, const Grid& g, const std::vector<T>& u_prev, const std::vector<T>& u,
                   bool lower_boundary);

}  // namespace nsb
