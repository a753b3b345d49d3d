// The tunings of poisson/rbsor's GPU variants: a block shape and omega (w190 = 1.90, the default; the
// optimum for the Poisson problem on n^3, 2 / (1 + sin(pi / n)), is 1.95 at 128 and 1.99 at 512).
#pragma once

#include <vector>

#include "registry.hpp"

namespace nsb {

inline std::vector<Tuning> rbsor_tunings() {
  std::vector<Tuning> t;
  for (const char* w : {"w190", "w100", "w150", "w170", "w180", "w195", "w198"})
    t.push_back(parse_tuning(std::string("bx32_by4_sz8_") + w));
  for (const char* shape : {"bx64_by4_sz8", "bx32_by8_sz16", "bx64_by2_sz32"})
    t.push_back(parse_tuning(std::string(shape) + "_w190"));
  return t;
}

}  // namespace nsb
