// The Poisson operator as a CSR matrix (csr.hpp).
#include "poisson/csr.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "poisson/formulas.hpp"

namespace nsb {

template <class T>
PoissonCsr<T> poisson_csr(const Grid& g, const PoissonFaces& f) {
  if (poisson_csr_entries(g, f) >= std::size_t(1) << 31)
    throw std::invalid_argument("poisson_csr: more than 2^31 entries; 32-bit indices cannot address them");
  const PoissonCoef<T> c = make_poisson_coef<T>(g);
  const int n[3] = {g.nx, g.ny, g.nz};
  const T coef[3] = {c.cx, c.cy, c.cz};
  PoissonCsr<T> a;
  a.rows = int(g.interior_points());
  a.row_start.reserve(std::size_t(a.rows) + 1);
  a.row_start.push_back(0);
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const int at[3] = {i, j, k};
        const auto index = [&](const int (&q)[3]) { return q[0] + g.nx * (q[1] + g.ny * q[2]); };
        std::map<int, T> row;  // column -> value, ascending
        row[index(at)] -= c.diag;
        for (int axis = 0; axis < 3; ++axis)
          for (int side = 0; side < 2; ++side) {
            int q[3] = {i, j, k};
            q[axis] += side == 0 ? -1 : 1;
            const bool ghost = q[axis] < 0 || q[axis] >= n[axis];
            const PoissonFace face = f.face[axis][side];
            if (ghost && face != PoissonFace::periodic) q[axis] = at[axis];  // the cell itself (dirichlet: negated)
            else if (ghost) q[axis] = side == 0 ? n[axis] - 1 : 0;             // periodic: the far side
            row[index(q)] += ghost && face == PoissonFace::dirichlet ? -coef[axis] : coef[axis];
          }
        for (const auto& [col, v] : row) a.column.push_back(col), a.value.push_back(v);
        a.row_start.push_back(int(a.column.size()));
      }
  return a;
}

template <class T>
PoissonCsr<T> poisson_csr_padded(const Grid& g, const PoissonCoef<T>& c) {
  if (g.padded_points() >= std::size_t(1) << 31 || 7 * g.interior_points() >= std::size_t(1) << 31)
    throw std::invalid_argument("poisson_csr_padded: more than 2^31 columns or entries; 32-bit indices cannot address them");
  const std::ptrdiff_t sy = g.sy(), sz = g.sz();
  const std::ptrdiff_t offset[7] = {-sz, -sy, -1, 0, 1, sy, sz};
  const T value[7] = {c.cz, c.cy, c.cx, -c.diag, c.cx, c.cy, c.cz};
  PoissonCsr<T> a;
  a.rows = int(g.interior_points());
  a.row_start.reserve(std::size_t(a.rows) + 1);
  a.column.reserve(7 * std::size_t(a.rows));
  a.value.reserve(7 * std::size_t(a.rows));
  a.row_start.push_back(0);
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        for (int e = 0; e < 7; ++e) a.column.push_back(int(std::ptrdiff_t(g.idx(i, j, k)) + offset[e])), a.value.push_back(value[e]);
        a.row_start.push_back(int(a.column.size()));
      }
  return a;
}

std::size_t poisson_csr_padded_bytes(const Grid& g, int value_bytes) {
  return 7 * g.interior_points() * (std::size_t(value_bytes) + sizeof(int)) + (g.interior_points() + 1) * sizeof(int);
}

std::size_t poisson_csr_entries(const Grid& g, const PoissonFaces& f) {
  const std::size_t rows = g.interior_points();
  const int n[3] = {g.nx, g.ny, g.nz};
  std::size_t entries = rows;  // the diagonal
  for (int axis = 0; axis < 3; ++axis) {
    // Along one line of the axis: 2 (n - 1) neighbour entries, and two wrapped ones where both faces are
    // periodic and the far cell is not already a column (n >= 3).
    const bool wraps = f.face[axis][0] == PoissonFace::periodic && f.face[axis][1] == PoissonFace::periodic && n[axis] >= 3;
    const std::size_t per_line = 2 * std::size_t(n[axis] - 1) + (wraps ? 2 : 0);
    entries += rows / std::size_t(n[axis]) * per_line;
  }
  return entries;
}

std::size_t poisson_csr_bytes(const Grid& g, const PoissonFaces& f, int value_bytes) {
  return poisson_csr_entries(g, f) * (std::size_t(value_bytes) + sizeof(int)) + (g.interior_points() + 1) * sizeof(int);
}

template <class T>
void csr_multiply(const PoissonCsr<T>& a, const T* x, T* y) {
  for (int r = 0; r < a.rows; ++r) {
    T sum = 0;
    for (int e = a.row_start[std::size_t(r)]; e < a.row_start[std::size_t(r) + 1]; ++e)
      sum += a.value[std::size_t(e)] * x[a.column[std::size_t(e)]];
    y[r] = sum;
  }
}

template PoissonCsr<float> poisson_csr<float>(const Grid&, const PoissonFaces&);
template PoissonCsr<double> poisson_csr<double>(const Grid&, const PoissonFaces&);
template PoissonCsr<float> poisson_csr_padded<float>(const Grid&, const PoissonCoef<float>&);
template PoissonCsr<double> poisson_csr_padded<double>(const Grid&, const PoissonCoef<double>&);
template void csr_multiply<float>(const PoissonCsr<float>&, const float*, float*);
template void csr_multiply<double>(const PoissonCsr<double>&, const double*, double*);

}  // namespace nsb
