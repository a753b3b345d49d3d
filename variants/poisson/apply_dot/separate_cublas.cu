// poisson/apply_dot/separate_cublas: q = L p in one pass that also writes p and q as compact doubles, then
// p.q by cuBLAS (cublasDdot in device pointer mode: the sum goes to the device scalar, no host wait), the
// paper's CG dot (Liu et al. Sec. 2; cublas_dots.cuh). Words a point: p read, q written, then two doubles
// written and read again by cuBLAS: double 6 words, float 10, against the fused variants' 2.
#include "poisson/cublas_dots.cuh"

namespace nsb {
namespace {

constexpr const char* kWho = "poisson/apply_dot/separate_cublas";

template <class T>
void run(const PoissonCall<T>& c) {
  CublasDots& w = cublas_compact_factors(c, ApplyOp<T>{c}, kWho);  // q = L p; compact p, q
  cublas_dot(c, w, w.x(), w.y(), c.out, kWho);                     // p q
}

const Registrar reg{Variant{
    .stage = "poisson/apply_dot",
    .name = "separate_cublas",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}, {"fusion", "separate"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis (paper): operator writing compact p and q, then cuBLAS Ddot in device pointer mode",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};
const PoissonKernelWorkspaceRegistrar reg_workspace{{"poisson/apply_dot", "separate_cublas", {16, 16}, "cublas_dots"}};

}  // namespace
}  // namespace nsb
