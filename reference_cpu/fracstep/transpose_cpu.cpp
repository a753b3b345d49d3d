// V1's global transposes on the CPU (transpose.hpp): the reference of every GPU variant, written as the
// definition, point by point: value q of point (i, j, k) goes from its place in the z-slabs to its place in
// the x-slabs (or back). No pack, no messages: a GPU variant's blocks are checked against where each value
// must end up. cpu_serial and cpu_omp are the same loop with the OpenMP region off or on.
#include <omp.h>

#include "transpose/transpose.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

template <class T>
void transpose(const TransposeCall<T>& c) {
  const TransposeShape s = c.shape;
  check_transpose_shape(s);
  const bool to_x = c.direction == TransposeDirection::z_to_x;
  const int threads = c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads) if (c.exec.backend == Backend::cpu_omp)
  for (int k = 0; k < s.nz; ++k)
    for (int j = 0; j < s.ny; ++j)
      for (int i = 0; i < s.nx; ++i)
        for (int q = 0; q < s.words; ++q) {
          const std::size_t z = zslabs_index(s, i, j, k, q), x = xslabs_index(s, i, j, k, q);
          if (to_x) c.to[x] = c.from[z];
          else c.to[z] = c.from[x];
        }
}

Variant cpu(const char* stage, Backend b) { return cpu_reference_variant(stage, b, &transpose<float>, &transpose<double>); }
const Registrar zx_serial{cpu("fracstep/transpose_zx", Backend::cpu_serial)};
const Registrar zx_omp{cpu("fracstep/transpose_zx", Backend::cpu_omp)};
const Registrar xz_serial{cpu("fracstep/transpose_xz", Backend::cpu_serial)};
const Registrar xz_omp{cpu("fracstep/transpose_xz", Backend::cpu_omp)};

}  // namespace
}  // namespace nsb
