// What the cuFFT direct solves share (poisson/fft/cufft, poisson/fft2_tridiag/cufft_thomas): the
// spectral state a solver keeps (plans, buffers, eigenvalues: SpectralLines, built on the first call
// for a grid and faces) and the passes of a solve, each one kernel over the compact interior array W
// (complex, x fastest, nx*ny*nz):
//   pack        W = rhs_scale * rhs (imaginary part 0)
//   forward(a)  every line of axis a to its transform (fft_solve.hpp): a gather into axis-contiguous
//               lines E (Makhoul's reordering for cosine and sine axes, the sine axis's sign flip),
//               a batched complex FFT of length n on E (cuFFT), a scatter back with Makhoul's twiddle
//   divide      W /= (lambda_x + lambda_y + lambda_z), the constant mode set to 0 (null space)
//   thomas      one thread a (kx, kz) line of W in y (consecutive threads: consecutive x: coalesced);
//               on a real y-slab rank (fracstep V2 on GPU ranks, PoissonYSlab) the rank's blocks of the
//               lines by split_solve_rank, the messages the caller's (fracstep: peer copies or NCCL) or
//               peer copies of its own, the null-space line's whole-line steps on its rows gathered
//               through the host (a few KB)
//   inverse(a)  the inverse of forward(a) times n (cuFFT's inverse is unnormalised)
//   unpack      p = Re(W) / (product of the transformed lengths); then p's ghosts by the faces
// On a real z-slab rank (fracstep V1 on GPU ranks, PoissonZSlab) the tridiagonal solve is split at its
// transposes by spectral_z_slab.cuh, with these passes.
// The fused variants fold pack into the first gather, divide into the last forward scatter and unpack
// into the last inverse scatter (PassEnds): 12 (fft) or 8 (fft2_tridiag) words a point fewer; and they
// transform a periodic x in place in W (its lines are contiguous there): 8 words fewer again.
//
// Makhoul (1980) on complex data: the transforms are real-linear, so his real-input formulas become
//   cosine forward  v[m] = x[src(m)], src(m) = 2m (2m < n) or 2n - 2m - 1;  V = FFT(v);
//                   X[k] = (e^{-i pi k/2n} V[k] + e^{i pi k/2n} V[(n - k) mod n]) / 2
//   cosine inverse  V[k] = e^{i pi k/2n} (X[k] - i X[n - k]), X[n] = 0;  v = IFFT(V);  n x[src(m)] = v[m]
//   sine (slot s = mode s+1): the cosine transform of (-1)^j x[j], read at k = n - 1 - s.
// (checked against the O(n^2) sums of reference_cpu/poisson/fft_cpu.cpp by verify and the tests).
#pragma once

#include <cuda_runtime.h>
#include <cufft.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/check.cuh"
#include "device.hpp"
#include "poisson/fft_real.hpp"
#include "poisson/fft_solve.hpp"
#include "poisson/formulas.hpp"
#include "registry.hpp"
#include "tridiag/split_peer.cuh"
#include "tridiag/split_phases.cuh"

namespace nsb {

template <class T>
struct CufftOf;
template <>
struct CufftOf<float> {
  using complex_type = cufftComplex;
  static constexpr cufftType type = CUFFT_C2C;
  static cufftResult exec(cufftHandle p, Complex<float>* d, int dir) {
    auto* c = reinterpret_cast<cufftComplex*>(d);
    return cufftExecC2C(p, c, c, dir);
  }
};
template <>
struct CufftOf<double> {
  using complex_type = cufftDoubleComplex;
  static constexpr cufftType type = CUFFT_Z2Z;
  static cufftResult exec(cufftHandle p, Complex<double>* d, int dir) {
    auto* c = reinterpret_cast<cufftDoubleComplex*>(d);
    return cufftExecZ2Z(p, c, c, dir);
  }
};

inline void cufft_check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw std::runtime_error(std::string("cuFFT error in ") + what + ": cufftResult " + std::to_string(int(r)));
}

// Where a compact point lies: its coordinates. 32-bit division (a 64-bit one costs several times more
// instructions, in kernels that are otherwise a load and a store): SpectralLines refuses grids of
// 2^32 points or more.
struct CompactPoint {
  int c[3];
};
__device__ inline CompactPoint compact_point(std::size_t w, int nx, int ny) {
  const unsigned v = unsigned(w), r = v / unsigned(nx);
  CompactPoint p;
  p.c[0] = int(v - r * unsigned(nx));
  p.c[1] = int(r % unsigned(ny));
  p.c[2] = int(r / unsigned(ny));
  return p;
}
struct AxisGeometry {
  int len[3];
  int axis;
  AxisTransform t;
  std::size_t points;
  __device__ int n() const { return len[axis]; }
  // The start of the point's line in E (lines numbered by the two other coordinates, lower axis first).
  __device__ std::size_t line_start(const CompactPoint& p) const {
    const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
    return (std::size_t(p.c[a1]) + std::size_t(len[a1]) * p.c[a2]) * std::size_t(n());
  }
  __device__ std::ptrdiff_t stride() const {
    return axis == 0 ? 1 : axis == 1 ? std::ptrdiff_t(len[0]) : std::ptrdiff_t(len[0]) * len[1];
  }
};

// a e^{i pi k / 2n} (k may be negative): Makhoul's twiddle, in the precision of T (sincospi: no range
// reduction; float's is as accurate as the float FFT around it).
template <class T>
__device__ inline Complex<T> twiddle(Complex<T> a, int k, int n) {
  T s, c;
  if constexpr (sizeof(T) == sizeof(float)) sincospif(float(k) / float(2 * n), &s, &c);
  else sincospi(double(k) / double(2 * n), &s, &c);
  return {a.re * c - a.im * s, a.re * s + a.im * c};
}
template <class T>
__device__ inline Complex<T> flip_if_odd(Complex<T> v, bool sine, int q) {
  return sine && (q & 1) ? Complex<T>{-v.re, -v.im} : v;
}

#define NSB_POINTS_LOOP(w, points) \
  for (std::size_t w = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; w < (points); w += std::size_t(gridDim.x) * blockDim.x)

// The division by the eigenvalue (the constant mode of a singular set to 0), at a compact point.
// values: the three axes' eigenvalues, nx then ny then nz of them.
template <class T>
struct Spectrum {
  const T* values;
  AxisTransform t[3];
  int nx, ny;
  __device__ Complex<T> divide(Complex<T> v, const CompactPoint& p) const {
    if (axis_constant_mode(t[0], p.c[0]) && axis_constant_mode(t[1], p.c[1]) && axis_constant_mode(t[2], p.c[2]))
      return {T(0), T(0)};
    const T lambda = values[p.c[0]] + values[nx + p.c[1]] + values[nx + ny + p.c[2]];
    return (T(1) / lambda) * v;
  }
};

// Where a pass may be fused with its neighbour (the cufft_fused variants): the first forward gather
// reads the right-hand side itself (no pack pass), the last forward scatter divides by the eigenvalue
// (no divide pass), the last inverse scatter writes p itself (no unpack pass). Null pointers: not fused.
template <class T>
struct PassEnds {
  Grid g;                  // the padded layout of rhs and p
  const T* rhs = nullptr;  // gather from scale * rhs instead of W
  T* p = nullptr;          // scatter scale * Re to p instead of W
  T scale = 1;
  const T* eig = nullptr;  // scatter W / lambda (Spectrum of these values)
  AxisTransform t[3] = {};
};

template <class T>
__global__ void pack_kernel(Complex<T>* W, const T* rhs, T scale, Grid g) {
  NSB_POINTS_LOOP(w, g.interior_points()) {
    const CompactPoint p = compact_point(w, g.nx, g.ny);
    W[w] = {scale * rhs[g.idx(p.c[0] + 1, p.c[1] + 1, p.c[2] + 1)], T(0)};
  }
}

template <class T>
__global__ void forward_gather_kernel(Complex<T>* E, const Complex<T>* W, AxisGeometry a, PassEnds<T> ends) {
  NSB_POINTS_LOOP(w, a.points) {
    const CompactPoint p = compact_point(w, a.len[0], a.len[1]);
    const int q = p.c[a.axis], n = a.n();
    const int m = a.t == AxisTransform::fourier ? q : makhoul_position(q, n);
    const Complex<T> v = ends.rhs ? Complex<T>{ends.scale * ends.rhs[ends.g.idx(p.c[0] + 1, p.c[1] + 1, p.c[2] + 1)], T(0)}
                                  : W[w];
    E[a.line_start(p) + m] = flip_if_odd(v, a.t == AxisTransform::sine, q);
  }
}

template <class T>
__global__ void forward_scatter_kernel(Complex<T>* W, const Complex<T>* E, AxisGeometry a, PassEnds<T> ends) {
  NSB_POINTS_LOOP(w, a.points) {
    const CompactPoint p = compact_point(w, a.len[0], a.len[1]);
    const int s = p.c[a.axis], n = a.n();
    const Complex<T>* line = E + a.line_start(p);
    Complex<T> v = line[s];
    if (a.t != AxisTransform::fourier) {
      const int k = a.t == AxisTransform::cosine ? s : n - 1 - s;
      v = T(0.5) * (twiddle(line[k], -k, n) + twiddle(line[(n - k) % n], k, n));
    }
    if (ends.eig) v = Spectrum<T>{ends.eig, {ends.t[0], ends.t[1], ends.t[2]}, ends.g.nx, ends.g.ny}.divide(v, p);
    W[w] = v;
  }
}

template <class T>
__global__ void inverse_gather_kernel(Complex<T>* E, const Complex<T>* W, AxisGeometry a) {
  NSB_POINTS_LOOP(w, a.points) {
    const CompactPoint p = compact_point(w, a.len[0], a.len[1]);
    const int k = p.c[a.axis], n = a.n();
    Complex<T> v = W[w];
    if (a.t != AxisTransform::fourier) {
      // X[k] and X[n - k] of the cosine transform, from their slots (the sine axis stores k at n - 1 - k).
      const auto slot = [&](int kk) { return a.t == AxisTransform::cosine ? kk : n - 1 - kk; };
      const Complex<T>* first = W + (std::ptrdiff_t(w) - std::ptrdiff_t(k) * a.stride());
      const Complex<T> xk = first[slot(k) * a.stride()];
      const Complex<T> xnk = k == 0 ? Complex<T>{0, 0} : first[slot(n - k) * a.stride()];
      v = twiddle(Complex<T>{xk.re + xnk.im, xk.im - xnk.re}, k, n);  // X[k] - i X[n-k]
    }
    E[a.line_start(p) + k] = v;
  }
}

template <class T>
__global__ void inverse_scatter_kernel(Complex<T>* W, const Complex<T>* E, AxisGeometry a, PassEnds<T> ends) {
  NSB_POINTS_LOOP(w, a.points) {
    const CompactPoint p = compact_point(w, a.len[0], a.len[1]);
    const int q = p.c[a.axis], n = a.n();
    const int m = a.t == AxisTransform::fourier ? q : makhoul_position(q, n);
    const Complex<T> v = flip_if_odd(E[a.line_start(p) + m], a.t == AxisTransform::sine, q);
    if (ends.p) ends.p[ends.g.idx(p.c[0] + 1, p.c[1] + 1, p.c[2] + 1)] = ends.scale * v.re;
    else W[w] = v;
  }
}

template <class T>
__global__ void divide_kernel(Complex<T>* W, Spectrum<T> spectrum, Grid g) {
  NSB_POINTS_LOOP(w, g.interior_points()) W[w] = spectrum.divide(W[w], compact_point(w, g.nx, g.ny));
}

// The y rows of the tridiagonal variant, from device arrays (lower, diag, upper: ny values each).
template <class T>
struct RowsFromArrays {
  const T* rows;
  int n;
  __host__ __device__ TridiagonalRow operator()(int j) const {
    return {double(rows[j]), double(rows[n + j]), double(rows[2 * n + j]), double(rows[3 * n + j])};
  }
};

// The shift and null-space flag of line (i, k), from the eigenvalues (nx of x, ny of y, then z's: the
// whole axes'). x0: the kx of the lines' column 0 (a V1 rank's x-slab holds the kx x0 ..; else 0).
template <class T>
struct EigShift {
  const T* eig;
  int nx, ny;
  AxisTransform tx, tz;
  bool neumann_y;
  int x0 = 0;
  __host__ __device__ LineShift operator()(int i, int k) const {
    const T shift = eig[x0 + i] + eig[nx + ny + k];
    return {double(shift), neumann_y && axis_constant_mode(tx, x0 + i) && axis_constant_mode(tz, k)};
  }
};

// One thread a (kx, kz) line of W (lines_x x ny x lines_z, x fastest), its y system solved whole (Thomas), or
// split over virtual y-ranks (y_ranks > 1: v and w in scratch after Thomas's c').
template <class T>
__global__ void thomas_kernel(Complex<T>* W, T* scratch, EigShift<T> eig, const T* rows, int lines_x, int ny, int lines_z,
                              int y_ranks, bool y_exact) {
  const std::size_t lines = std::size_t(lines_x) * lines_z;
  NSB_POINTS_LOOP(line, lines) {
    const int i = int(line % lines_x), k = int(line / lines_x);
    const std::size_t first = i + std::size_t(lines_x) * ny * k;
    const LineShift shift = eig(i, k);
    const std::size_t points = std::size_t(lines_x) * ny * lines_z;  // split: v and w after Thomas's c'
    const LineSplit<T> split{y_ranks, y_exact, scratch + points + first, scratch + 2 * points + first};
    thomas_line(W + first, lines_x, ny, RowsFromArrays<T>{rows, ny}, T(shift.shift), scratch + first, shift.singular, split);
  }
}

template <class T>
__global__ void unpack_kernel(T* p, const Complex<T>* W, T scale, Grid g) {
  NSB_POINTS_LOOP(w, g.interior_points()) {
    const CompactPoint c = compact_point(w, g.nx, g.ny);
    p[g.idx(c.c[0] + 1, c.c[1] + 1, c.c[2] + 1)] = scale * W[w].re;
  }
}

// The ghost rule of one axis over its whole padded face (x, then y, then z: apply_faces_host's order).
template <class T>
__global__ void ghost_axis_kernel(T* p, Grid g, int axis, PoissonFace lo, PoissonFace hi) {
  const int n1 = axis == 0 ? g.NY() : g.NX(), n2 = axis == 2 ? g.NY() : g.NZ();
  NSB_POINTS_LOOP(f, std::size_t(n1) * n2) {
    const int u = int(f % n1), v = int(f / n1);
    if (axis == 0) poisson_ghost_pair(p, g.idx(0, u, v), 1, g.nx, lo, hi);
    else if (axis == 1) poisson_ghost_pair(p, g.idx(u, 0, v), g.sy(), g.ny, lo, hi);
    else poisson_ghost_pair(p, g.idx(u, v, 0), g.sz(), g.nz, lo, hi);
  }
}

// compact_point's 32-bit index: grids of 2^32 points or more are refused.
inline void refuse_past_point_index(const Grid& g) {
  if (g.interior_points() >= (std::size_t(1) << 32))
    throw std::invalid_argument("poisson fft: a grid of 2^32 points or more (" + std::to_string(g.interior_points()) +
                                ") is past the variants' 32-bit point index");
}

inline unsigned spectral_blocks(std::size_t work, int block) {
  const std::size_t b = (work + block - 1) / block;
  return unsigned(b < 65535u * 32u ? b : 65535u * 32u);  // grid-stride loops cover the rest
}

// p's ghost layer by the faces, axis by axis over whole padded faces.
template <class T>
void launch_ghost_axes(T* p, const Grid& g, const PoissonFaces& faces, cudaStream_t stream, int block) {
  for (int a = 0; a < 3; ++a) {
    const std::size_t face = a == 0 ? std::size_t(g.NY()) * g.NZ() : a == 1 ? std::size_t(g.NX()) * g.NZ()
                                                                           : std::size_t(g.NX()) * g.NY();
    ghost_axis_kernel<<<spectral_blocks(face, block), block, 0, stream>>>(p, g, a, faces.face[a][0], faces.face[a][1]);
    NSB_LAUNCHED("ghost_axis_kernel");
  }
}

// The three axes' eigenvalues, len[a] of axis a, x then y then z (as Spectrum and EigShift read them).
template <class T>
std::vector<T> axis_eigenvalues(const AxisTransform t[3], const int len[3], const double h[3]) {
  std::vector<T> eig;
  for (int a = 0; a < 3; ++a)
    for (int s = 0; s < len[a]; ++s) eig.push_back(T(axis_eigenvalue(t[a], s, len[a], h[a])));
  return eig;
}
// The y rows of the tridiagonal variant, n of each of lower, diag, upper, weight (as RowsFromArrays reads them).
template <class T>
std::vector<T> tridiagonal_row_table(int n, double h, const PoissonFaces& faces, const double* y_faces) {
  std::vector<T> rows(4 * std::size_t(n), T(0));
  for (int j = 0; j < n; ++j) {
    const TridiagonalRow r = tridiagonal_row(j, n, h, faces.face[1][0], faces.face[1][1], y_faces);
    rows[j] = T(r.lower), rows[n + j] = T(r.diag), rows[2 * n + j] = T(r.upper), rows[3 * n + j] = T(r.weight);
  }
  return rows;
}
// A batched cuFFT plan of the complex lines of length n in `points` values (one line after another).
template <class T>
cufftHandle line_plan(int n, std::size_t points) {
  cufftHandle plan = 0;
  cufft_check(cufftPlanMany(&plan, 1, &n, &n, 1, n, &n, 1, n, CufftOf<T>::type, int(points / std::size_t(n))), "cufftPlanMany");
  return plan;
}
// One axis's transform of W (geometry geo: its lengths, axis and transform) through the line array E: the
// gather into axis-contiguous lines, the batched cuFFT `plan` (line_plan of the axis), the scatter back.
template <class T>
void transform_through_lines(Complex<T>* w, Complex<T>* e, const AxisGeometry& geo, cufftHandle plan, int direction,
                             cudaStream_t stream, int block, const PassEnds<T>& ends) {
  const unsigned grid = spectral_blocks(geo.points, block);
  if (direction == CUFFT_FORWARD) forward_gather_kernel<<<grid, block, 0, stream>>>(e, w, geo, ends);
  else inverse_gather_kernel<<<grid, block, 0, stream>>>(e, w, geo);
  NSB_LAUNCHED("gather_kernel");
  cufft_check(cufftSetStream(plan, stream), "cufftSetStream");
  cufft_check(CufftOf<T>::exec(plan, e, direction), "cufftExec");
  if (direction == CUFFT_FORWARD) forward_scatter_kernel<<<grid, block, 0, stream>>>(w, e, geo, ends);
  else inverse_scatter_kernel<<<grid, block, 0, stream>>>(w, e, geo, ends);
  NSB_LAUNCHED("scatter_kernel");
}

// A solver's spectral state for one grid and face set (see the top of this file).
template <class T>
class SpectralLines final : public DirectSolveState {
 public:
  SpectralLines(const PoissonDirectCall<T>& c, bool tridiagonal)
      : g_(c.grid), faces_(c.faces), slab_(c.y_slab), y_rows_(c.y_slab.comm ? c.y_slab.rows : c.grid.ny),
        y_step_(c.y_slab.comm ? c.y_slab.h : c.grid.dy()), tridiagonal_(tridiagonal) {
    if (c.y_faces) y_faces_.assign(c.y_faces, c.y_faces + y_rows_ + 1);
    y_ranks_ = c.y_ranks;
    factors_shared_ = c.y_factors_shared && c.y_ranks > 1 && (c.y_slab.comm || c.phases.rank_phases >= 0);
    try {
      build();
    } catch (...) {  // a plan or an allocation refused (a grid too large): nothing left behind
      release();
      throw;
    }
  }
  ~SpectralLines() override { release(); }
  SpectralLines(const SpectralLines&) = delete;
  SpectralLines& operator=(const SpectralLines&) = delete;

  // The whole solve of the call, on its stream (the passes at the top of this file). fused: the pack,
  // divide and unpack passes folded into the first gather, last forward scatter and last inverse
  // scatter (PassEnds), where there is an axis to fold them into.
  void solve(const PoissonDirectCall<T>& c, bool fused) {
    const cudaStream_t stream = static_cast<cudaStream_t>(c.exec.stream);
    const int block = c.tuning.bx > 0 ? c.tuning.bx : 256;
    const std::size_t points = g_.interior_points();
    const int len[3] = {g_.nx, g_.ny, g_.nz};
    int first = -1, last = -1;  // the first and last transformed axes, in forward order
    double scale = 1;           // 1 / the product of the transformed lengths (the inverses are unnormalised)
    for (int a = 0; a < 3; ++a)
      if (transformed(a)) last = a, first = first < 0 ? a : first, scale /= len[a];
    fused = fused && first >= 0;
    const Spectrum<T> spectrum{eig_, {t_[0], t_[1], t_[2]}, g_.nx, g_.ny};

    c.phases.begin(c.phases.transforms);
    if (!fused) {
      pack_kernel<<<blocks(points, block), block, 0, stream>>>(w_, c.rhs, c.rhs_scale, g_);
      NSB_LAUNCHED("pack_kernel");
    }
    for (int a = first; a >= 0 && a <= last; ++a) {
      if (!transformed(a)) continue;
      PassEnds<T> ends{g_};
      if (fused && a == first) ends.rhs = c.rhs, ends.scale = c.rhs_scale;
      if (fused && a == last && !tridiagonal_) ends.eig = eig_, ends.t[0] = t_[0], ends.t[1] = t_[1], ends.t[2] = t_[2];
      transform(a, CUFFT_FORWARD, stream, block, ends, fused && a == 0 && t_[0] == AxisTransform::fourier);
    }
    c.phases.end(c.phases.transforms);
    c.phases.begin(c.phases.tridiagonal);
    if (tridiagonal_ && slab_.comm) {
      y_lines_on_rank(c, stream);
    } else if (tridiagonal_ && y_ranks_ > 1 && c.phases.rank_phases >= 0) {  // fracstep V2's TDMA-C, rank by rank
      const TdmaLines<T, RowsFromArrays<T>, EigShift<T>> lines{
          w_, scratch_, g_.nx, g_.ny, g_.nz, y_ranks_, RowsFromArrays<T>{rows_, g_.ny},
          EigShift<T>{eig_, g_.nx, g_.ny, t_[0], t_[2], faces_.face[1][0] == PoissonFace::neumann}, 0, 0, factors_shared_};
      if (factors_shared_ && !factors_ready_)  // once: every virtual rank's blocks (in the first solve's tdma_c)
        tdma_factor_setup<T>(lines, DeviceSplitLaunch{stream}, 0, y_ranks_), factors_ready_ = true;
      split_solve_phased(lines, split_buffers(scratch_ + line_scratch_per_point() * points, lines.count(), y_ranks_, c.y_exact),
                         c.y_exact, DeviceSplitLaunch{stream}, RankPhaseSections{c.phases.timer, c.phases.rank_phases});
    } else if (tridiagonal_) {
      const std::size_t lines = std::size_t(g_.nx) * g_.nz;
      const EigShift<T> eig{eig_, g_.nx, g_.ny, t_[0], t_[2], faces_.face[1][0] == PoissonFace::neumann};
      thomas_kernel<<<blocks(lines, 128), 128, 0, stream>>>(w_, scratch_, eig, rows_, g_.nx, g_.ny, g_.nz, y_ranks_, c.y_exact);
      NSB_LAUNCHED("thomas_kernel");
    } else if (!fused) {
      divide_kernel<<<blocks(points, block), block, 0, stream>>>(w_, spectrum, g_);
      NSB_LAUNCHED("divide_kernel");
    }
    c.phases.end(c.phases.tridiagonal);
    c.phases.begin(c.phases.transforms);
    for (int a = last; a >= first && a >= 0; --a) {
      if (!transformed(a)) continue;
      PassEnds<T> ends{g_};
      if (fused && a == first) ends.p = c.p, ends.scale = T(scale);
      transform(a, CUFFT_INVERSE, stream, block, ends, fused && a == 0 && t_[0] == AxisTransform::fourier);
    }
    if (!fused) {
      unpack_kernel<<<blocks(points, block), block, 0, stream>>>(c.p, w_, T(scale), g_);
      NSB_LAUNCHED("unpack_kernel");
    }
    launch_ghost_axes(c.p, g_, faces_, stream, block);
    c.phases.end(c.phases.transforms);
  }

 private:
  // Thomas's c' (a word a point); split over virtual ranks: v and w beside it, or, phased
  // (split_phases.hpp), v, w, c' of each part (shared factors: of both parts, kept between solves) and
  // the ranks' message buffers (PPT's, the larger).
  std::size_t line_scratch_per_point() const { return factors_shared_ ? kTdmaSharedFactorsPerPoint : kTdmaPhasedScratchPerPoint; }
  std::size_t scratch_words() const {
    const std::size_t points = g_.interior_points(), lines = 2 * std::size_t(g_.nx) * g_.nz;
    if (y_ranks_ <= 1) return points;
    return line_scratch_per_point() * points + split_buffer_words(lines, y_ranks_, true);
  }
  void build() {
    const std::size_t points = g_.interior_points();
    refuse_past_point_index(g_);
    const int len[3] = {g_.nx, g_.ny, g_.nz};
    const double h[3] = {g_.dx(), g_.dy(), g_.dz()};
    for (int a = 0; a < 3; ++a) t_[a] = axis_transform(faces_, a, nullptr);
    const std::vector<T> eig = axis_eigenvalues<T>(t_, len, h);
    w_ = static_cast<Complex<T>*>(device::alloc(points * sizeof(Complex<T>), "poisson fft: spectral array"));
    e_ = static_cast<Complex<T>*>(device::alloc(points * sizeof(Complex<T>), "poisson fft: line array"));
    eig_ = static_cast<T*>(device::alloc(eig.size() * sizeof(T), "poisson fft: eigenvalues"));
    device::copy_to_device(eig_, eig.data(), eig.size() * sizeof(T));
    if (tridiagonal_) {
      // the whole y's rows (a real y-slab rank reads them by the whole line's index)
      host_rows_ = tridiagonal_row_table<T>(y_rows_, y_step_, faces_, y_faces_.empty() ? nullptr : y_faces_.data());
      rows_ = static_cast<T*>(device::alloc(host_rows_.size() * sizeof(T), "poisson fft2_tridiag: rows"));
      device::copy_to_device(rows_, host_rows_.data(), host_rows_.size() * sizeof(T));
      scratch_ = static_cast<T*>(device::alloc(scratch_words() * sizeof(T), "poisson fft2_tridiag: Thomas scratch"));
    }
    for (int a = 0; a < 3; ++a) {
      if (!transformed(a)) continue;
      plan_[a] = line_plan<T>(len[a], points);
      planned_[a] = true;
    }
  }
  void release() {
    for (int a = 0; a < 3; ++a)
      if (planned_[a]) cufftDestroy(plan_[a]), planned_[a] = false;
    for (void* b : {(void*)w_, (void*)e_, (void*)eig_, (void*)rows_, (void*)scratch_})
      if (b) device::free(b);
    w_ = e_ = nullptr, eig_ = rows_ = scratch_ = nullptr;
  }

  // A real y-slab rank's y lines (fracstep V2 on GPU ranks): its block of every (kx, kz) line, real and
  // imaginary parts, by split_solve_rank with the caller's messages (else peer copies), as the host path
  // (reference_cpu/poisson/fft_cpu.cpp y_lines) does with the Communicator's.
  void y_lines_on_rank(const PoissonDirectCall<T>& c, cudaStream_t stream) {
    SplitMessages<T>* messages = y_messages<T>(slab_);  // the caller's (fracstep: its ADI-Y's), else our own
    if (!messages && !messages_) {  // collective: every rank makes its solve's state at its first solve
      int device = 0;
      NSB_CUDA(cudaGetDevice(&device));
      messages_ = std::make_unique<PeerSplitMessages<T>>(*slab_.comm, stream, device);
    }
    if (!messages) messages = messages_.get();
    const std::size_t points = g_.interior_points();
    const bool neumann = faces_.face[1][0] == PoissonFace::neumann;
    const TdmaLines<T, RowsFromArrays<T>, EigShift<T>> lines{
        w_, scratch_, g_.nx, g_.ny, g_.nz, y_ranks_, RowsFromArrays<T>{rows_, y_rows_},
        EigShift<T>{eig_, g_.nx, g_.ny, t_[0], t_[2], neumann}, y_rows_, slab_.first_row, factors_shared_};
    if (factors_shared_ && !factors_ready_)  // once: this rank's block of every line
      tdma_factor_setup<T>(lines, DeviceSplitLaunch{stream}, slab_.rank, slab_.rank + 1), factors_ready_ = true;
    const bool singular = neumann && axis_constant_mode(t_[0], 0) && axis_constant_mode(t_[2], 0);
    if (singular) null_space_line_on_rank(stream, true);
    T* const words = scratch_ + line_scratch_per_point() * points;
    if (slab_.overlap)  // V2-async: batch b's messages beside batch b + 1's work, the phases untimed
      split_solve_rank_pipelined(lines, words, c.y_exact, DeviceSplitLaunch{stream}, slab_.rank, *messages, *slab_.overlap,
                                 slab_.batches);
    else
      split_solve_rank(lines, split_buffers(words, lines.count(), y_ranks_, c.y_exact, 1), c.y_exact, DeviceSplitLaunch{stream},
                       RankPhaseSections{c.phases.timer, c.phases.rank_phases}, slab_.rank, *messages);
    if (singular) null_space_line_on_rank(stream, false);
  }
  // The null-space line (kx, kz) = (0, 0) before (`before`) or after its split solve: the rank's rows (x = 0,
  // z = 0 of W: a row apart) read back, null_space_line_over_ranks (fft_solve.hpp: gathered, the whole
  // line's mean or level as the emulation's kernel takes it), the rank's rows written back.
  void null_space_line_on_rank(cudaStream_t stream, bool before) {
    const std::size_t value = sizeof(Complex<T>), row = std::size_t(g_.nx) * value;
    std::vector<Complex<T>>& here = null_rows_;
    here.resize(std::size_t(g_.ny));
    NSB_CUDA(cudaMemcpy2DAsync(here.data(), value, w_, row, value, std::size_t(g_.ny), cudaMemcpyDeviceToHost, stream));
    NSB_CUDA(cudaStreamSynchronize(stream));
    null_space_line_over_ranks(*slab_.comm, y_ranks_, y_rows_, slab_.first_row, here,
                               RowsFromArrays<T>{host_rows_.data(), y_rows_}, before);
    NSB_CUDA(cudaMemcpy2DAsync(w_, row, here.data(), value, value, std::size_t(g_.ny), cudaMemcpyHostToDevice, stream));
    NSB_CUDA(cudaStreamSynchronize(stream));  // here is reused
  }

  // Axes of one cell are the identity (every transform of length 1 is): skipped. The tridiagonal
  // variant solves y instead of transforming it.
  bool transformed(int a) const {
    const int len[3] = {g_.nx, g_.ny, g_.nz};
    return len[a] > 1 && !(tridiagonal_ && a == 1);
  }
  static unsigned blocks(std::size_t work, int block) { return spectral_blocks(work, block); }
  // One axis's transform. In place: a periodic x, whose lines are already contiguous in W, transformed
  // there by cuFFT with no gather or scatter (the fused variants); the pass ends then run as their own
  // kernels (pack before, divide or unpack after).
  void transform(int a, int direction, cudaStream_t stream, int block, const PassEnds<T>& ends, bool in_place) {
    const AxisGeometry geo{{g_.nx, g_.ny, g_.nz}, a, t_[a], g_.interior_points()};
    const unsigned grid = blocks(geo.points, block);
    if (in_place) {
      if (ends.rhs) pack_kernel<<<grid, block, 0, stream>>>(w_, ends.rhs, ends.scale, g_);
      NSB_LAUNCHED("pack_kernel");
      cufft_check(cufftSetStream(plan_[a], stream), "cufftSetStream");
      cufft_check(CufftOf<T>::exec(plan_[a], w_, direction), "cufftExec");
      if (ends.eig) divide_kernel<<<grid, block, 0, stream>>>(w_, Spectrum<T>{ends.eig, {ends.t[0], ends.t[1], ends.t[2]}, g_.nx, g_.ny}, g_);
      if (ends.p) unpack_kernel<<<grid, block, 0, stream>>>(ends.p, w_, ends.scale, g_);
      NSB_LAUNCHED("divide_kernel or unpack_kernel");
      return;
    }
    transform_through_lines(w_, e_, geo, plan_[a], direction, stream, block, ends);
  }

  Grid g_;
  PoissonFaces faces_;
  std::vector<double> y_faces_;  // empty: uniform y
  int y_ranks_ = 1;              // the y lines split over virtual ranks (scratch for v and w)
  PoissonYSlab slab_;            // a real y-slab rank's (comm null: none)
  int y_rows_;                   // the y lines' rows: the whole y's (a rank's slab holds some of them)
  double y_step_;                // the whole y's uniform step (where y_faces_ is empty)
  std::vector<T> host_rows_;     // the y rows (lower, diag, upper, weight), as rows_ holds them
  std::vector<Complex<T>> null_rows_;  // a rank's rows of the null-space line, read back
  std::unique_ptr<PeerSplitMessages<T>> messages_;  // a real rank's TDMA-C messages, where the caller gives none
  bool tridiagonal_;
  AxisTransform t_[3] = {};
  cufftHandle plan_[3] = {0, 0, 0};
  bool planned_[3] = {false, false, false};  // (a handle's value says nothing of whether it was made)
  Complex<T>* w_ = nullptr;
  Complex<T>* e_ = nullptr;
  T* eig_ = nullptr;
  T* rows_ = nullptr;
  T* scratch_ = nullptr;
  bool factors_shared_ = false;  // TDMA-C's v, w, c' set up once (fracstep split_factors=shared), in scratch_
  bool factors_ready_ = false;
};

// The call's state (a State, made by make()): built on the first call for its grid and faces, kept in
// the workspace, rebuilt when the key changes.
template <class State, class T, class Make>
State& direct_solve_state(const PoissonDirectCall<T>& c, const char* variant, bool tridiagonal, Make make) {
  if (const std::string why = direct_solve_refusal(c.faces, tridiagonal, c.y_faces != nullptr); !why.empty())
    throw std::invalid_argument(why);
  if (!c.workspace) throw std::logic_error(std::string(variant) + ": the call carries no workspace");
  const std::string key = direct_solve_key(variant, int(sizeof(T)), c.grid, c.faces, c.y_faces, c.y_ranks) +
                          (c.y_factors_shared ? " shared y factors" : "");
  auto* state = dynamic_cast<State*>(c.workspace->state.get());
  if (!state || state->key != key) {
    c.workspace->state.reset();  // the old plans and buffers first: two 512^3 sets may not fit
    std::unique_ptr<State> fresh = make();
    fresh->key = key;
    state = fresh.get();
    c.workspace->state = std::move(fresh);
  }
  return *state;
}

template <class T>
void solve_spectral(const PoissonDirectCall<T>& c, const char* variant, bool tridiagonal, bool fused) {
  direct_solve_state<SpectralLines<T>>(c, variant, tridiagonal, [&] { return std::make_unique<SpectralLines<T>>(c, tridiagonal); })
      .solve(c, fused);
}

// The kernels of a variant, for its register report.
inline std::vector<KernelRef> spectral_kernels(bool tridiagonal) {
  std::vector<KernelRef> k = {
      {"forward_gather_kernel<float>", (const void*)&forward_gather_kernel<float>, 4},
      {"forward_gather_kernel<double>", (const void*)&forward_gather_kernel<double>, 8},
      {"forward_scatter_kernel<float>", (const void*)&forward_scatter_kernel<float>, 4},
      {"forward_scatter_kernel<double>", (const void*)&forward_scatter_kernel<double>, 8},
      {"inverse_gather_kernel<float>", (const void*)&inverse_gather_kernel<float>, 4},
      {"inverse_gather_kernel<double>", (const void*)&inverse_gather_kernel<double>, 8},
      {"inverse_scatter_kernel<float>", (const void*)&inverse_scatter_kernel<float>, 4},
      {"inverse_scatter_kernel<double>", (const void*)&inverse_scatter_kernel<double>, 8}};
  if (tridiagonal) {
    k.push_back({"thomas_kernel<float>", (const void*)&thomas_kernel<float>, 4});
    k.push_back({"thomas_kernel<double>", (const void*)&thomas_kernel<double>, 8});
  } else {
    k.push_back({"divide_kernel<float>", (const void*)&divide_kernel<float>, 4});
    k.push_back({"divide_kernel<double>", (const void*)&divide_kernel<double>, 8});
  }
  return k;
}

}  // namespace nsb
