// poisson/cg_update/separate_cublas: x += alpha p and r -= alpha q in one pass that also writes r and z = m r
// as compact doubles, then r.z and r.r by cuBLAS (two cublasDdot in device pointer mode into out[0] and
// out[1], no host wait), the paper's CG dots (Liu et al. Sec. 2; cublas_dots.cuh). Words a point: x p r q
// read, x r written, then two doubles written, and three read by cuBLAS (r and z, r): double 11 words, float
// 16, against the fused variants' 6.
#include "poisson/cublas_dots.cuh"

namespace nsb {
namespace {

constexpr const char* kWho = "poisson/cg_update/separate_cublas";

template <class T>
void run(const PoissonCall<T>& c) {
  CublasDots& w = cublas_compact_factors(c, UpdateOp<T>{c}, kWho);  // x, r updated; compact r, z
  cublas_dot(c, w, w.x(), w.y(), c.out, kWho);                      // r z
  cublas_dot(c, w, w.x(), w.x(), c.out + 1, kWho);                  // r r
}

const Registrar reg{Variant{
    .stage = "poisson/cg_update",
    .name = "separate_cublas",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"reduce", "library"}, {"fusion", "separate"}},
    .tunings = poisson_walk_tunings(),
    .status = "study axis (paper): updates writing compact r and z, then two cuBLAS Ddots in device pointer mode",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};
const PoissonKernelWorkspaceRegistrar reg_workspace{{"poisson/cg_update", "separate_cublas", {16, 16}, "cublas_dots"}};

}  // namespace
}  // namespace nsb
