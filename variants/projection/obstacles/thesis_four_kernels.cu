// obstacles/thesis_four_kernels: the thesis's four kernels (Fig. 3.19) in its order, global memory,
// 2D blocks walking z: obstacles_zero_mask (in place), obstacles_sweep_uvw_kii (u* -> workspace),
// obstacles_sweep_uvw_jkj (workspace -> u*), obstacles_corners (in place). Four passes over the whole
// grid whatever the number of buildings: the thesis's 31-33% of the urban step (Table 4.2).
#include "projection/obstacles/obstacle_passes.cuh"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  StageCall<T> all = c;
  all.zr = ZRange::interior(c.grid);  // the whole slab: each pass reads its neighbours' results of the one before
  FieldPtrs<T> work = c.f;
  work.us = c.f.ut, work.vs = c.f.vt, work.ws = c.f.wt;
  launch_padded_2d(ObstacleMaskPoint<T>(all), all);
  launch_padded_2d(ObstacleSweepPoint<T, true>(all, c.f, work), all);
  launch_zloop_2d(ObstacleSweepPoint<T, false>(all, work, c.f), all);
  launch_zloop_2d(ObstacleCornerPoint<T>(all), all);
}

template <class T>
std::vector<KernelRef> kernels_of(int bytes) {
  const char* t = bytes == 4 ? "<float>" : "<double>";
  return {{std::string("obstacles_zero_mask") + t, (const void*)&padded_2d_kernel<ObstacleMaskPoint<T>>, bytes},
          {std::string("obstacles_sweep_uvw_kii") + t, (const void*)&padded_2d_kernel<ObstacleSweepPoint<T, true>>, bytes},
          {std::string("obstacles_sweep_uvw_jkj") + t, (const void*)&zloop_2d_kernel<ObstacleSweepPoint<T, false>>, bytes},
          {std::string("obstacles_corners") + t, (const void*)&zloop_2d_kernel<ObstacleCornerPoint<T>>, bytes}};
}
std::vector<KernelRef> all_kernels() {
  std::vector<KernelRef> k = kernels_of<float>(4);
  for (KernelRef& r : kernels_of<double>(8)) k.push_back(r);
  return k;
}

const Registrar reg{Variant{
    .stage = "projection/obstacles",
    .name = "thesis_four_kernels",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"passes", "thesis_four"}, {"points", "all"}},
    .tunings = thesis_and_modern_shapes(2),
    .status = "thesis baseline (Sec. 3.3.2, Fig. 3.19): four whole-grid passes",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = all_kernels(),
}};

}  // namespace
}  // namespace nsb
