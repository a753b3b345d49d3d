#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace nsb {

double quantile_sorted(const std::vector<double>& s, double q) {
  if (s.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (q < 0 || q > 1) throw std::invalid_argument("quantile outside [0, 1]");
  const double h = (s.size() - 1) * q;
  const std::size_t lo = std::size_t(std::floor(h));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (h - double(lo)) * (s[hi] - s[lo]);
}

Summary summarize(std::vector<double> v) {
  Summary r;
  r.count = v.size();
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  r.min = v.front();
  r.max = v.back();
  r.median = quantile_sorted(v, 0.5);
  r.q1 = quantile_sorted(v, 0.25);
  r.q3 = quantile_sorted(v, 0.75);
  r.iqr = r.q3 - r.q1;
  r.sum = std::accumulate(v.begin(), v.end(), 0.0);
  r.mean = r.sum / double(v.size());
  return r;
}

}  // namespace nsb
