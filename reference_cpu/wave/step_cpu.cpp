// wave/step on the CPU: the correctness reference of every GPU variant and the serial baseline of the
// thesis's speedups (Fig. 4.1). cpu_serial and cpu_omp are the same loops with the OpenMP region
// switched off or on; each point is computed alone, so the two agree bit for bit.
#include <omp.h>

#include "accessors.hpp"
#include "registry.hpp"
#include "wave/stage_call.hpp"

namespace nsb {
namespace {

template <class T>
void step(const WaveCall<T>& c) {
  const Grid g = c.grid;
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int k = c.zr.k_begin; k < c.zr.k_end; ++k)
    for (int i = 1; i <= g.nx; ++i) {
      const std::size_t n = wave_node(g, i, k);
      c.u_next[n] = wave_point(point_at(c.u, g, n), c.u_prev[n], c.rho2);
    }
}

Variant cpu(Backend b) {
  return cpu_reference_variant("wave/step", b, &step<float>, &step<double>);
}

const Registrar serial{cpu(Backend::cpu_serial)};
const Registrar omp{cpu(Backend::cpu_omp)};

}  // namespace
}  // namespace nsb
