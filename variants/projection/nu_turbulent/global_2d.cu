// nu_turbulent/global_2d: the Smagorinsky eddy viscosity at cell centres (thesis nu_turbulent kernel,
// Eqs. 2.4-2.7, App. B.9), global memory, 2D blocks walking z.
#include "common/traversals.cuh"
#include "projection/urban_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_zloop_2d(NuTurbulentPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/nu_turbulent",
    .name = "global_2d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}},
    .tunings = zloop_shapes(),
    .status = "thesis baseline (nu_turbulent kernel, Table 4.4); not yet coupled to the momentum stage",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = zloop_kernels<NuTurbulentPoint<float>, NuTurbulentPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
