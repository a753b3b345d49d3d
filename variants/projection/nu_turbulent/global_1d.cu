// nu_turbulent/global_1d: the Smagorinsky eddy viscosity, one thread per cell in flat 1D blocks (the
// study's other traversal: 1D against the thesis's 2D blocks, Fig. 4.4).
#include "common/traversals.cuh"
#include "projection/urban_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  launch_flat_1d(NuTurbulentPoint<T>(c), c);
}

const Registrar reg{Variant{
    .stage = "projection/nu_turbulent",
    .name = "global_1d",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "1d"}},
    .tunings = flat_sizes(),
    .status = "study axis: flat 1D blocks; not yet coupled to the momentum stage",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = flat_kernels<NuTurbulentPoint<float>, NuTurbulentPoint<double>>(),
}};

}  // namespace
}  // namespace nsb
