// poisson/dot/library_cublas: cuBLAS's dot (cublasDdot in device pointer mode: the sum is written to the
// device scalar, the host does not wait) over the interior points, after a gather of the interior of a and
// of b (ones where b is null) into two compact double vectors (cublas_dots.cuh says why). Words a point:
// a and b read, two doubles written and read again, against the fused variants' 2: the price of a library
// dot on a padded layout, which is what this variant measures (CG's own vectors are padded: stage_call.hpp).
#include "poisson/cublas_dots.cuh"

namespace nsb {
namespace {

constexpr const char* kWho = "poisson/dot/library_cublas";

template <class T>
void run(const PoissonCall<T>& c) {
  CublasDots& w = cublas_compact_factors(c, DotOp<T>{c.a, c.b}, kWho);
  cublas_dot(c, w, w.x(), w.y(), c.out, kWho);
}

const Registrar reg{Variant{
    .stage = "poisson/dot",
    .name = "library_cublas",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis: cuBLAS Ddot (device pointer mode) after a gather of the padded interior into compact doubles",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};
const PoissonKernelWorkspaceRegistrar reg_workspace{{"poisson/dot", "library_cublas", {16, 16}, "cublas_dots"}};

}  // namespace
}  // namespace nsb
