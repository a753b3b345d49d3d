// Batched tridiagonal systems on the host: the test systems every fixture and test builds, the serial
// Thomas and cyclic solves of one system (the CPU reference, and the local solves of PDD/PPT), and the
// residual every solver is checked by.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tridiag/formulas.hpp"

namespace nsb {

// A value in +-[0.5, 1.5] from (seed, stream, index) alone, so the fixtures of every backend and any
// thread count build the same systems (splitmix64: a counter-based hash, no sequential state).
inline double tridiag_random(unsigned seed, unsigned stream, std::size_t i) {
  std::uint64_t z = (std::uint64_t(seed) << 40) ^ (std::uint64_t(stream) << 36) ^ std::uint64_t(i);
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const double u = double(z >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  const double mag = 0.5 + u;
  return (z & 1) ? mag : -mag;
}

template <class T>
struct RandomSystems {
  std::vector<T> a, b, c, d;
};

// Random, never zero, mixed signs; strictly diagonally dominant by a margin in [0.5, 1.5] a row, like
// the paper's momentum matrices (|b| = |a| + |c| + 1). Non-cyclic systems get a_0 = c_{n-1} = 0.
template <class T>
RandomSystems<T> random_systems(const TridiagLayout& l, bool cyclic, unsigned seed) {
  const std::size_t n = l.points();
  RandomSystems<T> r{std::vector<T>(n), std::vector<T>(n), std::vector<T>(n), std::vector<T>(n)};
#pragma omp parallel for schedule(static)
  for (int s = 0; s < l.batch; ++s)
    for (int j = 0; j < l.n; ++j) {
      const std::size_t p = l.index(s, j);
      const T a = (cyclic || j > 0) ? T(tridiag_random(seed, 0, p)) : T(0);
      const T c = (cyclic || j < l.n - 1) ? T(tridiag_random(seed, 1, p)) : T(0);
      const double margin = std::abs(tridiag_random(seed, 2, p));
      const T b = T((tridiag_random(seed, 3, p) > 0 ? 1 : -1) * (std::abs(double(a)) + std::abs(double(c)) + margin));
      r.a[p] = a, r.b[p] = b, r.c[p] = c, r.d[p] = T(tridiag_random(seed, 4, p));
    }
  return r;
}

// The normwise backward error of x: max_j |(A x - d)_j| over max_j (|a_j x_{j-1}| + |b_j x_j| +
// |c_j x_{j+1}| + |d_j|), in double whatever T. A backward-stable solve gives a few units of roundoff
// whatever the conditioning (the Poisson systems at small k2 are nearly singular: their x is large).
template <class T>
double tridiag_residual(const TridiagLayout& l, bool cyclic, const std::vector<T>& a, const std::vector<T>& b,
                        const std::vector<T>& c, const std::vector<T>& d, const std::vector<T>& x) {
  double worst = 0, scale = 0;
  for (int s = 0; s < l.batch; ++s)
    for (int j = 0; j < l.n; ++j) {
      const std::size_t p = l.index(s, j);
      const bool has_lower = j > 0 || cyclic, has_upper = j < l.n - 1 || cyclic;
      const double lower = has_lower ? double(a[p]) * double(x[l.index(s, j > 0 ? j - 1 : l.n - 1)]) : 0.0;
      const double upper = has_upper ? double(c[p]) * double(x[l.index(s, j < l.n - 1 ? j + 1 : 0)]) : 0.0;
      const double centre = double(b[p]) * double(x[p]);
      worst = std::max(worst, std::abs(lower + centre + upper - double(d[p])));
      scale = std::max(scale, std::abs(lower) + std::abs(centre) + std::abs(upper) + std::abs(double(d[p])));
    }
  return scale > 0 ? worst / scale : worst;
}

}  // namespace nsb

namespace nsb {

// The paper's y-systems on a wall-clustered grid, for the PDD/PPT accuracy checks (notes Sec. 1.7).
// Faces y_j = L (1 - tanh(s (1 - j/n)) / tanh(s)), j = 0..n: clustered at the wall y = 0. The paper gives
// no stretching function; tanh with s = 3 is this harness's documented default (as the notes' check).
inline std::vector<double> tanh_stretched_faces(int n, double L = 1.0, double s = 3.0) {
  std::vector<double> y(std::size_t(n) + 1);
  for (int j = 0; j <= n; ++j) y[std::size_t(j)] = L * (1.0 - std::tanh(s * (1.0 - double(j) / n)) / std::tanh(s));
  return y;
}

// The cell-centred second difference on those faces: (D2 u)_j = A_j u_{j-1} - (A_j + C_j) u_j + C_j u_{j+1},
// A_j = 1 / (h_j (yc_j - yc_{j-1})), C_j = 1 / (h_j (yc_{j+1} - yc_j)); A_0 = C_{n-1} = 0 (Neumann walls).
struct SecondDifference {
  std::vector<double> lower, upper;  // A_j, C_j
};
inline SecondDifference second_difference(const std::vector<double>& faces) {
  const int n = int(faces.size()) - 1;
  SecondDifference d{std::vector<double>(std::size_t(n), 0.0), std::vector<double>(std::size_t(n), 0.0)};
  auto centre = [&](int j) { return 0.5 * (faces[std::size_t(j)] + faces[std::size_t(j) + 1]); };
  for (int j = 0; j < n; ++j) {
    const double h = faces[std::size_t(j) + 1] - faces[std::size_t(j)];
    if (j > 0) d.lower[std::size_t(j)] = 1.0 / (h * (centre(j) - centre(j - 1)));
    if (j < n - 1) d.upper[std::size_t(j)] = 1.0 / (h * (centre(j + 1) - centre(j)));
  }
  return d;
}

// One system of the ADI momentum solve, I - beta D2 (|b| = |a| + |c| + 1, the paper's Sec. 3.2), or of the
// Poisson solve for one wavenumber pair, D2 - k2 scaled by rows to |b| = 1 (|b| = |a| + |c| + eps with
// eps = k2 / (A + C): the paper's "1e-6 to 1e-10").
struct SingleSystem {
  std::vector<double> a, b, c;
};
inline SingleSystem momentum_system(const SecondDifference& d2, double beta) {
  SingleSystem s;
  for (std::size_t j = 0; j < d2.lower.size(); ++j) {
    s.a.push_back(-beta * d2.lower[j]), s.c.push_back(-beta * d2.upper[j]);
    s.b.push_back(1.0 + std::abs(s.a.back()) + std::abs(s.c.back()));
  }
  return s;
}
inline SingleSystem poisson_system(const SecondDifference& d2, double k2) {
  SingleSystem s;
  for (std::size_t j = 0; j < d2.lower.size(); ++j) {
    const double b = -(d2.lower[j] + d2.upper[j]) - k2, scale = 1.0 / std::abs(b);
    s.a.push_back(d2.lower[j] * scale), s.b.push_back(b * scale), s.c.push_back(d2.upper[j] * scale);
  }
  return s;
}

}  // namespace nsb
