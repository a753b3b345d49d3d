// Batched tridiagonal systems: the arithmetic every solver of the family shares (the CPU reference and
// every GPU variant), written once beside its equations.
//
// One system of n unknowns, row j:   a_j x_{j-1} + b_j x_j + c_j x_{j+1} = d_j,   j = 0..n-1.
// Non-cyclic: a_0 and c_{n-1} are outside the matrix (the family's fixtures store them as 0, which
// cuSPARSE requires). Cyclic (periodic): a_0 couples x_{n-1} and c_{n-1} couples x_0.
#pragma once

#include <cstddef>

#ifdef __CUDACC__
#define NSB_TRIDIAG_HD __host__ __device__ __forceinline__
#else
#define NSB_TRIDIAG_HD inline
#endif

namespace nsb {

// Where unknown j of system s lives. Systems come in groups of `inner` interleaved ones (x-fastest
// 3D fields give every layout the ADI sweeps need):
//   inner = 1      contiguous: system s is one run of n values (lines along x; gtsv2StridedBatch);
//   inner = batch  interleaved: unknown j of every system is one run (lines along z; gtsvInterleavedBatch);
//   inner = nx     lines along y of an nx x n x nz field (the paper's ADI-Y and TDMA-C).
struct TridiagLayout {
  int n = 0;      // unknowns per system
  int batch = 0;  // systems
  int inner = 1;  // systems interleaved in a group (divides batch)

  NSB_TRIDIAG_HD std::size_t index(int s, int j) const {
    const std::size_t group = std::size_t(s / inner), lane = std::size_t(s % inner);
    return group * std::size_t(inner) * std::size_t(n) + std::size_t(j) * std::size_t(inner) + lane;
  }
  // Distance between unknowns j and j+1 of a system.
  NSB_TRIDIAG_HD std::size_t stride() const { return std::size_t(inner); }
  std::size_t points() const { return std::size_t(n) * std::size_t(batch); }
};

// Thomas algorithm (LU without pivoting; stable for diagonally dominant matrices, which the ADI and
// Poisson systems are). Forward elimination keeps, per row,
//   c'_j = c_j / (b_j - a_j c'_{j-1}),   d'_j = (d_j - a_j d'_{j-1}) / (b_j - a_j c'_{j-1}),
// with c'_{-1} = d'_{-1} = 0; back substitution is x_{n-1} = d'_{n-1}, x_j = d'_j - c'_j x_{j+1}.
template <class T>
struct ThomasRow {
  T cp, dp;  // c'_j, d'_j
};

// 7 flops: the pivot (2), its inverse (1), c' (1), d' (3).
template <class T>
NSB_TRIDIAG_HD ThomasRow<T> thomas_forward(T a, T b, T c, T d, ThomasRow<T> prev) {
  const T inv = T(1) / (b - a * prev.cp);
  return {c * inv, (d - a * prev.dp) * inv};
}

// The d' of thomas_forward where c'_{j-1} is already known (stored by an earlier sweep of the same
// rows): the same operations on the same values, so the same bits; one right-hand side swept against
// factors computed once (tridiag/pdd_formulas.hpp split_local_factored).
template <class T>
NSB_TRIDIAG_HD T thomas_forward_known_cp(T a, T b, T cp_prev, T d, T dp_prev) {
  const T inv = T(1) / (b - a * cp_prev);
  return (d - a * dp_prev) * inv;
}

// 2 flops.
template <class T>
NSB_TRIDIAG_HD T thomas_back(ThomasRow<T> r, T x_next) {
  return r.dp - r.cp * x_next;
}

// Flops per unknown of a Thomas solve, counted in the two formulas above.
inline constexpr double kThomasFlopsPerPoint = 9;

// Parallel cyclic reduction, one step of distance s: row j is combined with rows j-s and j+s so that it
// couples only rows j-2s and j+2s (rows outside 0..n-1 are identity rows: a = c = d = 0, b = 1):
//   alpha = -a_j / b_{j-s},  gamma = -c_j / b_{j+s}
//   a'_j = alpha a_{j-s},  c'_j = gamma c_{j+s},
//   b'_j = b_j + alpha c_{j-s} + gamma a_{j+s},  d'_j = d_j + alpha d_{j-s} + gamma d_{j+s}.
template <class T>
struct TridiagRow {
  T a, b, c, d;
};

// 12 flops.
template <class T>
NSB_TRIDIAG_HD TridiagRow<T> pcr_combine(TridiagRow<T> lo, TridiagRow<T> row, TridiagRow<T> hi) {
  const T alpha = -row.a / lo.b, gamma = -row.c / hi.b;
  return {alpha * lo.a, row.b + alpha * lo.c + gamma * hi.a, gamma * hi.c, row.d + alpha * lo.d + gamma * hi.d};
}
inline constexpr double kPcrFlopsPerRowStep = 12;

// Cyclic systems by Sherman-Morrison (the periodic z sweep of the ADI momentum solve). With
// gamma = -b_0, the matrix A = A' + u v^T where A' is tridiagonal with
//   b'_0 = b_0 - gamma,  b'_{n-1} = b_{n-1} - c_{n-1} a_0 / gamma,
//   u = (gamma, 0, ..., 0, c_{n-1}),  v = (1, 0, ..., 0, a_0 / gamma);
// solve A' y = d and A' z = u, then x = y - z (v.y) / (1 + v.z). Needs n >= 3.
template <class T>
NSB_TRIDIAG_HD T cyclic_gamma(T b0) {
  return -b0;
}
template <class T>
NSB_TRIDIAG_HD T cyclic_b_first(T b0, T gamma) {
  return b0 - gamma;
}
template <class T>
NSB_TRIDIAG_HD T cyclic_b_last(T b_last, T a0, T c_last, T gamma) {
  return b_last - c_last * a0 / gamma;
}
// The Sherman-Morrison factor (v.y) / (1 + v.z).
template <class T>
NSB_TRIDIAG_HD T cyclic_factor(T y_first, T y_last, T z_first, T z_last, T a0, T gamma) {
  const T v_last = a0 / gamma;
  return (y_first + v_last * y_last) / (T(1) + z_first + v_last * z_last);
}
// Flops per unknown: two Thomas solves sharing c' (7 + 3 + 2 + 2) and the correction (2), rounded up
// by the O(1) corner terms counted per system in the model.
inline constexpr double kCyclicFlopsPerPoint = 16;

// Thomas on system s of layout l, in place on x; cp holds c' (at the same indices). What the CPU
// reference runs and the one-thread-per-system GPU variants run, a thread a system.
template <class T>
NSB_TRIDIAG_HD void thomas_system(const TridiagLayout& l, int s, const T* a, const T* b, const T* c, T* x, T* cp) {
  ThomasRow<T> row{T(0), T(0)};
  std::size_t p = l.index(s, 0);
  for (int j = 0; j < l.n; ++j, p += l.stride()) {
    row = thomas_forward(a[p], b[p], c[p], x[p], row);
    cp[p] = row.cp, x[p] = row.dp;
  }
  p = l.index(s, l.n - 1);
  T next = x[p];
  for (int j = l.n - 2; j >= 0; --j) {
    p -= l.stride();
    next = x[p] = thomas_back(ThomasRow<T>{cp[p], x[p]}, next);
  }
}

// A periodic system by Sherman-Morrison: y (in x) and z (in z) share c' (in cp). The caller checks n >= 3.
template <class T>
NSB_TRIDIAG_HD void cyclic_system(const TridiagLayout& l, int s, const T* a, const T* b, const T* c, T* x, T* cp,
                                  T* z) {
  const std::size_t first = l.index(s, 0), last = l.index(s, l.n - 1);
  const T gamma = cyclic_gamma(b[first]);
  ThomasRow<T> y{T(0), T(0)}, zr{T(0), T(0)};
  std::size_t p = first;
  for (int j = 0; j < l.n; ++j, p += l.stride()) {
    const bool is_first = j == 0, is_last = j == l.n - 1;
    const T bj = is_first ? cyclic_b_first(b[p], gamma) : is_last ? cyclic_b_last(b[p], a[first], c[p], gamma) : b[p];
    const T aj = is_first ? T(0) : a[p], cj = is_last ? T(0) : c[p];
    const T uj = is_first ? gamma : is_last ? c[last] : T(0);
    y = thomas_forward(aj, bj, cj, x[p], y);
    zr = thomas_forward(aj, bj, cj, uj, zr);
    cp[p] = y.cp, x[p] = y.dp, z[p] = zr.dp;
  }
  T y_next = x[last], z_next = z[last];
  p = last;
  for (int j = l.n - 2; j >= 0; --j) {
    p -= l.stride();
    y_next = x[p] = thomas_back(ThomasRow<T>{cp[p], x[p]}, y_next);
    z_next = z[p] = thomas_back(ThomasRow<T>{cp[p], z[p]}, z_next);
  }
  const T f = cyclic_factor(x[first], x[last], z[first], z[last], a[first], gamma);
  p = first;
  for (int j = 0; j < l.n; ++j, p += l.stride()) x[p] -= f * z[p];
}

}  // namespace nsb
