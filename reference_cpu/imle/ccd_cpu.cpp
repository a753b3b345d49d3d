// imle/ccd on the CPU: the correctness reference of every GPU variant and the CPU baseline of the
// paper's Figs. 6-7. One line at a time through the shared line solve (ccd_formulas.hpp); cpu_omp
// shares the lines among the threads (the paper: `omp parallel do` on the outer loop). Each line is
// solved alone, so serial and OpenMP agree bit for bit.
#include <omp.h>

#include "imle/ccd_call.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T>
void ccd(const CcdCall<T>& c) {
  const CcdLines l = ccd_lines(c);
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (parallel)
  for (int l2 = 0; l2 < l.count2; ++l2)
    for (int l1 = 0; l1 < l.count1; ++l1) {
      const std::size_t b = l.base(l1, l2);
      ccd_solve_line(c.phi + b, c.d1 + b, c.d2 + b, l.stride, l.n, c.bc, c.factor, c.h);
    }
}

Variant cpu(Backend b) {
  return cpu_reference_variant("imle/ccd", b, &ccd<float>, &ccd<double>);
}

const Registrar serial{cpu(Backend::cpu_serial)};
const Registrar omp{cpu(Backend::cpu_omp)};

}  // namespace
}  // namespace nsb
