// The CPU reference against physics: Ghia et al. (1982) for the lid-driven cavity, the exact
// Poiseuille profile, the exact Taylor-Green decay and second-order convergence on refinement.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "test_support.hpp"

namespace nsb {
namespace {

Case cavity(int n, double re) {
  CaseOptions o;
  o.name = "cavity", o.nx = n, o.ny = 4, o.nz = n, o.re = re;
  return make_case(o);
}

TEST(Physics, CavityRe100MatchesGhia) {
  const Case c = cavity(64, 100);
  const auto out = test::run_case<double>(c, "cpu-omp", 40000, {}, 1e-4);
  ASSERT_TRUE(out.steady) << "not steady after " << out.steps << " steps";
  const Validation v = validate(c, out.state);
  std::printf("cavity 64x4x64 Re 100: steady after %d steps (t = %.2f); Ghia max |du| = %.4f, RMS = %.4f\n", out.steps,
              out.state.time, v.max_error, v.rms_error);
  EXPECT_EQ(v.kind, "ghia");
  EXPECT_EQ(v.u_profile.size(), 17u);
  EXPECT_EQ(v.w_profile.size(), 17u);
  EXPECT_LT(v.max_error, 0.02);
  EXPECT_LT(v.rms_error, 0.01);
}

// Minutes on two cores: `ctest -L long` runs it.
TEST(Physics, DISABLED_CavityRe1000MatchesGhia) {
  const Case c = cavity(128, 1000);
  const auto out = test::run_case<double>(c, "cpu-omp", 200000, {}, 1e-4);
  ASSERT_TRUE(out.steady);
  const Validation v = validate(c, out.state);
  std::printf("cavity 128x4x128 Re 1000: steady after %d steps; Ghia max |du| = %.4f, RMS = %.4f\n", out.steps,
              v.max_error, v.rms_error);
  EXPECT_LT(v.max_error, 0.06);
  EXPECT_LT(v.rms_error, 0.03);
}

// With the ghost rule u_0 = -u_1 the discrete steady solution is the exact parabola shifted by
// exactly U (dz/H)^2 (the second difference of a quadratic is exact; only the wall rule errs), so the
// error is predicted, not only bounded, and halves twice per refinement.
double channel_error(int nz) {
  CaseOptions o;
  o.name = "channel", o.nx = 4, o.ny = 1, o.nz = nz, o.re = 10;
  const Case c = make_case(o);
  const auto out = test::run_case<double>(c, "cpu-serial", 200000, {}, 1e-9);
  EXPECT_TRUE(out.steady);
  const Validation v = validate(c, out.state);
  const double predicted = 1.0 / (double(nz) * nz);
  std::printf("channel nz = %d: RMS error %.4e, predicted (dz/H)^2 = %.4e, %d steps\n", nz, v.rms_error, predicted,
              out.steps);
  EXPECT_NEAR(v.max_error, predicted, 0.02 * predicted);
  return v.rms_error;
}

TEST(Physics, PoiseuilleProfileToDiscretisationAccuracy) {
  const double e16 = channel_error(16), e32 = channel_error(32);
  const double order = std::log2(e16 / e32);
  std::printf("channel observed order %.3f\n", order);
  EXPECT_NEAR(order, 2.0, 0.05);
}

double taylor_green_error(int n, double* energy_ratio, double* energy_exact) {
  CaseOptions o;
  o.name = "taylor_green", o.nx = n, o.ny = 1, o.nz = n, o.re = 100, o.dt = 0.01;
  const Case c = make_case(o);
  SolverOptions so;
  so.scheme = TimeScheme::adams_bashforth2;
  so.jacobi_tol = 1e-5;
  so.jacobi_iterations = 20000;
  const auto out = test::run_case<double>(c, "cpu-omp", 100, so);
  const Validation v = validate(c, out.state);
  *energy_ratio = v.energy_ratio;
  *energy_exact = v.energy_ratio_exact;
  std::printf("Taylor-Green %dx1x%d, t = %.2f: RMS velocity error %.4e, E/E0 %.6f (exact %.6f)\n", n, n,
              out.state.time, v.rms_error, v.energy_ratio, v.energy_ratio_exact);
  return v.rms_error;
}

TEST(Physics, TaylorGreenDecayAndSecondOrderConvergence) {
  double er[3], ex[3];
  const double e16 = taylor_green_error(16, &er[0], &ex[0]);
  const double e32 = taylor_green_error(32, &er[1], &ex[1]);
  const double e64 = taylor_green_error(64, &er[2], &ex[2]);
  const double p1 = std::log2(e16 / e32), p2 = std::log2(e32 / e64);
  std::printf("Taylor-Green observed order %.3f (16->32), %.3f (32->64)\n", p1, p2);
  EXPECT_GE(p1, 1.8);
  EXPECT_LE(p1, 2.2);
  EXPECT_GE(p2, 1.8);
  EXPECT_LE(p2, 2.2);
  // Kinetic energy follows exp(-4 nu t), more closely on finer grids.
  EXPECT_NEAR(er[2] / ex[2], 1.0, 1e-4);
  EXPECT_LT(std::abs(er[2] - ex[2]), std::abs(er[0] - ex[0]));
}

}  // namespace
}  // namespace nsb
