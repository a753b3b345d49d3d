// Summary statistics of timing samples: median, inter-quartile range, min, max, mean, count.
// Quantiles interpolate linearly between order statistics (Hyndman-Fan type 7, as numpy's default).
#pragma once

#include <vector>

namespace nsb {

struct Summary {
  std::size_t count = 0;
  double median = 0, q1 = 0, q3 = 0, iqr = 0, min = 0, max = 0, mean = 0, sum = 0;
};

double quantile_sorted(const std::vector<double>& sorted, double q);
Summary summarize(std::vector<double> samples);

}  // namespace nsb
