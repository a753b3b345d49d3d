// The kernels of a momentum variant that takes the eddy viscosity (tag viscosity=eddy): its eddy
// instances beside the laminar ones, named "<kernel> eddy", so that register reports show both.
#pragma once

#include <vector>

#include "stage.hpp"

namespace nsb {

inline std::vector<KernelRef> with_eddy_kernels(std::vector<KernelRef> laminar, const std::vector<KernelRef>& eddy) {
  for (KernelRef k : eddy) {
    k.name += " eddy";
    laminar.push_back(k);
  }
  return laminar;
}

}  // namespace nsb
