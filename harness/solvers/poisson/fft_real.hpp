// The real-to-complex path of the direct solve (poisson/fft/cufft_r2c; docs/solvers/poisson_fft.md):
// the numerics of its three passes, shared by the GPU kernels and the host test that runs the same
// passes with a plain DFT in place of cuFFT.
//
// The right-hand side is real and every transform of fft_solve.hpp maps real data to real data once
// written with Makhoul (1980): per axis, a cosine (neumann) axis is the DFT of the reordering
// v[m] = x[src(m)] (makhoul_position) followed by the post-twiddle P, a sine (dirichlet) axis is the
// cosine transform of (-1)^j x[j] (slot s at cosine index n - 1 - s), a Fourier (periodic) axis the DFT
// itself (P the identity). Since every P acts on one axis, the whole solve is
//   reorder (real)  ->  3D real-to-complex DFT  ->  Q_x Q_y Q_z D P_x P_y P_z  ->  3D complex-to-real DFT
//   ->  reorder back (real)
// with D the division by the eigenvalue and, on each cosine/sine axis, at indices k and n - k:
//   P (forward twiddle)  X[k] = (w_k V[k] + conj(w_k) V[n-k]) / 2,  w_k = e^{-i pi k/2n}
//   Q (inverse twiddle)  V[k] = conj(w_k) (X[k] - i X[n-k]),  X[n] = 0
// So the operator couples a spectral point only with its mirrors k -> n - k on each axis: an orbit of at
// most 8 points, {k_x, n_x-k_x} x {k_y, n_y-k_y} x {k_z, n_z-k_z}. One thread takes one orbit, reads it,
// applies P, D and Q on the 2x2x2 cube and writes it back: all the twiddles of all the axes and the
// division in one pass (solve_spectral_orbit). The real DFT stores only the half spectrum of its
// fastest axis of more than one cell (the `half` axis; cuFFT's layout); an orbit point outside it is the
// conjugate of the point mirrored on every axis, which is in the same orbit.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "poisson/fft_solve.hpp"

namespace nsb {

// Makhoul's reordering: where x[q] goes in v (evens forward, odds backward from the end).
NSB_HD inline int makhoul_position(int q, int n) { return q % 2 == 0 ? q / 2 : n - 1 - (q - 1) / 2; }

// The shape of the real array (interior sizes, x fastest) and of its half spectrum.
struct RealSpectrumShape {
  int len[3];
  int half;  // the axis the real DFT halves: the first of more than one cell
  AxisTransform t[3];

  NSB_HD int stored(int a) const { return a == half ? len[a] / 2 + 1 : len[a]; }
  NSB_HD std::size_t complex_points() const { return std::size_t(stored(0)) * stored(1) * stored(2); }
  NSB_HD std::size_t complex_index(const int i[3]) const {
    return std::size_t(i[0]) + std::size_t(stored(0)) * (std::size_t(i[1]) + std::size_t(stored(1)) * i[2]);
  }
  // One orbit per (k_x, k_y, k_z) with 0 <= k_a <= len_a / 2.
  NSB_HD std::size_t orbits() const {
    return std::size_t(len[0] / 2 + 1) * std::size_t(len[1] / 2 + 1) * std::size_t(len[2] / 2 + 1);
  }
  // The reordered position of interior point q (compact index, x fastest) and its sign (sine axes flip
  // odd points).
  NSB_HD std::size_t real_index(const int q[3], bool* flip) const {
    int m[3];
    *flip = false;
    for (int a = 0; a < 3; ++a) {
      m[a] = t[a] == AxisTransform::fourier ? q[a] : makhoul_position(q[a], len[a]);
      if (t[a] == AxisTransform::sine && (q[a] & 1)) *flip = !*flip;
    }
    return std::size_t(m[0]) + std::size_t(len[0]) * (std::size_t(m[1]) + std::size_t(len[1]) * m[2]);
  }
};

// The first axis of more than one cell (0 for a single cell).
inline int real_half_axis(const Grid& g) { return g.nx > 1 ? 0 : g.ny > 1 ? 1 : g.nz > 1 ? 2 : 0; }

// The twiddles of one axis of n cells: tw[k] = e^{i pi k / 2n}, k = 0..n-1, computed in double once
// (build_real_tables) and read from a table by the kernels (no sincos per point).
template <class T>
NSB_HD inline Complex<T> times(Complex<T> a, Complex<T> w) { return {a.re * w.re - a.im * w.im, a.re * w.im + a.im * w.re}; }
template <class T>
NSB_HD inline Complex<T> times_conj(Complex<T> a, Complex<T> w) { return {a.re * w.re + a.im * w.im, a.im * w.re - a.re * w.im}; }

// P then (after the division) Q on one axis of the cube: entries e (bit a of e clear, index k) and
// e | bit (index k2 = (n - k) mod n). Identity on Fourier axes.
template <class T>
NSB_HD inline void cube_forward_axis(Complex<T> c[8], int a, int k, int k2, const Complex<T>* tw) {
  const int bit = 1 << a;
  for (int e = 0; e < 8; ++e) {
    if (e & bit) continue;
    const Complex<T> v0 = c[e], v1 = c[e | bit];
    c[e] = T(0.5) * (times_conj(v0, tw[k]) + times(v1, tw[k]));
    c[e | bit] = T(0.5) * (times_conj(v1, tw[k2]) + times(v0, tw[k2]));
  }
}
template <class T>
NSB_HD inline void cube_inverse_axis(Complex<T> c[8], int a, int k, int k2, const Complex<T>* tw) {
  const int bit = 1 << a;
  const auto minus_i = [](Complex<T> x) { return Complex<T>{x.im, -x.re}; };
  for (int e = 0; e < 8; ++e) {
    if (e & bit) continue;
    const Complex<T> x0 = c[e], x1 = c[e | bit];
    c[e] = times(k == 0 ? x0 : x0 + minus_i(x1), tw[k]);  // X[n] = 0 at k = 0
    c[e | bit] = times(k2 == 0 ? x1 : x1 + minus_i(x0), tw[k2]);
  }
}

// The tables of the middle pass, nx then ny then nz values each: the eigenvalues by slot and the
// twiddles by index.
template <class T>
struct RealSpectrumTables {
  const T* eig;
  const Complex<T>* tw;
};
template <class T>
inline void build_real_tables(const Grid& g, const RealSpectrumShape& s, std::vector<T>& eig, std::vector<Complex<T>>& tw) {
  const double h[3] = {g.dx(), g.dy(), g.dz()}, pi = 3.14159265358979323846;
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < s.len[a]; ++k) {
      eig.push_back(T(axis_eigenvalue(s.t[a], k, s.len[a], h[a])));
      tw.push_back({T(std::cos(pi * k / (2.0 * s.len[a]))), T(std::sin(pi * k / (2.0 * s.len[a])))});
    }
}

// The division of one spectral point (cosine indices on sine axes: slot n - 1 - k) by the eigenvalue;
// the constant mode of a singular problem set to 0.
template <class T>
NSB_HD inline Complex<T> divide_by_eigenvalue(Complex<T> v, const RealSpectrumShape& s, const T* eig, const int i[3]) {
  T lambda = 0;
  bool constant = true;
  for (int a = 0, offset = 0; a < 3; offset += s.len[a], ++a) {
    const int slot = s.t[a] == AxisTransform::sine ? s.len[a] - 1 - i[a] : i[a];
    constant = constant && axis_constant_mode(s.t[a], slot);
    lambda += eig[offset + slot];
  }
  return constant ? Complex<T>{T(0), T(0)} : (T(1) / lambda) * v;
}

// The middle pass on orbit `orbit` of the half spectrum C (in place): read, P on every cosine/sine
// axis, D, Q, write. Orbits are disjoint, so threads never share a point.
template <class T>
NSB_HD inline void solve_spectral_orbit(Complex<T>* C, const RealSpectrumShape& s, RealSpectrumTables<T> tables,
                                        std::size_t orbit) {
  int idx[3][2];
  for (int a = 0; a < 3; ++a) {
    const int reps = s.len[a] / 2 + 1, k = int(orbit % std::size_t(reps));
    orbit /= std::size_t(reps);
    idx[a][0] = k, idx[a][1] = (s.len[a] - k) % s.len[a];
  }
  const int h = s.half, hbit = 1 << h;
  Complex<T> c[8];
  int at[8][3];
  for (int e = 0; e < 8; ++e)
    for (int a = 0; a < 3; ++a) at[e][a] = idx[a][(e >> a) & 1];
  for (int e = 0; e < 8; ++e)
    if (!(e & hbit) || at[e][h] <= s.len[h] / 2) c[e] = C[s.complex_index(at[e])];
  for (int e = 0; e < 8; ++e)  // outside the stored half: the conjugate of the point mirrored on every axis
    if ((e & hbit) && at[e][h] > s.len[h] / 2) c[e] = {c[e ^ 7].re, -c[e ^ 7].im};
  const Complex<T>* tw[3] = {tables.tw, tables.tw + s.len[0], tables.tw + s.len[0] + s.len[1]};
  for (int a = 0; a < 3; ++a)
    if (s.t[a] != AxisTransform::fourier) cube_forward_axis(c, a, idx[a][0], idx[a][1], tw[a]);
  for (int e = 0; e < 8; ++e) c[e] = divide_by_eigenvalue(c[e], s, tables.eig, at[e]);
  for (int a = 0; a < 3; ++a)
    if (s.t[a] != AxisTransform::fourier) cube_inverse_axis(c, a, idx[a][0], idx[a][1], tw[a]);
  for (int e = 0; e < 8; ++e)  // the stored points of the orbit: those at the half axis's first index
    if (!(e & hbit)) C[s.complex_index(at[e])] = c[e];
}

}  // namespace nsb
