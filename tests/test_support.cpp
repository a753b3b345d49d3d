#include "test_support.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <stdlib.h>  // mkdtemp

namespace nsb::test {

template <class T>
Outcome<T> run_case(const Case& c, const std::string& recipe, int steps, SolverOptions o, double steady_tol) {
  const ResolvedRecipe r = resolve(find_recipe("projection", recipe), {});
  ProjectionSolver<T> s(c, r, o, nullptr);
  s.load(initial_state<T>(c));
  Outcome<T> out;
  for (int n = 0; n < steps; ++n) {
    s.step();
    ++out.steps;
    if (steady_tol > 0 && out.steps % 50 == 0) {
      out.last_change = s.steady_change();
      if (out.last_change < steady_tol) {
        out.steady = true;
        break;
      }
    }
  }
  out.state = s.save();
  return out;
}

template Outcome<float> run_case<float>(const Case&, const std::string&, int, SolverOptions, double);
template Outcome<double> run_case<double>(const Case&, const std::string&, int, SolverOptions, double);

template <class T>
static double diff(const std::vector<T>& a, const std::vector<T>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return a.size() == b.size() ? m : INFINITY;
}
double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) { return diff(a, b); }
double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) { return diff(a, b); }
double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

std::string unique_temp_dir(const std::string& stem) {
  std::string pattern = (std::filesystem::temp_directory_path() / (stem + "-XXXXXX")).string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) throw std::runtime_error("mkdtemp " + pattern + " failed");
  return buf.data();
}

}  // namespace nsb::test
