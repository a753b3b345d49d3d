#include <algorithm>
#include <map>
#include <stdexcept>

#include "poisson/poisson.hpp"

namespace nsb {

const char* poisson_face_name(PoissonFace f) {
  switch (f) {
    case PoissonFace::neumann: return "neumann";
    case PoissonFace::dirichlet: return "dirichlet";
    case PoissonFace::periodic: return "periodic";
  }
  return "?";
}

std::vector<PoissonMethodInfo>& poisson_methods() {
  static std::vector<PoissonMethodInfo> methods;
  return methods;
}

std::string poisson_method_names() {
  std::string names;
  for (const PoissonMethodInfo& m : poisson_methods()) names += (names.empty() ? "" : " ") + m.name;
  return names;
}

namespace {
// "name:options" -> name (the options go to PoissonSettings::options).
std::string method_base(const std::string& name) { return name.substr(0, name.find(':')); }
}  // namespace

double poisson_method_work_arrays(const std::string& name) {
  for (const PoissonMethodInfo& m : poisson_methods())
    if (m.name == method_base(name)) return m.work_arrays;
  return 0;
}

std::vector<PoissonKernelWorkspace>& poisson_kernel_workspaces() {
  static std::vector<PoissonKernelWorkspace> all;
  return all;
}

double poisson_kernels_workspace_bytes(const std::map<std::string, std::string>& kernels, const Grid& g, int value_bytes) {
  double bytes = 0;
  std::map<std::string, double> pools;  // a shared allocation: its largest declaration among the chosen
  for (const auto& [stage, choice] : kernels)
    for (const PoissonKernelWorkspace& w : poisson_kernel_workspaces())
      if (w.stage == stage && w.variant == choice.substr(0, choice.find(':'))) {
        const double b = w.per_point[value_bytes == 8 ? 1 : 0] * double(g.interior_points());
        if (w.pool.empty()) bytes += b;
        else pools[w.pool] = std::max(pools[w.pool], b);
      }
  for (const auto& [pool, b] : pools) bytes += b;
  return bytes;
}

template <class T>
std::unique_ptr<PoissonMethod<T>> make_poisson_method(const std::string& name, const PoissonSettings& s) {
  std::string known;
  const std::string base = method_base(name);
  PoissonSettings with = s;
  with.options = base.size() < name.size() ? name.substr(base.size() + 1) : s.options;
  for (const PoissonMethodInfo& m : poisson_methods()) {
    if (m.name == base) {
      if (!with.options.empty() && m.options.empty())
        throw std::runtime_error("Poisson method '" + base + "' takes no options (given '" + with.options + "')");
      if constexpr (sizeof(T) == sizeof(float)) return m.make_float(with);
      else return m.make_double(with);
    }
    known += " " + m.name;
  }
  throw std::runtime_error("unknown Poisson method '" + base + "'; known:" + known);
}

template std::unique_ptr<PoissonMethod<float>> make_poisson_method<float>(const std::string&, const PoissonSettings&);
template std::unique_ptr<PoissonMethod<double>> make_poisson_method<double>(const std::string&, const PoissonSettings&);

}  // namespace nsb
