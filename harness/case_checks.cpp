#include "case_checks.hpp"

#include <stdexcept>

namespace nsb {

void refuse_unused_case_options(const CaseOptions& o, const std::string& solver, const std::vector<std::string>& unused,
                                const std::string& why) {
  const CaseOptions defaults;
  for (const std::string& name : unused) {
    const bool given = name == "re" ? o.re != defaults.re : name == "dt" ? o.dt != defaults.dt
                     : name == "safety" ? o.safety != defaults.safety : name == "gamma" ? o.gamma != defaults.gamma
                     : throw std::logic_error("refuse_unused_case_options: no case option '" + name + "'");
    if (given) throw std::invalid_argument("the " + solver + " solver does not use --" + name + ": " + why);
  }
}

}  // namespace nsb
