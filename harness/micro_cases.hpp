// The micro-benchmark set of nsbench-micro, generated from the registries: every GPU stage variant x
// tuning x grid x precision x workload of its stage kind (time scheme for momentum). A new variant or
// stage kind appears here, and so in nsbench-micro, without editing anything.
#pragma once

#include <string>
#include <vector>

#include "stage_kind.hpp"

namespace nsb {

struct MicroCase {
  const StageKind* kind = nullptr;
  const Variant* variant = nullptr;
  Tuning tuning;
  Grid grid;
  bool single = true;    // float (else double)
  std::string workload;  // one of the kind's workloads
  std::string name;      // "projection/pressure/jacobi_global_2d_zloop/bx32_by8_sz8/euler/256x256x256/float"
};

// The grids every stage is measured on (at least 128^3, 256x32x256, 256^3, 512^3).
std::vector<Grid> micro_grids();
std::vector<MicroCase> micro_cases(const std::vector<Grid>& grids);

}  // namespace nsb
