// The 7-point operator as an explicit CSR matrix over the interior points: Liu's pressure matrix in the
// form cuSPARSE takes, beside the matrix-free operator (formulas.hpp) every method here applies. Row and
// column m = (i-1) + nx ((j-1) + ny (k-1)); the faces' ghost rules (poisson.hpp) folded in:
//   neumann    the ghost equals its cell: the neighbour's coefficient moves to the diagonal
//   dirichlet  the ghost is minus its cell: the diagonal loses the coefficient
//   periodic   the ghost is the cell on the far side: a column there (merged with the other neighbour on
//              an axis two cells long, the diagonal on an axis one cell long)
// Columns of a row ascend; entries of one column are merged. What it costs is what the matrix-free
// operator saves (issue 22: Liu et al. quote ~448 MB at 200^3, 7 entries of 8 bytes a cell).
#pragma once

#include <cstddef>
#include <vector>

#include "grid.hpp"
#include "poisson/formulas.hpp"
#include "poisson/poisson.hpp"

namespace nsb {

template <class T>
struct PoissonCsr {
  int rows = 0;
  std::vector<int> row_start;  // rows + 1 offsets
  std::vector<int> column;     // 32-bit column indices (cuSPARSE's CUSPARSE_INDEX_32I)
  std::vector<T> value;
};

// The matrix of L on grid g with faces f (2^31 entries at most: 32-bit indices).
template <class T>
PoissonCsr<T> poisson_csr(const Grid& g, const PoissonFaces& f);

// Its stored entries, and its bytes (values of `value_bytes`, 32-bit columns and row offsets), counted
// without building it.
std::size_t poisson_csr_entries(const Grid& g, const PoissonFaces& f);
std::size_t poisson_csr_bytes(const Grid& g, const PoissonFaces& f, int value_bytes);

// The operator as the matrix-free stencil reads it: rows the interior points (compact order, as above),
// columns the padded grid's points, ghosts included (7 entries a row, ascending: z-1, y-1, x-1, centre,
// x+1, y+1, z+1), so y = A x on the padded x reads the ghosts as they stand, as poisson_apply does. The
// ghost rule cannot be folded in where the ghosts are not the faces' (a rank's cut face, exchanged; verify's
// random ghosts): this is the matrix poisson/apply_dot/csr_cusparse hands cuSPARSE. Its values are
// 7 x cells words, Liu et al.'s ~448 MB at 200^3 in double.
template <class T>
PoissonCsr<T> poisson_csr_padded(const Grid& g, const PoissonCoef<T>& c);
std::size_t poisson_csr_padded_bytes(const Grid& g, int value_bytes);

// y = A x on compact interior vectors (the CSR operator's reference product).
template <class T>
void csr_multiply(const PoissonCsr<T>& a, const T* x, T* y);

}  // namespace nsb
