// poisson/faces/global: x -= shift over the interior walk (only when shift != 0), then the ghost layer
// from the faces, one launch per axis.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
void run(const PoissonCall<T>& c) {
  if (c.shift != T(0)) poisson_launch(c, ShiftOp<T>{c.x, c.shift}, "poisson/faces/global shift");
  poisson_launch_faces(c, c.x);
}

const Registrar reg{Variant{
    .stage = "poisson/faces",
    .name = "global",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = poisson_walk_tunings(),
    .status = "the family's ghost rule on the GPU",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
