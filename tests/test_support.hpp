// Helpers shared by the tests: run a case on a backend for some steps, compare states.
#pragma once

#include <string>

#include "gpu_test_support.hpp"
#include "projection/time_loop.hpp"
#include "projection/validation.hpp"

namespace nsb::test {

template <class T>
struct Outcome {
  HostState<T> state;
  int steps = 0;
  double last_change = 0;
  bool steady = false;
};

// Runs case c with the named recipe for `steps` steps, or until the RMS velocity change per unit time
// falls below steady_tol (checked every 50 steps) when steady_tol > 0.
template <class T>
Outcome<T> run_case(const Case& c, const std::string& recipe, int steps, SolverOptions o = {}, double steady_tol = 0);

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b);
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b);
double max_abs(const std::vector<double>& a);

// A new, empty folder of this process's own under the system's temp folder (mkdtemp: <tmp>/<stem>-XXXXXX), so that
// two test runs at once (two checkouts, ctest -j) never share a path; the caller removes it.
std::string unique_temp_dir(const std::string& stem);

}  // namespace nsb::test
