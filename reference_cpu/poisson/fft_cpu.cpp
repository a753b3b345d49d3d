// poisson/fft and poisson/fft2_tridiag on the CPU: the correctness reference of the cuFFT variants.
// No FFT library is assumed (the GPU machines have no network and FFTW is not a dependency): each axis
// transform is the plain O(n^2) sum over a line of the basis of fft_solve.hpp (Fourier, cosine, sine),
// in double whatever the precision, for the small grids of tests and verify (a 64^3 solve takes about
// 6 n^4 = 1e8 complex multiply-adds). The eigenvalues, the tridiagonal rows and the Thomas solve are
// the shared ones of fft_solve.hpp. cpu_serial and cpu_omp run the same loops, the OpenMP region off or
// on; every line is computed alone, so the two agree bit for bit.
#include <omp.h>

#include <algorithm>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "transpose/transpose_ranks_host.hpp"
#include "poisson/fft_solve.hpp"
#include "poisson/host_ops.hpp"
#include "tridiag/split_comm.hpp"
#include "registry.hpp"

namespace nsb {
namespace {

using Cd = Complex<double>;

// The n x n basis of one axis: forward[s * n + j] = phi_s(j); inverse[j * n + s] = phi_s(j)* / |phi_s|^2,
// so that the inverse sum undoes the forward one exactly.
struct AxisBasis {
  std::vector<Cd> forward, inverse;
};

AxisBasis axis_basis(AxisTransform t, int n) {
  const double pi = 3.14159265358979323846;
  AxisBasis b{std::vector<Cd>(std::size_t(n) * n), std::vector<Cd>(std::size_t(n) * n)};
  for (int s = 0; s < n; ++s)
    for (int j = 0; j < n; ++j) {
      Cd phi{0, 0};
      double norm2 = n / 2.0;  // |phi_s|^2 of the cosine and sine rows but their constant (or alternating) one
      switch (t) {
        case AxisTransform::fourier:
          phi = {std::cos(2 * pi * s * j / n), -std::sin(2 * pi * s * j / n)};
          norm2 = n;
          break;
        case AxisTransform::cosine:
          phi = {std::cos(pi * s * (j + 0.5) / n), 0};
          if (s == 0) norm2 = n;
          break;
        case AxisTransform::sine:
          phi = {std::sin(pi * (s + 1) * (j + 0.5) / n), 0};
          if (s == n - 1) norm2 = n;
          break;
      }
      b.forward[std::size_t(s) * n + j] = phi;
      b.inverse[std::size_t(j) * n + s] = {phi.re / norm2, -phi.im / norm2};
    }
  return b;
}

Cd mul(Cd a, Cd b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

// One axis of the compact array w (x fastest, interior sizes len), every line through table m:
// out[s] = sum_j m[s * n + j] w[j].
void transform_axis(std::vector<Cd>& w, const int len[3], int axis, const std::vector<Cd>& m, int threads,
                    bool parallel) {
  const int n = len[axis];
  const std::ptrdiff_t stride = axis == 0 ? 1 : axis == 1 ? len[0] : std::ptrdiff_t(len[0]) * len[1];
  const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;  // the two other axes
  const std::ptrdiff_t s1 = a1 == 0 ? 1 : len[0], s2 = a2 == 1 ? len[0] : std::ptrdiff_t(len[0]) * len[1];
  const long lines = long(len[a1]) * len[a2];
#pragma omp parallel num_threads(threads) if (parallel)
  {
    std::vector<Cd> in(n);
#pragma omp for schedule(static)
    for (long line = 0; line < lines; ++line) {
      Cd* x = w.data() + (line % len[a1]) * s1 + (line / len[a1]) * s2;
      for (int j = 0; j < n; ++j) in[j] = x[j * stride];
      for (int s = 0; s < n; ++s) {
        Cd sum{0, 0};
        for (int j = 0; j < n; ++j) sum = sum + mul(m[std::size_t(s) * n + j], in[j]);
        x[s * stride] = sum;
      }
    }
  }
}

// The null-space line (kx, kz) = (0, 0) of a real y-slab rank before or after its split solve: its rows
// (x = 0, z = 0: a row of W apart) through null_space_line_over_ranks (fft_solve.hpp).
template <class T, class Rows>
void null_space_line_on_rank(const PoissonDirectCall<T>& c, std::vector<Cd>& w, int n, const Rows& rows, bool before) {
  const Grid g = c.grid;
  std::vector<Cd> here(static_cast<std::size_t>(g.ny));
  for (int j = 0; j < g.ny; ++j) here[std::size_t(j)] = w[std::size_t(g.nx) * j];
  null_space_line_over_ranks(*c.y_slab.comm, c.y_ranks, n, c.y_slab.first_row, here, rows, before);
  for (int j = 0; j < g.ny; ++j) w[std::size_t(g.nx) * j] = here[std::size_t(j)];
}

// fracstep's split_factors=shared: the y lines' v, w, c' (kTdmaSharedFactorsPerPoint words a point, both
// parts'), computed once for the call's grid, faces, y ranks and rank block and kept in the method's
// workspace; *fresh: just made, to be set up (tdma_factor_setup) before the solve reads them.
struct TdmaFactorsState final : DirectSolveState {
  std::vector<double> factors;
};
template <class T>
double* tdma_shared_factors(const PoissonDirectCall<T>& c, std::size_t points, bool* fresh) {
  if (!c.workspace) throw std::logic_error("poisson/fft2_tridiag: shared y factors need the method's workspace");
  const std::string key = direct_solve_key("poisson/fft2_tridiag cpu y factors", int(sizeof(T)), c.grid, c.faces, c.y_faces, c.y_ranks) +
                          " first_row " + std::to_string(c.y_slab.first_row);
  auto* state = dynamic_cast<TdmaFactorsState*>(c.workspace->state.get());
  *fresh = !state || state->key != key;
  if (*fresh) {
    auto made = std::make_unique<TdmaFactorsState>();
    made->key = key;
    made->factors.assign(points * kTdmaSharedFactorsPerPoint, 0.0);
    state = made.get();
    c.workspace->state = std::move(made);
  }
  return state->factors.data();
}

// The (kx, kz) lines' tridiagonal solves in y: one pass a line (thomas_line, split or not), or split
// over virtual ranks rank by rank and phase by phase (split_phases.hpp: fracstep V2's timed TDMA-C).
template <class T>
void y_lines(const PoissonDirectCall<T>& c, std::vector<Cd>& w, const AxisTransform* t, const double* h, int threads,
             bool parallel) {
  const Grid g = c.grid;
  const PoissonFace lo = c.faces.face[1][0], hi = c.faces.face[1][1];
  const bool on_rank = c.y_slab.comm != nullptr;  // a real y-slab rank: the whole y's rows
  const int n = on_rank ? c.y_slab.rows : g.ny;
  const double hy = on_rank ? c.y_slab.h : h[1];
  const auto rows = [&](int j) { return tridiagonal_row(j, n, hy, lo, hi, c.y_faces); };
  const auto shift = [&](int i, int k) {
    return LineShift{axis_eigenvalue(t[0], i, g.nx, h[0]) + axis_eigenvalue(t[2], k, g.nz, h[2]),
                     axis_constant_mode(t[0], i) && axis_constant_mode(t[2], k) && lo == PoissonFace::neumann};
  };
  bool fresh = false;  // shared factors: just made
  double* factors = c.y_factors_shared && c.y_ranks > 1 && (on_rank || c.phases.rank_phases >= 0)
                        ? tdma_shared_factors(c, w.size(), &fresh) : nullptr;
  if (on_rank) {
    thread_local std::vector<double> scratch, words;  // a rank's thread's own, kept as below
    if (!factors) scratch.resize(std::max(scratch.size(), w.size() * kTdmaPhasedScratchPerPoint));
    const TdmaLines<double, decltype(rows), decltype(shift)> lines{w.data(), factors ? factors : scratch.data(), g.nx, g.ny, g.nz,
                                                                 c.y_ranks, rows, shift, n, c.y_slab.first_row, factors != nullptr};
    if (fresh) tdma_factor_setup<double>(lines, HostSplitLaunch{threads, parallel}, c.y_slab.rank, c.y_slab.rank + 1);
    words.resize(std::max(words.size(), split_buffer_words(lines.count(), c.y_ranks, c.y_exact, 1)));
    const bool singular = shift(0, 0).singular;
    if (singular) null_space_line_on_rank(c, w, n, rows, true);
    CommSplitMessages<double> messages(*c.y_slab.comm);
    split_solve_rank(lines, split_buffers(words.data(), lines.count(), c.y_ranks, c.y_exact, 1), c.y_exact,
                     HostSplitLaunch{threads, parallel}, RankPhaseSections{c.phases.timer, c.phases.rank_phases}, c.y_slab.rank,
                     messages);
    if (singular) null_space_line_on_rank(c, w, n, rows, false);
    return;
  }
  if (c.y_ranks > 1 && c.phases.rank_phases >= 0) {
    // The scratch (6 words a point) and the ranks' message buffers (p (9 + 6p) words a line) are kept
    // between calls, as the GPU variant keeps its own: allocated afresh, their new pages cost as much as
    // the solve (measured: fracstep.md, "tdma_c on the CPU"). Every word is written before it is read.
    thread_local std::vector<double> scratch, words;
    if (!factors) scratch.resize(std::max(scratch.size(), w.size() * kTdmaPhasedScratchPerPoint));
    const TdmaLines<double, decltype(rows), decltype(shift)> lines{w.data(), factors ? factors : scratch.data(), g.nx, g.ny, g.nz,
                                                                 c.y_ranks, rows, shift, 0, 0, factors != nullptr};
    if (fresh) tdma_factor_setup<double>(lines, HostSplitLaunch{threads, parallel}, 0, c.y_ranks);
    words.resize(std::max(words.size(), split_buffer_words(lines.count(), c.y_ranks, c.y_exact)));
    split_solve_phased(lines, split_buffers(words.data(), lines.count(), c.y_ranks, c.y_exact), c.y_exact,
                       HostSplitLaunch{threads, parallel}, RankPhaseSections{c.phases.timer, c.phases.rank_phases});
    return;
  }
  std::vector<double> scratch(w.size() * (c.y_ranks > 1 ? 3 : 1));  // Thomas's c'; split: v and w too
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int k = 0; k < g.nz; ++k)
    for (int i = 0; i < g.nx; ++i) {
      const std::size_t first = i + std::size_t(g.nx) * g.ny * k;
      const LineShift s = shift(i, k);
      const LineSplit<double> split{c.y_ranks, c.y_exact, scratch.data() + w.size() + first, scratch.data() + 2 * w.size() + first};
      thomas_line(w.data() + first, g.nx, g.ny, rows, s.shift, scratch.data() + first, s.singular, split);
    }
}

// The compact spectral array of the interior of rhs_scale * rhs (x fastest), in double.
template <class T>
std::vector<Cd> spectral_rhs(const PoissonDirectCall<T>& c) {
  const Grid g = c.grid;
  std::vector<Cd> w(g.interior_points());
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        w[i + std::size_t(g.nx) * (j + std::size_t(g.ny) * k)] = {double(c.rhs_scale) * double(c.rhs[g.idx(i + 1, j + 1, k + 1)]), 0};
  return w;
}
// p's interior from the compact array's real parts, its ghost layer by the faces.
template <class T>
void write_solution(const PoissonDirectCall<T>& c, const std::vector<Cd>& w, int threads) {
  const Grid g = c.grid;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) c.p[g.idx(i + 1, j + 1, k + 1)] = T(w[i + std::size_t(g.nx) * (j + std::size_t(g.ny) * k)].re);
  apply_faces_host(c.p, g, c.faces, threads);
}

// fracstep V1 on a real z-slab host rank (PoissonZSlab): V0's solve split at its transposes. The x transform
// on the rank's z-slab (whole x lines), the spectral field to its x-slab (P1: transpose_on_host_rank, 2 words
// a point), the z transform, the y lines (each with its global kx's and kz's eigenvalues; the null-space line
// (0, 0) is whole on the rank holding kx = 0) and the inverse z transform there, back to the z-slab (P4), the
// inverse x transform. Every line's sums are V0's in V0's order, so the result is V0's bit for bit. The ghost
// layer is set by the faces as on one rank; the cut z planes' ghosts are the caller's (fracstep exchanges them).
template <class T>
void solve_z_slab(const PoissonDirectCall<T>& c, const AxisTransform* t, int threads, bool parallel) {
  const Grid g = c.grid;
  const PoissonZSlab& z = c.z_slab;
  const TransposeShape shape{g.nx, g.ny, z.planes, z.comm->size(), 2};
  check_transpose_shape(shape);
  if (shape.nzs(z.rank) != g.nz || shape.z0(z.rank) != z.first_plane)
    throw std::logic_error("poisson/fft2_tridiag: a z-slab rank's planes are not its block of the whole z");
  const int columns = shape.nxs(z.rank), x0 = shape.x0(z.rank);
  const int len_z[3] = {g.nx, g.ny, g.nz}, len_x[3] = {columns, g.ny, z.planes};
  const double h[3] = {g.dx(), g.dy(), z.dz};
  const AxisBasis bx = axis_basis(t[0], g.nx), bz = axis_basis(t[2], z.planes);
  std::vector<Cd> w = spectral_rhs(c), wx(std::size_t(columns) * g.ny * z.planes);
  thread_local std::vector<double> buffer;
  const ZSlabView<double> view{&w[0].re, 2 * std::ptrdiff_t(g.nx), 2 * std::ptrdiff_t(g.nx) * g.ny};
  const auto all_to_all = [&](TransposeDirection d) {  // timed on its own where the caller asks (inside transforms)
    if (z.all_to_all >= 0) c.phases.begin(z.all_to_all);
    transpose_on_host_rank(*z.comm, shape, z.rank, view, &wx[0].re, d, buffer);
    if (z.all_to_all >= 0) c.phases.end(z.all_to_all);
  };

  c.phases.begin(c.phases.transforms);
  transform_axis(w, len_z, 0, bx.forward, threads, parallel);
  all_to_all(TransposeDirection::z_to_x);
  transform_axis(wx, len_x, 2, bz.forward, threads, parallel);
  c.phases.end(c.phases.transforms);

  c.phases.begin(c.phases.tridiagonal);
  const PoissonFace lo = c.faces.face[1][0], hi = c.faces.face[1][1];
  const auto rows = [&](int j) { return tridiagonal_row(j, g.ny, h[1], lo, hi, c.y_faces); };
  std::vector<double> scratch(wx.size());  // Thomas's c'
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (int k = 0; k < z.planes; ++k)
    for (int i = 0; i < columns; ++i) {
      const std::size_t first = i + std::size_t(columns) * g.ny * k;
      const double shift = axis_eigenvalue(t[0], x0 + i, g.nx, h[0]) + axis_eigenvalue(t[2], k, z.planes, h[2]);
      const bool singular = axis_constant_mode(t[0], x0 + i) && axis_constant_mode(t[2], k) && lo == PoissonFace::neumann;
      thomas_line(wx.data() + first, columns, g.ny, rows, shift, scratch.data() + first, singular);
    }
  c.phases.end(c.phases.tridiagonal);

  c.phases.begin(c.phases.transforms);
  transform_axis(wx, len_x, 2, bz.inverse, threads, parallel);
  all_to_all(TransposeDirection::x_to_z);
  transform_axis(w, len_z, 0, bx.inverse, threads, parallel);
  write_solution(c, w, threads);
  c.phases.end(c.phases.transforms);
}

template <class T>
void solve(const PoissonDirectCall<T>& c, bool tridiagonal) {
  const Grid g = c.grid;
  if (const std::string why = direct_solve_refusal(c.faces, tridiagonal, c.y_faces != nullptr); !why.empty()) throw std::invalid_argument(why);
  const bool parallel = c.exec.backend == Backend::cpu_omp;
  const int threads = parallel ? (c.exec.threads > 0 ? c.exec.threads : omp_get_max_threads()) : 1;
  const int len[3] = {g.nx, g.ny, g.nz};
  const double h[3] = {g.dx(), g.dy(), g.dz()};
  AxisTransform t[3];
  for (int a = 0; a < 3; ++a) t[a] = axis_transform(c.faces, a, nullptr);
  if (c.z_slab.comm) return solve_z_slab(c, t, threads, parallel);
  AxisBasis basis[3];
  for (int a = 0; a < 3; ++a) basis[a] = axis_basis(t[a], len[a]);

  std::vector<Cd> w = spectral_rhs(c);

  c.phases.begin(c.phases.transforms);
  for (int a = 0; a < 3; ++a)
    if (!(tridiagonal && a == 1)) transform_axis(w, len, a, basis[a].forward, threads, parallel);
  c.phases.end(c.phases.transforms);
  c.phases.begin(c.phases.tridiagonal);

  if (!tridiagonal) {
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
    for (int k = 0; k < g.nz; ++k)
      for (int j = 0; j < g.ny; ++j)
        for (int i = 0; i < g.nx; ++i) {
          Cd& v = w[i + std::size_t(g.nx) * (j + std::size_t(g.ny) * k)];
          const bool constant = axis_constant_mode(t[0], i) && axis_constant_mode(t[1], j) && axis_constant_mode(t[2], k);
          const double lambda = axis_eigenvalue(t[0], i, g.nx, h[0]) + axis_eigenvalue(t[1], j, g.ny, h[1]) +
                                axis_eigenvalue(t[2], k, g.nz, h[2]);
          v = constant ? Cd{0, 0} : (1 / lambda) * v;
        }
  } else {
    y_lines(c, w, t, h, threads, parallel);
  }

  c.phases.end(c.phases.tridiagonal);
  c.phases.begin(c.phases.transforms);
  for (int a = 2; a >= 0; --a)
    if (!(tridiagonal && a == 1)) transform_axis(w, len, a, basis[a].inverse, threads, parallel);

  write_solution(c, w, threads);
  c.phases.end(c.phases.transforms);
}

template <class T>
void fft(const PoissonDirectCall<T>& c) {
  solve(c, false);
}
template <class T>
void fft2_tridiag(const PoissonDirectCall<T>& c) {
  solve(c, true);
}

Variant cpu(const char* stage, Backend b, StageFn f, StageFn d) {
  Variant v;
  v.stage = stage;
  v.name = backend_name(b);
  v.backend = b;
  v.tags = {{"backend", backend_name(b)}};
  v.status = "reference: O(n^2) sums per line in double (no FFT library)";
  v.run_float = f;
  v.run_double = d;
  return v;
}

const Registrar fft_serial{cpu("poisson/fft", Backend::cpu_serial, &fft<float>, &fft<double>)};
const Registrar fft_omp{cpu("poisson/fft", Backend::cpu_omp, &fft<float>, &fft<double>)};
const Registrar tri_serial{cpu("poisson/fft2_tridiag", Backend::cpu_serial, &fft2_tridiag<float>, &fft2_tridiag<double>)};
const Registrar tri_omp{cpu("poisson/fft2_tridiag", Backend::cpu_omp, &fft2_tridiag<float>, &fft2_tridiag<double>)};

}  // namespace
}  // namespace nsb
