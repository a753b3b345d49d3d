#include "micro_cases.hpp"

namespace nsb {

std::vector<Grid> micro_grids() {
  auto cube = [](int nx, int ny, int nz) { return Grid{nx, ny, nz, double(nx), double(ny), double(nz)}; };
  return {cube(128, 128, 128), cube(256, 32, 256), cube(256, 256, 256), cube(512, 512, 512)};
}

std::vector<MicroCase> micro_cases(const std::vector<Grid>& grids) {
  std::vector<MicroCase> out;
  for (const Grid& grid : grids)
    for (bool single : {true, false})
      for (const StageKind& k : StageKindRegistry::instance().all()) {
        const Grid g = k.verify_grid ? k.verify_grid(grid) : grid;
        for (const std::string& workload : k.workloads)
          for (const Variant* v : Registry::instance().of_stage(k.id())) {
            if (v->backend != Backend::cuda || !k.runs(*v, workload)) continue;
            for (const Tuning& t : v->tunings)
              out.push_back({&k, v, t, g, single, workload,
                             v->id() + "/" + t.name + "/" + (workload.empty() ? "-" : workload) + "/" +
                                 std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) +
                                 "/" + (single ? "float" : "double")});
          }
      }
  return out;
}

}  // namespace nsb
