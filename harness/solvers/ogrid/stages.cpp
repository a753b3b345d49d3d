// The grid generator's stage kind, ogrid/sweep: one over-relaxed Jacobi sweep of the elliptic grid
// equations (Gohari et al. 2012, Sec. 2.1, Eq. 3; formulas.hpp grid_point) with the residual's maximum.
// Its fixture is the grid2d family's (grid2d/fixture.hpp), shared with the flow solver.
#include "grid2d/fixture.hpp"

namespace nsb {

std::map<std::string, std::vector<std::string>> streamvort_tag_vocabulary();

namespace {

StageKind sweep_kind() {
  StageKind k;
  k.solver = "ogrid";
  k.name = "sweep";
  k.summary = "x, y <- one over-relaxed Jacobi sweep of the elliptic grid equations (Eq. 3), residual max |dr|";
  k.reads = {"x", "y", "phi", "psi_c"};
  k.writes = {"x_new", "y_new"};
  k.tuning_axes = {"bx", "by", "b"};
  k.tag_vocabulary = streamvort_tag_vocabulary();
  k.default_gpu_variant = "global_2d";
  k.flops_per_point = [](const std::string&) { return grid_sweep_flops(); };
  k.verify_grid = as_streamvort_grid;
  set_fixture<StreamvortFixture>(k);
  return k;
}

const StageKindRegistrar kind{sweep_kind()};

}  // namespace
}  // namespace nsb
