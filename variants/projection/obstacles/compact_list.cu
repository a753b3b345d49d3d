// obstacles/compact_list: the fused obstacle logic on the listed points only (those with a solid cell
// in their 3x3x3 neighbourhood, built once from the flags; every other point keeps its value bit for
// bit): pass 1 computes each listed point's result into the workspace, pass 2 stores them. Its work
// follows the buildings' surface, not the grid's volume.
#include <algorithm>

#include "projection/obstacles/obstacle_passes.cuh"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  const ObstacleCells& cells = c.obstacle_cells;
  if (cells.count == 0) return;
  check_block(c.tuning.bx, "obstacle list pass");
  const unsigned blocks = std::min<unsigned>(ceil_div((long long)cells.count, c.tuning.bx), 65535u * 8);
  obstacle_list_compute_kernel<T><<<blocks, c.tuning.bx, 0, stream_of(c.exec)>>>(ObstacleFusedPoint<T>(c), cells.index,
                                                                                 cells.count);
  NSB_LAUNCHED("obstacle_list_compute_kernel");
  obstacle_list_store_kernel<T><<<blocks, c.tuning.bx, 0, stream_of(c.exec)>>>(c.f, cells.index, cells.count);
  NSB_LAUNCHED("obstacle_list_store_kernel");
}

const Registrar reg{Variant{
    .stage = "projection/obstacles",
    .name = "compact_list",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}, {"passes", "fused"}, {"points", "listed"}},
    .tunings = flat_sizes(),
    .status = "the stage kind's default GPU variant: the fused logic on the points next to a solid only",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = {{"obstacle_list_compute<float>", (const void*)&obstacle_list_compute_kernel<float>, 4},
                {"obstacle_list_store<float>", (const void*)&obstacle_list_store_kernel<float>, 4},
                {"obstacle_list_compute<double>", (const void*)&obstacle_list_compute_kernel<double>, 8},
                {"obstacle_list_store<double>", (const void*)&obstacle_list_store_kernel<double>, 8}},
}};

}  // namespace
}  // namespace nsb
