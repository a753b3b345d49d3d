// imle/mls on the CPU: the correctness reference of every GPU variant and the CPU baseline of the
// paper's Figs. 6-7. Each target cell builds and solves its system on the stack (mls_cell,
// mls_formulas.hpp); cpu_omp shares the z-levels and rows among the threads (the paper: `omp parallel
// do` on the outermost loop, no synchronisation). Cells are independent, so serial and OpenMP agree
// bit for bit.
#include <omp.h>

#include "imle/mls_call.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T>
void mls(const MlsCall<T>& c) {
  const MlsArgs<T> a = mls_args(c);
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (parallel)
  for (int k = c.zr.k_begin; k < c.zr.k_end; ++k)
    for (int j = 1; j <= c.grid.ny; ++j)
      for (int i = 1; i <= c.grid.nx; ++i) mls_cell(a, i, j, k);
}

Variant cpu(Backend b) {
  return cpu_reference_variant("imle/mls", b, &mls<float>, &mls<double>);
}

const Registrar serial{cpu(Backend::cpu_serial)};
const Registrar omp{cpu(Backend::cpu_omp)};

}  // namespace
}  // namespace nsb
