// Direct solves of the Poisson family (methods `fft` and `fft2_tridiag`, docs/solvers/poisson_fft.md):
// the discrete 7-point equation of poisson.hpp diagonalised axis by axis.
//
// On one axis of n cells (spacing h, c = 1/h^2) the 1D operator with a face pair's ghost rule,
//   c (x[j-1] - 2 x[j] + x[j+1]),   j = 0..n-1, ghosts from the faces,
// has these eigenvectors (the rows of the axis transform) and eigenvalues, slot s = 0..n-1:
//   periodic pair   exp(-2 pi i s j / n)                        lambda_s = -4c sin^2(pi s / n)
//   neumann pair    cos(pi s (j + 1/2) / n)      (DCT-II)       lambda_s = -4c sin^2(pi s / (2n))
//   dirichlet pair  sin(pi (s+1) (j + 1/2) / n)  (DST-II)       lambda_s = -4c sin^2(pi (s+1) / (2n))
// so the 3D operator is diagonal in the product basis, with eigenvalue lambda_x + lambda_y + lambda_z:
// the transformed right-hand side divided by it and transformed back is the discrete equation's
// solution to round-off. A mixed pair (neumann on one side, dirichlet on the other: a DCT-IV basis)
// is not done and is refused by name, as is a periodic face paired with a non-periodic one.
//
// fft2_tridiag transforms x and z only and solves, for every (x, z) slot, the tridiagonal system in y
//   lower[j] x[j-1] + (diag[j] + lambda_x + lambda_z) x[j] + upper[j] x[j+1] = r[j]
// with the row coefficients kept per row (tridiagonal_row): uniform, or a stretched y (Ha et al.;
// PoissonDirectCall::y_faces) which changes only them. Its y faces must be neumann or dirichlet pairs (a periodic y would need a cyclic
// reduction or Sherman-Morrison step: not done, refused).
//
// Null space (no dirichlet face): slot (0,0,0) has eigenvalue 0 and its coefficient is the sum of the
// right-hand side. Setting the solution's coefficient there to zero is exactly the family's rule: the
// right-hand side's mean is removed (compatibility) and the solution's interior mean is zero. In the
// tridiagonal variant the (0,0) line is singular; its right-hand side's mean over y (weighted by the
// cell heights on a stretched y) is removed, its first row is replaced by x[0] = 0 and the line's mean
// is subtracted afterwards (thomas_line).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "comm.hpp"
#include "grid.hpp"
#include "poisson/poisson.hpp"
#include "stage.hpp"
#include "stage_kind.hpp"
#include "tridiag/split_phases.hpp"

namespace nsb {

// What a variant keeps between calls (plans, spectral buffers, eigenvalue tables), built on its first
// call for the call's grid and faces and rebuilt when they change (`key`). The method or fixture that
// owns the workspace owns it, so plans are built once per solver.
struct DirectSolveState {
  virtual ~DirectSolveState() = default;
  std::string key;
};
struct DirectSolveWorkspace {
  std::unique_ptr<DirectSolveState> state;
};

// The key of a call's set-up: variant, precision, grid (sizes and extents), faces and the y faces.
std::string direct_solve_key(const std::string& variant, int elem_bytes, const Grid& g, const PoissonFaces& f,
                             const double* y_faces, int y_ranks = 1);

// poisson/fft and poisson/fft2_tridiag: p = L^-1 (rhs_scale * rhs) at the interior (null space: see
// above), p's ghost layer set by the faces; rhs is only read. Every point of p is written.
template <class T>
struct PoissonDirectCall {
  using value_type = T;
  Grid grid;
  PoissonFaces faces;
  T* p = nullptr;
  const T* rhs = nullptr;
  T rhs_scale = 1;
  const double* y_faces = nullptr;  // fft2_tridiag: ny + 1 face positions of a stretched y (host); null: uniform
  int y_ranks = 1;                  // fft2_tridiag: the y lines split over this many virtual ranks (LineSplit)
  bool y_exact = true;              // ... their interfaces by PPT (true) or PDD
  bool y_factors_shared = false;    // ... rank by rank, v, w, c' set up once (TdmaLines::shared_factors)
  SolvePhases phases;               // sections the caller times inside the solve
  PoissonYSlab y_slab;              // fft2_tridiag on a real y-slab rank (PoissonEquation::y_slab)
  PoissonZSlab z_slab;              // fft2_tridiag on a real z-slab rank (PoissonEquation::z_slab; host or GPU)
  DirectSolveWorkspace* workspace = nullptr;  // never null: the variant's plans live there
  Tuning tuning;
  Exec exec;
};

enum class AxisTransform : int { fourier = 0, cosine = 1, sine = 2 };

// The transform of one axis from its face pair; `why` names the faces of a pair no transform fits.
AxisTransform axis_transform(const PoissonFaces& f, int axis, std::string* why);
// "" when the method can solve with these faces (and y faces: a stretched y needs fft2_tridiag), else
// the reason naming the faces (fft2_tridiag: tridiagonal_y = true).
std::string direct_solve_refusal(const PoissonFaces& f, bool tridiagonal_y, bool stretched_y = false);

// lambda_s of the axis (see above), in double.
NSB_HD inline double axis_eigenvalue(AxisTransform t, int s, int n, double h) {
  const double pi = 3.14159265358979323846;
  const double c = 1 / (h * h);
  double arg = 0;
  switch (t) {
    case AxisTransform::fourier: arg = pi * s / n; break;
    case AxisTransform::cosine: arg = pi * s / (2.0 * n); break;
    case AxisTransform::sine: arg = pi * (s + 1) / (2.0 * n); break;
  }
  const double sn = sin(arg);
  return -4 * c * sn * sn;
}

// Whether slot s of the axis is its constant mode (eigenvalue exactly zero).
NSB_HD inline bool axis_constant_mode(AxisTransform t, int s) { return s == 0 && t != AxisTransform::sine; }

// The y operator of the tridiagonal variant, one row at a time (face rows folded in by the ghost rule:
// neumann ghost = inner adds +lower to the diagonal, dirichlet ghost = -inner adds -lower). Uniform y
// (yf null): c = 1/h^2 off the diagonal. A stretched y (yf: the n + 1 face positions, Ha et al.'s
// wall-clustered grid) in flux form, cell j of height w_j between faces yf[j] and yf[j+1], centres
// y_j: lower = 1 / (w_j (y_j - y_{j-1})), upper = 1 / (w_j (y_{j+1} - y_j)); a face's ghost centre is
// the mirror of the inner one, so its gap is w_j. This is div(grad) of the staggered grid (a velocity
// gradient at face j over the gap of the centres, its divergence over the cell), which the projection
// needs for a divergence-free result.
// `weight`: the cell's height over h (1 uniform), the weight of the compatibility condition of the
// singular line (sum_j w_j r_j = 0: the flux form telescopes with the cell heights).
struct TridiagonalRow {
  double lower, diag, upper, weight = 1;
};
NSB_HD inline TridiagonalRow tridiagonal_row(int j, int n, double h, PoissonFace lo, PoissonFace hi,
                                             const double* yf = nullptr) {
  double below = 1 / (h * h), above = below;
  if (yf) {
    const auto centre = [&](int m) { return 0.5 * (yf[m] + yf[m + 1]); };
    const double w = yf[j + 1] - yf[j];
    below = 1 / (w * (j > 0 ? centre(j) - centre(j - 1) : w));
    above = 1 / (w * (j < n - 1 ? centre(j + 1) - centre(j) : w));
  }
  TridiagonalRow r{j > 0 ? below : 0, -(below + above), j < n - 1 ? above : 0, yf ? (yf[j + 1] - yf[j]) * n / (yf[n] - yf[0]) : 1};
  if (j == 0) r.diag += lo == PoissonFace::neumann ? below : -below;
  if (j == n - 1) r.diag += hi == PoissonFace::neumann ? above : -above;
  return r;
}

// Faces of a y axis clustered at both walls by tanh (Ha et al. stretch y towards the wall, notes Sec. 1.2,
// function not given): y_j = ly/2 (1 + tanh(s (2j/n - 1)) / tanh(s)), j = 0..n; s = 0 uniform.
std::vector<double> tanh_wall_faces(int n, double ly, double s);

// A complex value for the host reference and the device kernels alike (layout of float2 / double2).
template <class T>
struct alignas(2 * sizeof(T)) Complex {
  T re, im;
};
template <class T>
NSB_HD inline Complex<T> operator+(Complex<T> a, Complex<T> b) { return {a.re + b.re, a.im + b.im}; }
template <class T>
NSB_HD inline Complex<T> operator-(Complex<T> a, Complex<T> b) { return {a.re - b.re, a.im - b.im}; }
template <class T>
NSB_HD inline Complex<T> operator*(T s, Complex<T> a) { return {s * a.re, s * a.im}; }

// A y line split over virtual y-ranks (Ha et al.'s y-slabs, emulated on one device: fracstep V2):
// ranks = 1 is the plain Thomas solve; else each rank's block solved locally and the interfaces by PPT
// (exact, the paper's TDMA-C) or PDD (the paper's "inaccurate" choice for the Poisson rows), as
// tridiag/pdd_formulas.hpp split_line_solve. v, w: two more scratch values a point (beside upper_scaled).
template <class T>
struct LineSplit {
  int ranks = 1;
  bool exact = true;
  T* v = nullptr;
  T* w = nullptr;
};

// The rows of one (kx, kz) line: the y operator's, shifted by the line's eigenvalue on the diagonal;
// the null-space line's first row is the identity (x[0] = 0 fixes the level).
template <class Rows>
struct ShiftedRows {
  Rows row;
  double shift;
  bool singular;
  NSB_HD TridiagonalRow operator()(int j) const {
    TridiagonalRow r = row(j);
    r.diag += shift;
    if (singular && j == 0) r.lower = 0, r.diag = 1, r.upper = 0;
    return r;
  }
};

// The null-space line (neumann pair, shift 0) before its solve: the weighted mean (uniform y: the plain
// mean) that makes r compatible subtracted, x[0] = 0 (its row is the identity); after: the level
// removed (the solution of zero mean).
template <class T, class Rows>
NSB_HD inline void singular_line_before(Complex<T>* x, std::ptrdiff_t stride, int n, const Rows& row) {
  Complex<T> mean{0, 0};
  T weights = 0;
  for (int j = 0; j < n; ++j) {
    const T w = T(row(j).weight);
    mean = mean + w * x[j * stride], weights += w;
  }
  mean = (T(1) / weights) * mean;
  for (int j = 0; j < n; ++j) x[j * stride] = x[j * stride] - mean;
  x[0] = {0, 0};
}
template <class T>
NSB_HD inline void singular_line_after(Complex<T>* x, std::ptrdiff_t stride, int n) {
  Complex<T> level{0, 0};
  for (int j = 0; j < n; ++j) level = level + x[j * stride];
  level = (T(1) / T(n)) * level;
  for (int j = 0; j < n; ++j) x[j * stride] = x[j * stride] - level;
}

// The null-space line (kx, kz) = (0, 0) of a real y-slab rank (PoissonYSlab), before (`before`) or after
// its split solve, on the host: `here` holds the rank's rows of the line and gets its rows of the result.
// Every rank's rows are gathered (each sends the largest block's count, its own rows first; blocks cut as
// pdd_block_start cuts the n rows over p ranks), singular_line_before / _after run on the whole line as
// the emulation runs them (the same sums in the same order: bit for bit), and the rank keeps its rows.
// The CPU path (reference_cpu/poisson/fft_cpu.cpp) and the GPU path (spectral_lines.cuh, which reads the
// rows back and writes them again) both call it.
template <class T, class Rows>
void null_space_line_over_ranks(Communicator& comm, int p, int n, int first_row, std::vector<Complex<T>>& here,
                                const Rows& rows, bool before) {
  int most = 0;
  for (int r = 0; r < p; ++r) most = std::max(most, pdd_block_start(n, p, r + 1) - pdd_block_start(n, p, r));
  const std::size_t mine = here.size(), value = sizeof(Complex<T>);
  here.resize(std::size_t(most), Complex<T>{T(0), T(0)});
  const std::vector<std::vector<char>> all = comm.allgather(here.data(), here.size() * value);
  std::vector<Complex<T>> line(static_cast<std::size_t>(n));
  for (int r = 0; r < p; ++r) {
    const int j0 = pdd_block_start(n, p, r), m = pdd_block_start(n, p, r + 1) - j0;
    std::memcpy(line.data() + j0, all[std::size_t(r)].data(), std::size_t(m) * value);
  }
  if (before) singular_line_before(line.data(), 1, n, rows);
  else singular_line_after(line.data(), 1, n);
  here.assign(line.begin() + first_row, line.begin() + first_row + std::ptrdiff_t(mine));
}

// Thomas algorithm on one line of complex unknowns (real coefficients): x[j * stride], j = 0..n-1,
// holds the right-hand side in and the solution out; rows from `row(j)` (a TridiagonalRow), shifted by
// `shift` on the diagonal; `upper_scaled` is scratch of n values at the same stride. `singular`: the
// line of the null space (above). `split`: the line cut over virtual y-ranks (LineSplit); the real and
// imaginary parts are then solved one after the other.
template <class T, class Rows>
NSB_HD inline void thomas_line(Complex<T>* x, std::ptrdiff_t stride, int n, const Rows& row, T shift,
                               T* upper_scaled, bool singular, const LineSplit<T>& split = {}) {
  if (singular) singular_line_before(x, stride, n, row);
  const ShiftedRows<Rows> shifted{row, double(shift), singular};
  if (split.ranks > 1) {
    T* parts = &x[0].re;  // re and im, each a line at stride 2 stride
    for (int part = 0; part < 2; ++part)
      split_line_solve(shifted, n, split.ranks, split.exact, parts + part, 2 * stride, split.v, split.w, upper_scaled, stride);
  } else {
    // Forward elimination: upper_scaled[j] = u_j / m_j, x[j] = (r_j - l_j x[j-1]) / m_j.
    Complex<T> prev{0, 0};
    T prev_upper = 0;
    for (int j = 0; j < n; ++j) {
      const TridiagonalRow r = shifted(j);
      const T lower = T(r.lower), diag = T(r.diag), upper = T(r.upper);
      const T m = diag - lower * prev_upper;
      prev_upper = upper / m;
      prev = (T(1) / m) * (x[j * stride] - lower * prev);
      upper_scaled[j * stride] = prev_upper;
      x[j * stride] = prev;
    }
    // Back substitution.
    for (int j = n - 2; j >= 0; --j) x[j * stride] = x[j * stride] - upper_scaled[j * stride] * x[(j + 1) * stride];
  }
  if (singular) singular_line_after(x, stride, n);
}

// The (kx, kz) lines of the compact spectral array W (nx x ny x nz, x fastest) as the phased split
// solve sees them (tridiag/split_phases.hpp, fracstep V2's TDMA-C rank by rank): a line is the real or
// the imaginary part of one (i, k) line, each with its own v, w, c' (scratch: 6 values a point,
// [part][v, w, cp][point]), rows from `row` shifted by shift(i, k) (a LineShift). On a real
// y-slab rank (split_solve_rank) W holds the rank's ny rows of lines of n rows, from row first_row: the
// rows are read by the whole line's index; the null-space line's whole-line steps are then the caller's.
// shared_factors: the two parts of a line share one v, w, c' (scratch: 3 values a point, [v, w, cp][point]),
// which depend on the line's matrix only: set up once (tdma_factor_setup, on the real parts) and kept
// between solves; the local phase then sweeps x alone (split_local_factored).
// The two parts of a line are neighbours, l = 2 (i + nx k) + part: a warp's threads (neighbouring l) then
// read and write runs of consecutive words of W (re, im, re, im, ..). Part-major (all real parts, then all
// imaginary ones), neighbours were two words apart and each pass over W moved every word twice: the
// phases' local and correct passes on a V2 rank took as long on half the rows as V0's whole Thomas
// solve (results/e2_two_gpus/nvidia-h100-80gb-hbm3-x2/, fracstep.md "E(2)").
struct LineShift {
  double shift;
  bool singular;
};
template <class T, class Rows, class ShiftOf>
struct TdmaLines {
  Complex<T>* W;
  T* scratch;
  int nx, ny, nz, p;
  Rows row;
  ShiftOf shift_of;
  int n = 0;          // the lines' rows (0: ny, the emulation)
  int first_row = 0;  // this rank's first row of them
  bool shared_factors = false;
  NSB_HD std::size_t count() const { return 2 * std::size_t(nx) * std::size_t(nz); }
  NSB_HD int ranks() const { return p; }
  bool whole_line_steps() const { return true; }
  bool factors_shared() const { return shared_factors; }
  NSB_HD std::size_t first(std::size_t l) const {
    const std::size_t li = l / 2;
    return li % std::size_t(nx) + std::size_t(nx) * ny * (li / std::size_t(nx));
  }
  NSB_HD LineShift shift(std::size_t l) const {
    const std::size_t li = l / 2;
    return shift_of(int(li % std::size_t(nx)), int(li / std::size_t(nx)));
  }
  NSB_HD void before(std::size_t l) const {  // the null-space line, once for both parts
    if (l % 2 == 0 && shift(l).singular) singular_line_before(W + first(l), nx, ny, row);
  }
  NSB_HD void after(std::size_t l) const {
    if (l % 2 == 0 && shift(l).singular) singular_line_after(W + first(l), nx, ny);
  }
  NSB_HD SplitLine<T, ShiftedRows<Rows>> line(std::size_t l) const {
    const std::size_t f = first(l), part = l % 2, points = std::size_t(nx) * ny * nz;
    const LineShift s = shift(l);
    T* sc = scratch + (shared_factors ? 0 : 3 * part * points) + f;
    return {ShiftedRows<Rows>{row, s.shift, s.singular}, n > 0 ? n : ny, &W[f].re + part, 2 * std::ptrdiff_t(nx),
            sc, sc + points, sc + 2 * points, std::ptrdiff_t(nx), first_row, 0};
  }
};
// Where the two parts share their factors: the real parts' lines (l = 2 q), whose set-up writes them.
template <class Lines>
struct RealPartLines {
  Lines lines;
  NSB_HD std::size_t count() const { return lines.count() / 2; }
  NSB_HD int ranks() const { return lines.ranks(); }
  NSB_HD auto line(std::size_t q) const { return lines.line(2 * q); }
};
// The shared factors of ranks [r0, r1)'s blocks of every line (split_factor_setup on the real parts).
template <class T, class Lines, class Launch>
void tdma_factor_setup(const Lines& lines, const Launch& launch, int r0, int r1) {
  const RealPartLines<Lines> real_parts{lines};
  split_factor_setup<T>(real_parts, real_parts.count(), launch, r0, r1);
}
inline constexpr int kTdmaPhasedScratchPerPoint = 6;
inline constexpr int kTdmaSharedFactorsPerPoint = 3;  // shared_factors: v, w, c' of both parts

// Work models. Minimal bytes: rhs read and p written once (2 words a point). Flops: the usual count of
// 5 n log2 n a complex FFT of length n (forward and inverse on every transformed axis), 6 a point for
// the pre/post-processing passes of each cosine/sine axis, 2 a point for the division by the
// eigenvalue, 14 a point for a complex Thomas solve (elimination 9, back substitution 4, 1 division).
WorkModel fft_solve_model(const Grid& g, const PoissonFaces& f, int elem_bytes, bool tridiagonal_y);

// The passes of the GPU variants and the words of T a point each moves through DRAM (its byte model,
// docs/solvers/poisson_fft.md): the "fine-grid Jacobi-sweep equivalents" estimate is their sum over a
// sweep's 3 words a point, beside the measured ratio. separate: cufft, cufft_thomas; fused: the
// *_fused variants; real: cufft_r2c (fft only).
enum class DirectPasses { separate, fused, real };
struct DirectSolvePass {
  std::string name;
  double words;  // a point of the grid
};
std::vector<DirectSolvePass> fft_solve_passes(const Grid& g, const PoissonFaces& f, bool tridiagonal_y, DirectPasses p);
double fft_solve_traffic_bytes(const Grid& g, const PoissonFaces& f, int elem_bytes, bool tridiagonal_y, DirectPasses p);

}  // namespace nsb
