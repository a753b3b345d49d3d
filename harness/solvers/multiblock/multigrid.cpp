#include "multiblock/multigrid.hpp"

#include <vector>

namespace nsb {
namespace {

// One level of a block: n x n values, i fastest, the block's nodes (no ghosts).
struct Level {
  int n = 0;
  std::vector<double> v;
  explicit Level(int size) : n(size), v(std::size_t(size) * std::size_t(size), 0.0) {}
  double& at(int i, int j) { return v[std::size_t(i) + std::size_t(n) * std::size_t(j)]; }
  double at(int i, int j) const { return v[std::size_t(i) + std::size_t(n) * std::size_t(j)]; }
};

Level restricted(const Level& f) {
  Level c((f.n - 1) / 2 + 1);
  for (int jc = 1; jc + 1 < c.n; ++jc)
    for (int ic = 1; ic + 1 < c.n; ++ic) {
      const int i = 2 * ic, j = 2 * jc;
      const double edges = f.at(i - 1, j) + f.at(i + 1, j) + f.at(i, j - 1) + f.at(i, j + 1);
      const double corners = f.at(i - 1, j - 1) + f.at(i + 1, j - 1) + f.at(i - 1, j + 1) + f.at(i + 1, j + 1);
      c.at(ic, jc) = (4 * f.at(i, j) + 2 * edges + corners) / 16;
    }
  return c;
}

Level smoothed(const Level& r) {
  Level c(r.n);
  for (int j = 1; j + 1 < r.n; ++j)
    for (int i = 1; i + 1 < r.n; ++i) {
      const double mean = (r.at(i - 1, j) + r.at(i + 1, j) + r.at(i, j - 1) + r.at(i, j + 1)) / 4;
      c.at(i, j) = r.at(i, j) + (mean - r.at(i, j)) / 2;
    }
  return c;
}

// Bilinear: a fine node at even (i, j) takes its coarse node; between coarse nodes, their mean.
double prolonged(const Level& e, int i, int j) {
  const int i0 = i / 2, i1 = (i + 1) / 2, j0 = j / 2, j1 = (j + 1) / 2;
  return (e.at(i0, j0) + e.at(i1, j0) + e.at(i0, j1) + e.at(i1, j1)) / 4;
}

Level plus_prolonged(Level c, const Level& e) {
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.n; ++i) c.at(i, j) += prolonged(e, i, j);
  return c;
}

// The correction of one unknown of one block: w P e_1, from its fine changes d_0.
template <class T>
void correct(const MbMesh& m, T* res, int b, int levels) {
  std::vector<Level> c{Level(m.n)};
  for (int j = 0; j < m.n; ++j)
    for (int i = 0; i < m.n; ++i) {
      const std::size_t n = mb_idx(m.grid, b, i + 1, j + 1);
      c[0].at(i, j) = double(res[n]) / m.vol[n];
    }
  for (int l = 1; l <= levels; ++l) c.push_back(smoothed(restricted(c.back())));
  Level e = c.back();
  for (int l = levels - 1; l >= 1; --l) e = plus_prolonged(c[std::size_t(l)], e);
  for (int j = 0; j < m.n; ++j)
    for (int i = 0; i < m.n; ++i) {
      const std::size_t n = mb_idx(m.grid, b, i + 1, j + 1);
      res[n] = T(double(res[n]) + m.vol[n] * kMbMultigridWeight * prolonged(e, i, j));
    }
}

}  // namespace

int mb_multigrid_levels(int n, int wanted) {
  int levels = 0;
  while (levels < wanted && (n - 1) % 2 == 0 && (n - 1) / 2 + 1 >= kMbMultigridMinNodes) n = (n - 1) / 2 + 1, ++levels;
  return levels;
}

template <class T>
void mb_multigrid(const MbMesh& m, const MbArrays<T>& a, const int* blocks, int nblocks, int wanted) {
  const int levels = mb_multigrid_levels(m.n, wanted);
  if (levels == 0) return;
  for (int q = 0; q < nblocks; ++q)
    if (mb_is_fluid(blocks[q]))
      for (int v = kRes0; v <= kRes5; ++v) correct(m, a.f[v], blocks[q], levels);
}

template void mb_multigrid<float>(const MbMesh&, const MbArrays<float>&, const int*, int, int);
template void mb_multigrid<double>(const MbMesh&, const MbArrays<double>&, const int*, int, int);

}  // namespace nsb
