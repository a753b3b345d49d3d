#include "micro_cases.hpp"

namespace nsb {

std::vector<Grid> micro_grids() {
  auto cube = [](int nx, int ny, int nz) { return Grid{nx, ny, nz, double(nx), double(ny), double(nz)}; };
  return {cube(128, 128, 128), cube(256, 32, 256), cube(256, 256, 256), cube(512, 512, 512)};
}

std::vector<MicroCase> micro_cases(const std::vector<Grid>& grids) {
  std::vector<MicroCase> out;
  for (const Grid& g : grids)
    for (bool single : {true, false})
      for (const Variant& v : Registry::instance().all()) {
        if (v.backend != Backend::cuda) continue;
        const std::vector<TimeScheme> schemes =
            v.stage == StageKind::momentum ? std::vector<TimeScheme>{TimeScheme::euler, TimeScheme::adams_bashforth2}
                                           : std::vector<TimeScheme>{TimeScheme::euler};
        for (TimeScheme s : schemes)
          for (const Tuning& t : v.tunings)
            out.push_back({&v, t, g, single, s,
                           v.id() + "/" + t.name + "/" + (s == TimeScheme::euler ? "euler" : "ab2") + "/" +
                               std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz) + "/" +
                               (single ? "float" : "double")});
      }
  return out;
}

}  // namespace nsb
