// The parallel half of fields.hpp's random fill: here, not in the header, because this file is built with
// OpenMP and the CUDA translation units that include fields.hpp are not (nvcc's host pass would reject the
// pragma under -Werror).
#include "fields.hpp"

#include <cstddef>
#include <vector>

namespace nsb {
namespace {

template <class T>
void fill_arrays(const std::vector<T*>& out, std::size_t n, unsigned seed) {
  const auto count = static_cast<std::ptrdiff_t>(out.size());
#pragma omp parallel for schedule(dynamic)
  for (std::ptrdiff_t i = 0; i < count; ++i) fill_random(out[std::size_t(i)], n, seed + unsigned(i));
}

}  // namespace

void fill_random_arrays(const std::vector<float*>& out, std::size_t n, unsigned seed) { fill_arrays(out, n, seed); }
void fill_random_arrays(const std::vector<double*>& out, std::size_t n, unsigned seed) { fill_arrays(out, n, seed); }

}  // namespace nsb
