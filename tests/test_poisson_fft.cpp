// The Poisson family's direct solves (fft, fft2_tridiag; poisson/fft_solve.hpp): the discrete equation
// solved to round-off for every face type, second order to a manufactured solution, the null-space
// rule, refusals by name, serial = OpenMP, the two methods against each other, the projection solver
// running the cavity and Taylor-Green with them, and the GPU variants against the CPU reference (those
// skip without a GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "device.hpp"
#include "poisson/fft_real.hpp"
#include "poisson/fft_solve.hpp"
#include "poisson/host_ops.hpp"
#include "projection/cases.hpp"
#include "projection/validation.hpp"
#include "registry.hpp"
#include "test_support.hpp"
#include "verify.hpp"

namespace nsb {
namespace {

using F = PoissonFace;

PoissonFaces axes(F x, F y, F z) {
  PoissonFaces f;
  const F t[3] = {x, y, z};
  for (int a = 0; a < 3; ++a) f.face[a][0] = f.face[a][1] = t[a];
  return f;
}

std::vector<double> random_rhs(const Grid& g, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> r(g.padded_points(), 0.0);
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) r[g.idx(i, j, k)] = u(gen);
  return r;
}

template <class T>
std::vector<T> as(const std::vector<double>& a) {
  return std::vector<T>(a.begin(), a.end());
}

// One call of a stage variant on host arrays: p = L^-1 (scale rhs), ghosts set.
template <class T>
std::vector<T> direct_solve(const std::string& stage, const std::string& variant, const Grid& g, const PoissonFaces& f,
                            const std::vector<T>& rhs, T scale = 1, Backend b = Backend::cpu_serial,
                            const double* y_faces = nullptr) {
  std::vector<T> p(g.padded_points(), T(7));  // not zero: every point must be written
  DirectSolveWorkspace ws;
  PoissonDirectCall<T> c;
  c.grid = g, c.faces = f, c.p = p.data(), c.rhs = rhs.data(), c.rhs_scale = scale, c.workspace = &ws, c.y_faces = y_faces;
  c.exec.backend = b, c.exec.threads = 2;
  Registry::instance().get(stage, variant).fn<PoissonDirectCall<T>>()(c);
  return p;
}

// RMS of (scale rhs - mean) - L p over RMS(scale rhs - mean), in double (the mean only where singular).
template <class T>
double relative_residual(const std::vector<T>& p_in, const std::vector<double>& rhs_in, double scale, const Grid& g,
                         const PoissonFaces& f) {
  std::vector<double> p(p_in.begin(), p_in.end()), rhs = rhs_in, r(g.padded_points(), 0.0);
  for (double& v : rhs) v *= scale;
  if (f.singular()) subtract_interior(rhs.data(), interior_mean(rhs.data(), g), g);
  residual_host(r.data(), p.data(), rhs.data(), 1.0, g);
  return interior_rms(r.data(), g) / interior_rms(rhs.data(), g);
}

struct FaceCase {
  const char* name;
  PoissonFaces faces;
  bool tridiagonal_ok;  // fft2_tridiag takes it (y not periodic)
};
const FaceCase kFaceCases[] = {
    {"neumann", axes(F::neumann, F::neumann, F::neumann), true},
    {"dirichlet", axes(F::dirichlet, F::dirichlet, F::dirichlet), true},
    {"periodic", axes(F::periodic, F::periodic, F::periodic), false},
    {"periodic_neumann_dirichlet", axes(F::periodic, F::neumann, F::dirichlet), true},
    {"dirichlet_periodic_neumann", axes(F::dirichlet, F::periodic, F::neumann), false},
    {"channel", axes(F::periodic, F::dirichlet, F::periodic), true},
};

// Round-off: double 1e-12 (measured ~1e-15); float 1e-5 (the CPU reference computes in double and
// rounds p to float: measured ~1e-7, cond(L) times float's epsilon bounds it).
TEST(PoissonFft, DiscreteResidualIsRoundOffForEveryFaceType) {
  const Grid g{12, 10, 14, 1.2, 0.7, 2.1};
  const std::vector<double> rhs = random_rhs(g, 3);
  for (const FaceCase& fc : kFaceCases)
    for (const char* stage : {"poisson/fft", "poisson/fft2_tridiag"}) {
      if (std::string(stage) == "poisson/fft2_tridiag" && !fc.tridiagonal_ok) continue;
      const double rd = relative_residual(direct_solve<double>(stage, "cpu_serial", g, fc.faces, rhs, 0.5), rhs, 0.5, g, fc.faces);
      const double rf = relative_residual(direct_solve<float>(stage, "cpu_serial", g, fc.faces, as<float>(rhs), 0.5f), rhs, 0.5, g, fc.faces);
      std::printf("%-22s %-28s relative residual double %.2e float %.2e\n", stage, fc.name, rd, rf);
      EXPECT_LT(rd, 1e-12) << stage << " " << fc.name;
      EXPECT_LT(rf, 1e-5) << stage << " " << fc.name;
    }
}

// Second order: the discrete solution's error to the continuous one falls by 4 per halving of h.
double manufactured_error(const char* stage, int n, const PoissonFaces& f) {
  const Grid g{n, n, n, 1, 2, 1.5};
  const ManufacturedPoisson<double> m = manufactured_poisson<double>(g, f);
  std::vector<double> p = direct_solve<double>(stage, "cpu_serial", g, f, m.rhs);
  std::vector<double> e(g.padded_points(), 0.0);
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = p[i] - m.exact[i];
  if (f.singular()) subtract_interior(e.data(), interior_mean(e.data(), g), g);
  return interior_rms(e.data(), g);
}

TEST(PoissonFft, SecondOrderToTheManufacturedSolution) {
  for (const FaceCase& fc : kFaceCases)
    for (const char* stage : {"poisson/fft", "poisson/fft2_tridiag"}) {
      if (std::string(stage) == "poisson/fft2_tridiag" && !fc.tridiagonal_ok) continue;
      const double e8 = manufactured_error(stage, 8, fc.faces), e16 = manufactured_error(stage, 16, fc.faces);
      std::printf("%-22s %-28s error %.3e -> %.3e, order %.3f\n", stage, fc.name, e8, e16, std::log2(e8 / e16));
      EXPECT_NEAR(std::log2(e8 / e16), 2.0, 0.15) << stage << " " << fc.name;
    }
}

// A stretched y (Ha et al.'s wall clustering, tanh s = 3): fft2_tridiag solves the flux-form operator
// of its rows to round-off; the right-hand side made compatible by its cell-height-weighted mean (the
// singular (0,0) line's rule), with a neumann y (the channel's) and a dirichlet one; fft refuses it.
TEST(PoissonFft, StretchedYIsSolvedToRoundOff) {
  const Grid g{12, 10, 14, 1.2, 1, 2.1};
  const std::vector<double> yf = tanh_wall_faces(g.ny, g.ly, 3);
  for (const PoissonFaces& f : {axes(F::periodic, F::neumann, F::periodic), axes(F::neumann, F::dirichlet, F::periodic)}) {
    std::vector<double> rhs = random_rhs(g, 9);
    if (f.singular()) {
      double sum = 0, weights = 0;
      for (int k = 1; k <= g.nz; ++k)
        for (int j = 1; j <= g.ny; ++j)
          for (int i = 1; i <= g.nx; ++i) {
            const double w = yf[std::size_t(j)] - yf[std::size_t(j) - 1];
            sum += w * rhs[g.idx(i, j, k)], weights += w;
          }
      subtract_interior(rhs.data(), sum / weights, g);
    }
    const std::vector<double> p = direct_solve<double>("poisson/fft2_tridiag", "cpu_serial", g, f, rhs, 1.0,
                                                       Backend::cpu_serial, yf.data());
    double worst = 0, size = 0;
    for (int k = 1; k <= g.nz; ++k)
      for (int j = 1; j <= g.ny; ++j)
        for (int i = 1; i <= g.nx; ++i) {
          const TridiagonalRow r = tridiagonal_row(j - 1, g.ny, g.dy(), f.face[1][0], f.face[1][1], yf.data());
          const auto at = [&](int di, int dk) { return p[g.idx((i - 1 + di + g.nx) % g.nx + 1, j, (k - 1 + dk + g.nz) % g.nz + 1)]; };
          double lp = r.diag * p[g.idx(i, j, k)] + (j > 1 ? r.lower * p[g.idx(i, j - 1, k)] : 0) +
                      (j < g.ny ? r.upper * p[g.idx(i, j + 1, k)] : 0);
          const double x2 = 1 / (g.dx() * g.dx()), z2 = 1 / (g.dz() * g.dz());
          if (f.face[0][0] == F::periodic) lp += x2 * (at(1, 0) - 2 * at(0, 0) + at(-1, 0));
          else lp += x2 * ((i < g.nx ? at(1, 0) : at(0, 0)) - 2 * at(0, 0) + (i > 1 ? at(-1, 0) : at(0, 0)));
          lp += z2 * (at(0, 1) - 2 * at(0, 0) + at(0, -1));
          worst = std::max(worst, std::abs(lp - rhs[g.idx(i, j, k)])), size = std::max(size, std::abs(rhs[g.idx(i, j, k)]));
        }
    std::printf("stretched y, %s y: max residual %.2e of max rhs %.2e\n", f.singular() ? "neumann" : "dirichlet", worst, size);
    EXPECT_LT(worst, 1e-10 * size);
  }
  EXPECT_THROW(direct_solve<double>("poisson/fft", "cpu_serial", g, axes(F::periodic, F::neumann, F::periodic),
                                    random_rhs(g, 1), 1.0, Backend::cpu_serial, yf.data()),
               std::invalid_argument);
}

// The null space: a right-hand side with a mean gives the solution of the mean-free one, of mean zero.
TEST(PoissonFft, NullSpaceRemovesTheRightHandSidesMeanAndZeroesTheSolutionsMean) {
  const Grid g{10, 8, 6, 1, 1, 1};
  for (const PoissonFaces& f : {axes(F::neumann, F::neumann, F::neumann), axes(F::periodic, F::neumann, F::periodic)}) {
    std::vector<double> rhs = random_rhs(g, 5);
    subtract_interior(rhs.data(), interior_mean(rhs.data(), g), g);
    std::vector<double> shifted = rhs;
    subtract_interior(shifted.data(), -3.0, g);  // + 3 everywhere
    for (const char* stage : {"poisson/fft", "poisson/fft2_tridiag"}) {
      const std::vector<double> a = direct_solve<double>(stage, "cpu_serial", g, f, rhs);
      const std::vector<double> b = direct_solve<double>(stage, "cpu_serial", g, f, shifted);
      EXPECT_NEAR(interior_mean(b.data(), g), 0.0, 1e-13) << stage;
      EXPECT_LT(test::max_abs_diff(a, b), 1e-12 * test::max_abs(a)) << stage;
      EXPECT_GT(test::max_abs(a), 1e-3) << stage;  // not the zero solution
    }
  }
}

TEST(PoissonFft, TheTwoMethodsAgree) {
  const Grid g{9, 13, 7, 0.9, 1.3, 0.7};
  const std::vector<double> rhs = random_rhs(g, 9);
  for (const FaceCase& fc : kFaceCases) {
    if (!fc.tridiagonal_ok) continue;
    std::vector<double> a = direct_solve<double>("poisson/fft", "cpu_serial", g, fc.faces, rhs);
    std::vector<double> b = direct_solve<double>("poisson/fft2_tridiag", "cpu_serial", g, fc.faces, rhs);
    EXPECT_LT(test::max_abs_diff(a, b), 1e-12 * test::max_abs(a)) << fc.name;
  }
}

// The real path of cufft_r2c (fft_real.hpp) on the host, a plain DFT in place of cuFFT's R2C and C2R
// (its layout: the half spectrum of the first axis of more than one cell): the GPU kernels' own pack,
// orbit and unpack numerics against the CPU reference, on even, odd, 2D and x-of-one-cell grids.
using Cd = Complex<double>;
void dft_axis(std::vector<Cd>& w, const int len[3], int axis, double sign) {
  const double pi = 3.14159265358979323846;
  const int n = len[axis];
  const std::size_t stride = axis == 0 ? 1 : axis == 1 ? std::size_t(len[0]) : std::size_t(len[0]) * len[1];
  std::vector<Cd> line(n);
  for (std::size_t start = 0; start < w.size(); ++start) {
    if ((start / stride) % n != 0) continue;  // the first point of each line of the axis
    for (int j = 0; j < n; ++j) line[j] = w[start + j * stride];
    for (int k = 0; k < n; ++k) {
      Cd sum{0, 0};
      for (int j = 0; j < n; ++j)
        sum = sum + Cd{line[j].re * std::cos(2 * pi * j * k / n) - sign * line[j].im * std::sin(2 * pi * j * k / n),
                       line[j].im * std::cos(2 * pi * j * k / n) + sign * line[j].re * std::sin(2 * pi * j * k / n)};
      w[start + k * stride] = sum;
    }
  }
}
std::vector<double> real_path_solve(const Grid& g, const PoissonFaces& f, const std::vector<double>& rhs) {
  RealSpectrumShape s{{g.nx, g.ny, g.nz}, real_half_axis(g), {}};
  for (int a = 0; a < 3; ++a) s.t[a] = axis_transform(f, a, nullptr);
  const std::size_t n = g.interior_points();
  const auto coords = [&](std::size_t w, int q[3]) {
    q[0] = int(w % g.nx), q[1] = int(w / g.nx % g.ny), q[2] = int(w / g.nx / g.ny);
  };
  std::vector<Cd> full(n);
  for (std::size_t w = 0; w < n; ++w) {  // real_pack_kernel
    int q[3];
    bool flip;
    coords(w, q);
    const double v = rhs[g.idx(q[0] + 1, q[1] + 1, q[2] + 1)];
    full[s.real_index(q, &flip)] = {flip ? -v : v, 0};
  }
  for (int a = 0; a < 3; ++a) dft_axis(full, s.len, a, -1);
  std::vector<Cd> half(s.complex_points());
  for (std::size_t w = 0; w < n; ++w) {
    int q[3];
    coords(w, q);
    if (q[s.half] <= s.len[s.half] / 2) half[s.complex_index(q)] = full[w];
  }
  std::vector<double> eig;
  std::vector<Cd> tw;
  build_real_tables(g, s, eig, tw);
  for (std::size_t o = 0; o < s.orbits(); ++o) solve_spectral_orbit(half.data(), s, RealSpectrumTables<double>{eig.data(), tw.data()}, o);
  for (std::size_t w = 0; w < n; ++w) {  // the full spectrum again, by conjugate symmetry
    int q[3], m[3];
    coords(w, q);
    for (int a = 0; a < 3; ++a) m[a] = (s.len[a] - q[a]) % s.len[a];
    const bool stored = q[s.half] <= s.len[s.half] / 2;
    const Cd v = half[s.complex_index(stored ? q : m)];
    full[w] = stored ? v : Cd{v.re, -v.im};
  }
  for (int a = 0; a < 3; ++a) dft_axis(full, s.len, a, +1);
  std::vector<double> p(g.padded_points(), 0.0);
  for (std::size_t w = 0; w < n; ++w) {  // real_unpack_kernel
    int q[3];
    bool flip;
    coords(w, q);
    const double v = full[s.real_index(q, &flip)].re / double(n);
    p[g.idx(q[0] + 1, q[1] + 1, q[2] + 1)] = flip ? -v : v;
  }
  return p;
}

TEST(PoissonFft, RealPathOnTheHostEqualsTheReference) {
  for (const Grid& g : {Grid{12, 10, 14, 1.2, 0.7, 2.1}, Grid{9, 7, 11, 1, 1, 1}, Grid{16, 1, 12, 1, 1, 1}, Grid{1, 8, 5, 1, 1, 1}})
    for (const FaceCase& fc : kFaceCases) {
      const std::vector<double> rhs = random_rhs(g, 11);
      const std::vector<double> full = direct_solve<double>("poisson/fft", "cpu_serial", g, fc.faces, rhs);
      std::vector<double> ref(full.size(), 0.0);  // interior only: the real path's test leaves ghosts out
      for (int k = 1; k <= g.nz; ++k)
        for (int j = 1; j <= g.ny; ++j)
          for (int i = 1; i <= g.nx; ++i) ref[g.idx(i, j, k)] = full[g.idx(i, j, k)];
      const std::vector<double> p = real_path_solve(g, fc.faces, rhs);
      const double diff = test::max_abs_diff(p, ref) / test::max_abs(ref);
      std::printf("real path %2dx%2dx%2d %-28s max diff / max |p| %.1e\n", g.nx, g.ny, g.nz, fc.name, diff);
      EXPECT_LT(diff, 1e-12) << g.nx << "x" << g.ny << "x" << g.nz << " " << fc.name;
    }
}

TEST(PoissonFft, SerialAndOpenMpAgreeBitForBit) {
  const Grid g{11, 6, 9, 1, 1, 1};
  const std::vector<double> rhs = random_rhs(g, 4);
  for (const char* stage : {"poisson/fft", "poisson/fft2_tridiag"}) {
    const PoissonFaces f = axes(F::periodic, F::neumann, F::dirichlet);
    EXPECT_EQ(direct_solve<double>(stage, "cpu_serial", g, f, rhs),
              direct_solve<double>(stage, "cpu_omp", g, f, rhs, 1.0, Backend::cpu_omp))
        << stage;
  }
}

// A host PoissonSystem: the equation on host arrays, the residual for the tolerance report.
class HostSystem final : public PoissonSystem<double> {
 public:
  HostSystem(const Grid& g, const PoissonFaces& f, std::vector<double> rhs, bool decomposed = false)
      : g_(g), f_(f), rhs_(std::move(rhs)), p_(g.padded_points(), 0.0), decomposed_(decomposed) {}
  void sweep() override {}
  double sweep_residual_rms() override {
    std::vector<double> r(g_.padded_points(), 0.0);
    residual_host(r.data(), p_.data(), rhs_.data(), 1.0, g_);
    return interior_rms(r.data(), g_);
  }
  double rhs_rms() override { return interior_rms(rhs_.data(), g_); }
  void accept_sweep() override {}
  PoissonEquation<double> equation() override {
    PoissonEquation<double> e;
    e.grid = g_, e.faces = f_, e.p = p_.data(), e.rhs = rhs_.data(), e.decomposed = decomposed_;
    e.exec.backend = Backend::cpu_serial;
    return e;
  }
  const std::vector<double>& p() const { return p_; }

 private:
  Grid g_;
  PoissonFaces f_;
  std::vector<double> rhs_, p_;
  bool decomposed_;
};

TEST(PoissonFft, MethodsSolveOnceAndReportTheResidual) {
  const Grid g{8, 6, 10, 1, 1, 1};
  PoissonSettings s;
  s.tolerance = 1e-10;
  for (const char* method : {"fft", "fft2_tridiag"}) {
    HostSystem sys(g, axes(F::dirichlet, F::neumann, F::dirichlet), random_rhs(g, 2));
    const PoissonReport r = make_poisson_method<double>(method, s)->solve(sys);
    EXPECT_EQ(r.iterations, 1) << method;
    EXPECT_LT(r.relative_residual, 1e-12) << method;
    EXPECT_GT(test::max_abs(sys.p()), 1e-4) << method;
  }
}

void expect_refusal(const char* method, const PoissonFaces& f, bool decomposed, const std::string& words) {
  const Grid g{8, 6, 10, 1, 1, 1};
  HostSystem sys(g, f, random_rhs(g, 2), decomposed);
  try {
    make_poisson_method<double>(method, {})->solve(sys);
    ADD_FAILURE() << method << " solved what it should refuse (" << words << ")";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(PoissonFft, RefusesWhatItCannotSolveByName) {
  PoissonFaces mixed = axes(F::neumann, F::neumann, F::neumann);
  mixed.face[1][1] = F::dirichlet;
  expect_refusal("fft", mixed, false, "faces neumann/dirichlet on axis y");
  expect_refusal("fft2_tridiag", mixed, false, "faces neumann/dirichlet on axis y");
  PoissonFaces half_periodic = axes(F::neumann, F::neumann, F::neumann);
  half_periodic.face[2][0] = F::periodic;
  expect_refusal("fft", half_periodic, false, "faces periodic/neumann on axis z");
  expect_refusal("fft2_tridiag", axes(F::periodic, F::periodic, F::periodic), false, "periodic y faces");
  expect_refusal("fft", axes(F::neumann, F::neumann, F::neumann), true, "cannot solve a decomposed equation");
}

// The projection solver with the direct solve reaches the same flow as with Jacobi iterated to a
// tight tolerance (the same discrete pressure equation), on the cavity and on Taylor-Green.
void expect_same_flow(const Case& c, int steps) {
  SolverOptions jacobi;
  jacobi.jacobi_tol = 1e-12, jacobi.jacobi_iterations = 200000;
  const auto ref = test::run_case<double>(c, "cpu-serial", steps, jacobi);
  for (const char* method : {"fft", "fft2_tridiag"}) {
    SolverOptions o;
    o.poisson_method = method;
    if (std::string(method) == "fft2_tridiag" && c.bc.face[1][0].type == FaceType::periodic) continue;
    const auto got = test::run_case<double>(c, "cpu-serial", steps, o);
    // Relative to the largest velocity component (the cavity's span velocity v is round-off).
    double scale = 0;
    for (const char* field : {"u", "v", "w"}) scale = std::max(scale, test::max_abs(ref.state.field(field)));
    for (const char* field : {"u", "v", "w"}) {
      const double diff = test::max_abs_diff(got.state.field(field), ref.state.field(field));
      std::printf("%s %s: max |%s - jacobi(1e-12)| / max |velocity| = %.2e\n", c.name.c_str(), method, field, diff / scale);
      EXPECT_LT(diff, 1e-8 * scale) << c.name << " " << method << " " << field;
    }
  }
}

TEST(PoissonFft, ProjectionCavityMatchesTightJacobi) {
  CaseOptions o;
  o.name = "cavity", o.nx = 16, o.ny = 4, o.nz = 16, o.re = 100;
  expect_same_flow(make_case(o), 20);
}

TEST(PoissonFft, ProjectionTaylorGreenMatchesTightJacobi) {
  CaseOptions o;
  o.name = "taylor_green", o.nx = 16, o.ny = 1, o.nz = 16, o.re = 100, o.dt = 0.01;
  expect_same_flow(make_case(o), 20);
}

// The traffic model of the GPU variants (docs/solvers/poisson_fft.md) in fine-grid Jacobi-sweep
// equivalents (a sweep moves 3 words a point): printed for the report; fusing removes traffic, and the
// fused tridiagonal variant is within the 20 by its model (the measured ratio comes from the GPU).
TEST(PoissonFft, TrafficModelInSweepEquivalents) {
  const struct {
    const char* name;
    PoissonFaces faces;
  } sets[] = {{"neumann (cavity)", axes(F::neumann, F::neumann, F::neumann)},
              {"periodic (Taylor-Green)", axes(F::periodic, F::periodic, F::periodic)},
              {"periodic x, z (channel)", axes(F::periodic, F::neumann, F::periodic)}};
  const Grid g{256, 256, 256, 1, 1, 1};
  const double sweep = 3.0 * 8 * double(g.interior_points());
  for (const auto& set : sets)
    for (bool tridiagonal : {false, true}) {
      if (tridiagonal && set.faces.face[1][0] == F::periodic) continue;
      const double separate = fft_solve_traffic_bytes(g, set.faces, 8, tridiagonal, DirectPasses::separate) / sweep;
      const double fused = fft_solve_traffic_bytes(g, set.faces, 8, tridiagonal, DirectPasses::fused) / sweep;
      std::printf("%-24s %-12s sweep equivalents by traffic: separate passes %.1f, fused %.1f", set.name,
                  tridiagonal ? "fft2_tridiag" : "fft", separate, fused);
      EXPECT_LT(fused, separate);
      if (tridiagonal) {
        EXPECT_LE(fused, 20.0);
      } else {  // the real path: 5 passes of its own and 2 cuFFT passes an axis, about 2 words each
        const double real = fft_solve_traffic_bytes(g, set.faces, 8, false, DirectPasses::real) / sweep;
        std::printf(", real (cufft_r2c) %.1f", real);
        EXPECT_LT(real, fused / 3);
      }
      std::printf("\n");
    }
  // A 2D grid (ny = 1) transforms two axes.
  const PoissonFaces n3 = axes(F::neumann, F::neumann, F::neumann);
  EXPECT_LT(fft_solve_traffic_bytes(Grid{256, 1, 256, 1, 1, 1}, n3, 8, false, DirectPasses::separate),
            fft_solve_traffic_bytes(Grid{256, 2, 256, 1, 1, 1}, n3, 8, false, DirectPasses::separate) / 2);
  // The model pass by pass, as the variants run them (the byte model of each kernel for the profile).
  for (DirectPasses p : {DirectPasses::separate, DirectPasses::fused, DirectPasses::real}) {
    std::printf("fft neumann 256^3 passes (%s):", p == DirectPasses::real ? "real" : p == DirectPasses::fused ? "fused" : "separate");
    for (const DirectSolvePass& pass : fft_solve_passes(g, n3, false, p)) std::printf(" %s %.2f;", pass.name.c_str(), pass.words);
    std::printf("\n");
  }
}

// The GPU variants against the CPU reference (verify's fixtures: odd grids, every workload, both
// precisions). Skips without a GPU.
TEST(PoissonFft, GpuMatchesCpuReference) {
  NSB_NEEDS_GPU();
  int checked = 0;
  for (const char* stage : {"poisson/fft", "poisson/fft2_tridiag"}) {
    VerifyOptions vo;
    vo.stage = stage;
    for (const VerifyResult& r : verify_variants(vo)) {
      ++checked;
      std::printf("%s %s %s %s: max rel diff %.2e (tol %.1e)\n", r.id.c_str(), r.precision.c_str(), r.grid.c_str(),
                  r.scheme.c_str(), r.max_rel_diff, r.tolerance);
      EXPECT_TRUE(r.pass) << r.id << " " << r.precision << " " << r.grid << " " << r.scheme << ": " << r.message;
    }
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace nsb
