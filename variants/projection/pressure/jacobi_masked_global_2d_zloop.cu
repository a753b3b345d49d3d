// pressure/jacobi_masked_global_2d_zloop: the thesis's urban pressure kernel (Eq. 3.3): the Jacobi
// sweep with solid neighbours masked by the flags, global memory, 2D blocks walking z. Without flags
// (no obstacles) it runs the plain sweep, so it verifies on both workloads.
#include "common/traversals.cuh"
#include "projection/point_ops.hpp"
#include "projection/urban_ops.hpp"

namespace nsb {
namespace {

template <class T>
void run(const StageCall<T>& c) {
  if (c.f.solid) launch_zloop_2d(MaskedJacobiPoint<T>(c), c);
  else launch_zloop_2d(JacobiPoint<T>(c), c);
}

std::vector<KernelRef> kernels() {
  std::vector<KernelRef> k = zloop_kernels<MaskedJacobiPoint<float>, MaskedJacobiPoint<double>>();
  for (KernelRef& r : k) r.name = "masked_" + r.name;
  for (const KernelRef& r : zloop_kernels<JacobiPoint<float>, JacobiPoint<double>>()) k.push_back(r);
  return k;
}

// The masked point needs more registers than a 1024-thread block can give each thread in double
// (cudaErrorLaunchOutOfResources on the H200): the shapes of at most 512 threads.
std::vector<Tuning> shapes() {
  std::vector<Tuning> t;
  for (const Tuning& s : zloop_wide_shapes())
    if (s.bx * s.by <= 512) t.push_back(s);
  return t;
}

const Registrar reg{Variant{
    .stage = "projection/pressure",
    .name = "jacobi_masked_global_2d_zloop",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}, {"cta", "2d"}, {"obstacles", "masked"}},
    .tunings = shapes(),
    .status = "thesis baseline of the urban cases (Eq. 3.3): the masked sweep; the only GPU pressure variant that "
              "takes obstacles",
    .run_float = &run<float>,
    .run_double = &run<double>,
    .kernels = kernels(),
}};

}  // namespace
}  // namespace nsb
