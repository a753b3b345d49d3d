// imle/predict, imle/move, imle/ppe_rhs and imle/correct on the CPU: the reference of their GPU
// variants and the CPU baseline; one loop over the interior cells of zr calling the shared formula
// (point_formulas.hpp), cpu_omp sharing the z-levels and rows among the threads (bitwise equal).
#include <omp.h>

#include "imle/point_call.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <ImlePoint S, class T>
void point(const ImlePointCall<T>& c) {
  const ImlePointArgs<T> a = point_args(c);
  const Grid g = c.grid;
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for collapse(2) schedule(static) num_threads(threads) if (parallel)
  for (int k = c.zr.k_begin; k < c.zr.k_end; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) imle_point<S>(a, i, j, k, g.idx(i, j, k));
}

template <ImlePoint S>
Variant cpu(const char* stage, Backend b) {
  return cpu_reference_variant(stage, b, &point<S, float>, &point<S, double>);
}

const Registrar predict_serial{cpu<ImlePoint::predict>("imle/predict", Backend::cpu_serial)};
const Registrar predict_omp{cpu<ImlePoint::predict>("imle/predict", Backend::cpu_omp)};
const Registrar move_serial{cpu<ImlePoint::move>("imle/move", Backend::cpu_serial)};
const Registrar move_omp{cpu<ImlePoint::move>("imle/move", Backend::cpu_omp)};
const Registrar ppe_rhs_serial{cpu<ImlePoint::ppe_rhs>("imle/ppe_rhs", Backend::cpu_serial)};
const Registrar ppe_rhs_omp{cpu<ImlePoint::ppe_rhs>("imle/ppe_rhs", Backend::cpu_omp)};
const Registrar correct_serial{cpu<ImlePoint::correct>("imle/correct", Backend::cpu_serial)};
const Registrar correct_omp{cpu<ImlePoint::correct>("imle/correct", Backend::cpu_omp)};

}  // namespace
}  // namespace nsb
