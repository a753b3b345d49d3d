// poisson/mg_residual_restrict/global_zloop: coarse f = average of the 8 fine residuals f - L p, computed
// where they are averaged (a thread a coarse point in 2D blocks over x-y walking sz levels of z,
// variants/common/traversals.cuh): the fine residual is never written and read back, 2.125 words a fine
// point against 4.125 for mg_residual + mg_restrict, and one launch a level fewer.
#include "poisson/mg_common/mg_device.cuh"

namespace nsb {
namespace {

template <class T>
void run(const MgResidualRestrictCall<T>& c) {
  launch_zloop_2d((MgResidualRestrictOp<T>{c.p, c.f, c.coarse_f, c.fine, make_mg_coef<T>(c.fine)}), c);
}

const Registrar reg{Variant{
    .stage = "poisson/mg_residual_restrict",
    .name = "global_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"traversal", "one_point"}},
    .tunings = mg_zloop_tunings(),
    .status = "global-memory baseline; the default of the multigrid methods' restriction",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<MgResidualRestrictOp<float>, MgResidualRestrictOp<double>>(),
}};

}  // namespace
}  // namespace nsb
