// Helpers of the GPU tests of every solver: the visible skip without a GPU, and the difference of a GPU stage's
// fixture from the CPU reference's. No solver header: any solver's test can include it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include <gtest/gtest.h>

#include "device.hpp"
#include "stage_kind.hpp"

namespace nsb::test {

// Largest |got - ref| over every array of two stage fixtures, relative to the largest |ref| of all of them.
template <class T>
double fixture_difference(const StageFixture<T>& got, const StageFixture<T>& ref) {
  double diff = 0, scale = 0;
  const auto a = got.arrays(), b = ref.arrays();
  for (std::size_t f = 0; f < b.size(); ++f)
    for (std::size_t n = 0; n < b[f].second.size(); ++n) {
      diff = std::max(diff, std::abs(double(a[f].second[n]) - double(b[f].second[n])));
      scale = std::max(scale, std::abs(double(b[f].second[n])));
    }
  return diff / scale;
}

// The same, each array relative to its own largest |ref| (a small array, e.g. a residual, is not drowned by the
// large ones), the worst array's.
template <class T>
double fixture_difference_per_array(const StageFixture<T>& got, const StageFixture<T>& ref) {
  double worst = 0;
  const auto a = got.arrays(), b = ref.arrays();
  for (std::size_t f = 0; f < b.size(); ++f) {
    double diff = 0, scale = 0;
    for (std::size_t n = 0; n < b[f].second.size(); ++n) {
      diff = std::max(diff, std::abs(double(a[f].second[n]) - double(b[f].second[n])));
      scale = std::max(scale, std::abs(double(b[f].second[n])));
    }
    worst = std::max(worst, diff / scale);
  }
  return worst;
}

}  // namespace nsb::test

// A GPU test's first line: skips it, visibly and with the reason, where no GPU can be used (ctest's skip regex
// matches "SKIPPED: no usable GPU").
#define NSB_NEEDS_GPU()               \
  if (::nsb::device::count() == 0) \
  GTEST_SKIP() << "SKIPPED: no usable GPU (" << ::nsb::device::unavailable_reason() << ")"
