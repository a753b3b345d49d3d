// poisson/cg_check/single_thread: CG's convergence check as one thread after the update: two device
// scalars compared and counted, so the host reads a flag only every check_every iterations.
#include "poisson/poisson_ops.cuh"

namespace nsb {
namespace {

template <class T>
__global__ void cg_check_kernel(PoissonArgs<T> c) {
  cg_check_step(c);
}

template <class T>
void run(const PoissonCall<T>& c) {
  cg_check_kernel<T><<<1, 1, 0, stream_of(c.exec)>>>(c);
  NSB_LAUNCHED("poisson/cg_check/single_thread");
}

const Registrar reg{Variant{
    .stage = "poisson/cg_check",
    .name = "single_thread",
    .backend = Backend::cuda,
    .tags = {{"memory", "global"}},
    .status = "the device-side convergence check of cg_device_check / pcg_device_check (a launch, no host wait)",
    .run_float = &run<float>,
    .run_double = &run<double>,
}};

}  // namespace
}  // namespace nsb
