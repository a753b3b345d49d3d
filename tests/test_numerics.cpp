// The shared formulas and the CPU reference stages: flop counts, boundary rules, the Jacobi fixed
// point, projection quality, serial vs OpenMP and float vs double agreement.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "projection/models.hpp"
#include "projection/point_ops.hpp"
#include "test_support.hpp"

namespace nsb {
namespace {

TEST(Numerics, FlopCountsFollowTheFormulas) {
  // Counted by running the formulas on an operation-counting type: these numbers change only when
  // the formulas do, and then on purpose.
  // Momentum: 201 / 210 / 282 while the directions' scale factors (inv_h/4, 2 nu inv_h, ...) were
  // multiplied per point; formed once in MomentumCoef they are 7 (13 with upwind) fewer a component.
  EXPECT_EQ(flops_per_point(ProjectionStage::momentum, TimeScheme::euler, false), 180);
  EXPECT_EQ(flops_per_point(ProjectionStage::momentum, TimeScheme::adams_bashforth2, false), 189);
  EXPECT_EQ(flops_per_point(ProjectionStage::momentum, TimeScheme::euler, true), 243);
  EXPECT_EQ(flops_per_point(ProjectionStage::divergence, TimeScheme::euler), 8);
  EXPECT_EQ(flops_per_point(ProjectionStage::pressure, TimeScheme::euler), 11);
  EXPECT_EQ(flops_per_point(ProjectionStage::correction, TimeScheme::euler), 12);
  EXPECT_EQ(flops_per_point(ProjectionStage::velocity_bc, TimeScheme::euler), 0);
}

TEST(Numerics, ByteModelsCountEachInputAndOutputOnce) {
  const Grid g{10, 20, 30, 1, 1, 1};
  const ZRange zr = ZRange::interior(g);
  EXPECT_EQ(work_model(ProjectionStage::pressure, g, zr, 8, TimeScheme::euler).bytes, 6000.0 * 3 * 8);
  EXPECT_EQ(work_model(ProjectionStage::momentum, g, zr, 4, TimeScheme::euler).bytes, 6000.0 * 6 * 4);
  EXPECT_EQ(work_model(ProjectionStage::momentum, g, zr, 4, TimeScheme::adams_bashforth2).bytes, 6000.0 * 12 * 4);
  EXPECT_EQ(work_model(ProjectionStage::reduce, g, zr, 4, TimeScheme::euler, false, false).bytes, 6000.0 * 4);
  EXPECT_EQ(work_model(ProjectionStage::pressure, g, ZRange{3, 5}, 4, TimeScheme::euler).points, 10.0 * 20 * 2);
}

// Random field with every boundary rule (walls, a moving one, free-slip, periodic).
StageCall<double> bc_call(std::vector<std::vector<double>>& f, const Grid& g, BoundarySpec& b) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(0.5, 1.5);
  for (auto& a : f) {
    a.resize(g.padded_points());
    for (double& x : a) x = d(rng);
  }
  b.face[0][0].type = b.face[0][1].type = FaceType::wall;
  b.face[0][1].wall_velocity[1] = 0.7;
  b.face[1][0].type = b.face[1][1].type = FaceType::periodic;
  b.face[2][0].type = FaceType::free_slip;
  b.face[2][1].type = FaceType::wall;
  b.face[2][1].wall_velocity[0] = 1.0;
  StageCall<double> c;
  c.grid = g;
  c.bc = BoundaryRules<double>::make(b);
  c.f.us = f[0].data(), c.f.vs = f[1].data(), c.f.ws = f[2].data(), c.f.p = f[3].data();
  return c;
}

TEST(Numerics, BoundaryRulesGiveTheWallValues) {
  const Grid g{6, 5, 7, 1, 1, 1};
  std::vector<std::vector<double>> f(4);
  BoundarySpec b;
  const StageCall<double> c = bc_call(f, g, b);
  Registry::instance().get("projection/velocity_bc", "cpu_serial").fn<StageCall<double>>()(c);
  Registry::instance().get("projection/pressure_bc", "cpu_serial").fn<StageCall<double>>()(c);
  const auto& u = f[0];
  const auto& v = f[1];
  const auto& w = f[2];
  const auto& p = f[3];
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j) {
      EXPECT_EQ(u[g.idx(0, j, k)], 0.0);     // normal velocity on the x walls
      EXPECT_EQ(u[g.idx(g.nx, j, k)], 0.0);
      EXPECT_NEAR(0.5 * (v[g.idx(g.nx, j, k)] + v[g.idx(g.nx + 1, j, k)]), 0.7, 1e-15);  // moving east wall
      EXPECT_NEAR(0.5 * (w[g.idx(0, j, k)] + w[g.idx(1, j, k)]), 0.0, 1e-15);            // still west wall
      EXPECT_EQ(p[g.idx(0, j, k)], p[g.idx(1, j, k)]);                                    // Neumann pressure
    }
  for (int k = 1; k <= g.nz; ++k)
    for (int i = 1; i <= g.nx; ++i) {
      EXPECT_EQ(u[g.idx(i, 0, k)], u[g.idx(i, g.ny, k)]);  // periodic in y
      EXPECT_EQ(p[g.idx(i, g.ny + 1, k)], p[g.idx(i, 1, k)]);
    }
  for (int j = 1; j <= g.ny; ++j)
    for (int i = 1; i < g.nx; ++i) {
      EXPECT_EQ(w[g.idx(i, j, 0)], 0.0);                        // free-slip bottom: no normal flow
      EXPECT_EQ(u[g.idx(i, j, 0)], u[g.idx(i, j, 1)]);          // ... and no shear
      EXPECT_NEAR(0.5 * (u[g.idx(i, j, g.nz)] + u[g.idx(i, j, g.nz + 1)]), 1.0, 1e-15);  // the lid
    }
}

TEST(Numerics, JacobiLeavesAnExactSolutionUnchanged) {
  // If div/dt equals the discrete Laplacian of p, p is a fixed point of the sweep.
  const Grid g{9, 7, 8, 0.9, 1.4, 0.4};
  const GridCoef<double> k = make_grid_coef<double>(g);
  std::vector<double> p(g.padded_points()), div(g.padded_points(), 0.0), pn(g.padded_points(), 0.0);
  for (int kk = 0; kk < g.NZ(); ++kk)
    for (int j = 0; j < g.NY(); ++j)
      for (int i = 0; i < g.NX(); ++i) p[g.idx(i, j, kk)] = std::sin(0.3 * i) * std::cos(0.5 * j) + 0.1 * kk * kk;
  const double dt = 0.01;
  for (int kk = 1; kk <= g.nz; ++kk)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) {
        const std::size_t n = g.idx(i, j, kk);
        const double lap = (p[n + 1] - 2 * p[n] + p[n - 1]) * k.dxi2 + (p[n + g.sy()] - 2 * p[n] + p[n - g.sy()]) * k.dyi2 +
                           (p[n + g.sz()] - 2 * p[n] + p[n - g.sz()]) * k.dzi2;
        div[n] = dt * lap;
      }
  StageCall<double> c;
  c.grid = g;
  c.zr = ZRange::interior(g);
  c.prm.dt = dt;
  c.prm.coef = k;
  c.f.p = p.data(), c.f.p_new = pn.data(), c.f.div = div.data();
  Registry::instance().get("projection/pressure", "cpu_serial").fn<StageCall<double>>()(c);
  for (int kk = 1; kk <= g.nz; ++kk)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i) EXPECT_NEAR(pn[g.idx(i, j, kk)], p[g.idx(i, j, kk)], 1e-12);
}

Case small_cavity(int n = 32) {
  CaseOptions o;
  o.name = "cavity", o.nx = n, o.ny = 4, o.nz = n, o.re = 100;
  return make_case(o);
}

TEST(Numerics, SerialAndOpenMPAreBitwiseEqual) {
  // Same formulas, same order per point: threads change nothing (no reduction feeds back here).
  const Case c = small_cavity();
  SolverOptions o;
  o.threads = 2;
  const auto a = test::run_case<double>(c, "cpu-serial", 50, o);
  const auto b = test::run_case<double>(c, "cpu-omp", 50, o);
  EXPECT_EQ(test::max_abs_diff(a.state.field("u"), b.state.field("u")), 0.0);
  EXPECT_EQ(test::max_abs_diff(a.state.field("w"), b.state.field("w")), 0.0);
  EXPECT_EQ(test::max_abs_diff(a.state.field("p"), b.state.field("p")), 0.0);
}

TEST(Numerics, FloatAgreesWithDouble) {
  const Case c = small_cavity();
  const auto d = test::run_case<double>(c, "cpu-omp", 200);
  const auto f = test::run_case<float>(c, "cpu-omp", 200);
  double du = 0, dp = 0;
  for (std::size_t i = 0; i < d.state.field("u").size(); ++i) {
    du = std::max(du, std::abs(double(f.state.field("u")[i]) - d.state.field("u")[i]));
    dp = std::max(dp, std::abs(double(f.state.field("p")[i]) - d.state.field("p")[i]));
  }
  std::printf("cavity 32x4x32, 200 steps: float vs double max |du| = %.3e, max |dp| = %.3e (p scale %.3f)\n", du, dp,
              test::max_abs(d.state.field("p")));
  EXPECT_LT(du, 1e-5);  // velocity scale 1
  EXPECT_LT(dp, 1e-4 * test::max_abs(d.state.field("p")));
}

TEST(Numerics, ProjectionLeavesTheDivergenceTheSolveAllows) {
  // div(u^{n+1}) = -dt * (residual of the pressure equation): a tighter solve, a smaller divergence.
  const Case c = small_cavity(24);
  double previous = INFINITY;
  for (double tol : {1e-2, 1e-4, 1e-6, 1e-8}) {
    SolverOptions o;
    o.jacobi_tol = tol;
    o.jacobi_iterations = 100000;
    o.check_every = 1;
    ProjectionSolver<double> s(c, resolve(find_recipe("projection", "cpu-serial"), {}), o, nullptr);
    s.load(initial_state<double>(c));
    for (int n = 0; n < 5; ++n) s.step();
    const double div = s.divergence_rms();
    std::printf("Jacobi tolerance %.0e: %d sweeps, RMS div %.3e, dt * last residual %.3e\n", tol,
                s.last_jacobi_iterations(), div, c.dt * s.last_absolute_residual());
    EXPECT_LE(div, c.dt * s.last_absolute_residual() * (1 + 1e-9));
    EXPECT_LT(div, previous);
    previous = div;
  }
  EXPECT_LT(previous, 1e-7);
}

}  // namespace
}  // namespace nsb
