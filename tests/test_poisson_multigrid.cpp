// Geometric multigrid (poisson/multigrid.hpp): the hierarchy and its refusals, cycles to 1e-6 that do
// not grow with the grid, second order against manufactured solutions for every face type, the
// null-space rule, serial = OpenMP, the projection solver with mg against Jacobi, and on a GPU the
// method against its CPU reference (skipped visibly without one).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "device.hpp"
#include "fields.hpp"
#include "poisson/host_ops.hpp"
#include "poisson/multigrid.hpp"
#include "poisson/multigrid_call.hpp"
#include "registry.hpp"
#include "poisson/poisson.hpp"
#include "stream_graph.hpp"
#include "test_support.hpp"

namespace nsb {
namespace {

// The PoissonSystem interface alone: multigrid must solve from equation() and never ask for the
// solver's sweep.
template <class T>
struct EquationOnly final : PoissonSystem<T> {
  PoissonEquation<T> eq;
  void sweep() override { throw std::logic_error("multigrid asked for the solver's sweep"); }
  double sweep_residual_rms() override { throw std::logic_error("multigrid asked for the sweep residual"); }
  double rhs_rms() override { throw std::logic_error("multigrid asked for the solver's rhs RMS"); }
  void accept_sweep() override { throw std::logic_error("multigrid asked to accept a sweep"); }
  PoissonEquation<T> equation() override { return eq; }
};

PoissonFaces all_faces(PoissonFace f) {
  PoissonFaces out;
  for (auto& axis : out.face) axis[0] = axis[1] = f;
  return out;
}
PoissonFaces mixed_faces() {  // one type per axis (manufactured_poisson needs pairs)
  PoissonFaces out;
  out.face[0][0] = out.face[0][1] = PoissonFace::periodic;
  out.face[1][0] = out.face[1][1] = PoissonFace::neumann;
  out.face[2][0] = out.face[2][1] = PoissonFace::dirichlet;
  return out;
}

Grid cube(int n) { return Grid{n, n, n, 1.0, 1.0, 1.0}; }

// A rough right-hand side: random values at every interior point (every frequency present).
template <class T>
std::vector<T> random_rhs(const Grid& g, unsigned seed) {
  std::vector<T> r = random_values<T>(g.padded_points(), seed);
  return r;
}

template <class T>
struct Solved {
  std::vector<T> p;
  PoissonReport report;
};

// Solves L p = scale * rhs from p = 0 with a method, on host arrays or (cuda) through device copies.
template <class T>
Solved<T> solve(const std::string& method, const Grid& g, const PoissonFaces& faces, const std::vector<T>& rhs,
                PoissonSettings s, Backend b = Backend::cpu_serial, T scale = T(1)) {
  const bool gpu = b == Backend::cuda;
  Buffer<T> p(g.padded_points(), gpu, "test p"), f(g.padded_points(), gpu, "test rhs");
  f.upload(rhs);
  p.upload(std::vector<T>(g.padded_points(), T(0)));
  void* stream = gpu ? device::stream_create() : nullptr;
  void* scratch = nullptr;
  EquationOnly<T> sys;
  sys.eq.grid = g, sys.eq.faces = faces, sys.eq.p = p.get(), sys.eq.rhs = f.get(), sys.eq.rhs_scale = scale;
  sys.eq.exec = Exec{b, 2, stream, scratch, 0};
  auto m = make_poisson_method<T>(method, s);
  Solved<T> out;
  out.report = m->solve(sys);
  if (gpu) device::stream_sync(stream), device::stream_destroy(stream);
  out.p = p.download();
  return out;
}

// RMS(scale*rhs - L p) / RMS(scale*rhs) with the rhs mean removed where the problem is singular (the
// family's residual convention), computed on the host from the returned p and its ghosts.
template <class T>
double relative_residual(const Grid& g, const PoissonFaces& faces, const std::vector<T>& p, std::vector<T> rhs) {
  if (faces.singular()) subtract_interior(rhs.data(), interior_mean(rhs.data(), g), g);
  std::vector<T> q = p, r(g.padded_points(), T(0));
  apply_faces_host(q.data(), g, faces);
  EXPECT_EQ(q, p) << "the solution's ghosts are not set by the faces";
  residual_host(r.data(), q.data(), rhs.data(), T(1), g);
  return interior_rms(r.data(), g) / interior_rms(rhs.data(), g);
}

PoissonSettings to_tolerance(double tol, int cap = 40) {
  PoissonSettings s;
  s.iterations = cap, s.tolerance = tol, s.check_every = 1;
  return s;
}

TEST(MultigridLevels, HalvesEveryAxisDownToAFewCells) {
  const std::vector<Grid> l = mg_levels(cube(64));
  ASSERT_EQ(l.size(), 6u);  // 64 32 16 8 4 2
  EXPECT_EQ(l.back().nx, 2);
  const std::vector<Grid> m = mg_levels(Grid{96, 48, 96});
  EXPECT_EQ(m.back().nx, 6);  // 48 -> 24 -> 12 -> 6 -> 3 stops: 6x3x6
  EXPECT_EQ(m.back().ny, 3);
  EXPECT_EQ(mg_levels(cube(7)).size(), 1u);  // small enough to be its own coarsest level
  EXPECT_EQ(mg_coarse_sweeps(cube(2)), 16);
}

TEST(MultigridLevels, RefusesAGridItCannotCoarsenNamingIt) {
  for (const Grid& g : {cube(100), Grid{36, 36, 36}, Grid{512, 4, 4}}) {
    try {
      mg_levels(g);
      ADD_FAILURE() << "accepted " << g.nx << "x" << g.ny << "x" << g.nz;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      const std::string name = std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
      EXPECT_NE(what.find("cannot coarsen grid " + name), std::string::npos) << what;
      EXPECT_NE(what.find("e.g. 64, 96, 128"), std::string::npos) << what;
    }
  }
  try {
    mg_levels(cube(100));
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("stops at 25x25x25"), std::string::npos) << e.what();
  }
}

TEST(Multigrid, RefusesADecomposedEquationAndBadKernelsBeforeSolving) {
  const Grid g = cube(8);
  EquationOnly<double> sys;
  std::vector<double> p(g.padded_points(), 0.0), f(g.padded_points(), 1.0);
  sys.eq.grid = g, sys.eq.p = p.data(), sys.eq.rhs = f.data(), sys.eq.decomposed = true;
  auto m = make_poisson_method<double>("mg", {});
  EXPECT_THROW(m->solve(sys), std::invalid_argument);
  sys.eq.decomposed = false;
  sys.eq.grid = cube(100);
  EXPECT_THROW(m->solve(sys), std::invalid_argument);
  PoissonSettings s;
  s.kernels["poisson/mg_rbgs"] = "no_such_variant";
  sys.eq.grid = g;
  EXPECT_THROW(make_poisson_method<double>("mg", s)->solve(sys), std::runtime_error);
}

// Cycles to reduce the residual by 1e-6 from zero: bounded, and the same on 32^3 and 64^3 (the point
// of multigrid). A rough (random) right-hand side, singular and not.
TEST(Multigrid, CyclesToOneInAMillionDoNotGrowWithTheGrid) {
  for (const char* method : {"mg", "mg_f", "mg_wj", "mg_f_wj"})
    for (const PoissonFaces& faces : {all_faces(PoissonFace::neumann), mixed_faces()}) {
      int cycles[2];
      for (int n : {32, 64}) {
        const Grid g = cube(n);
        const std::vector<double> rhs = random_rhs<double>(g, 7);
        const Solved<double> s = solve<double>(method, g, faces, rhs, to_tolerance(1e-6));
        EXPECT_LE(s.report.relative_residual, 1e-6) << method << " " << n;
        EXPECT_LE(relative_residual(g, faces, s.p, rhs), 1.001e-6) << method << " " << n;
        if (faces.singular()) {
          EXPECT_NEAR(interior_mean(s.p.data(), g), 0.0, 1e-12) << method;
        }
        cycles[n == 64] = s.report.iterations;
      }
      std::printf("%-8s %s: %d cycles at 32^3, %d at 64^3\n", method, faces.singular() ? "neumann" : "mixed  ",
                  cycles[0], cycles[1]);
      const bool jacobi_smoother = std::string(method).find("wj") != std::string::npos;
      EXPECT_LE(cycles[1], jacobi_smoother ? 16 : 10) << method;
      EXPECT_LE(std::abs(cycles[1] - cycles[0]), 1) << method;
    }
}

// Solved to 1e-10, the error against the continuous solution falls 4x per halving of h.
TEST(Multigrid, SecondOrderAgainstManufacturedSolutionsForEveryFaceType) {
  for (const PoissonFaces& faces :
       {all_faces(PoissonFace::neumann), all_faces(PoissonFace::dirichlet), all_faces(PoissonFace::periodic), mixed_faces()}) {
    double error[3];
    for (int level = 0; level < 3; ++level) {
      const int n = 16 << level;
      const Grid g{n, n, n, 1.0, 1.5, 0.75};
      const ManufacturedPoisson<double> m = manufactured_poisson<double>(g, faces);
      const Solved<double> s = solve<double>("mg", g, faces, m.rhs, to_tolerance(1e-10));
      std::vector<double> p = s.p;
      if (faces.singular()) {
        EXPECT_NEAR(interior_mean(p.data(), g), 0.0, 1e-12);
      }
      double worst = 0;
      for (int k = 1; k <= n; ++k)
        for (int j = 1; j <= n; ++j)
          for (int i = 1; i <= n; ++i) worst = std::max(worst, std::abs(p[g.idx(i, j, k)] - m.exact[g.idx(i, j, k)]));
      error[level] = worst;
    }
    for (int level = 1; level < 3; ++level) {
      const double order = std::log2(error[level - 1] / error[level]);
      EXPECT_GT(order, 1.9) << "level " << level << " errors " << error[level - 1] << " " << error[level];
      EXPECT_LT(order, 2.1);
    }
  }
}

TEST(Multigrid, SerialAndOpenMPAreBitwiseEqual) {
  const Grid g = cube(32);
  const std::vector<double> rhs = random_rhs<double>(g, 3);
  PoissonSettings s;
  s.iterations = 4;
  const auto a = solve<double>("mg_f", g, all_faces(PoissonFace::neumann), rhs, s, Backend::cpu_serial);
  const auto b = solve<double>("mg_f", g, all_faces(PoissonFace::neumann), rhs, s, Backend::cpu_omp);
  EXPECT_EQ(a.p, b.p);
}

// Float: a tolerance below 4 epsilons is refused; one above it that roundoff does not let the
// residual reach (a smooth solution: about 0.2 eps n^2) stops the cycles when the residual stalls
// instead of running them all.
TEST(Multigrid, FloatRefusesAnUnreachableToleranceAndStopsWhenTheResidualStalls) {
  const Grid g = cube(32);
  const PoissonFaces neumann = all_faces(PoissonFace::neumann);
  const ManufacturedPoisson<float> m = manufactured_poisson<float>(g, neumann);
  try {
    solve<float>("mg", g, neumann, m.rhs, to_tolerance(1e-8));
    ADD_FAILURE() << "a float tolerance of 1e-8 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("below what a float residual can show"), std::string::npos) << e.what();
  }
  const Solved<float> s = solve<float>("mg", g, neumann, m.rhs, to_tolerance(1e-6, 40));
  EXPECT_GT(s.report.relative_residual, 1e-6);  // the float floor of this smooth solution (~1e-5)
  EXPECT_LT(s.report.relative_residual, 1e-4);
  EXPECT_LT(s.report.iterations, 15);  // stopped at the stall, not at the cap of 40
}

TEST(Multigrid, FloatReachesOneInAHundredThousand) {
  const Grid g = cube(32);
  const std::vector<float> rhs = random_rhs<float>(g, 5);
  const Solved<float> s = solve<float>("mg", g, all_faces(PoissonFace::neumann), rhs, to_tolerance(1e-5));
  EXPECT_LE(s.report.relative_residual, 1e-5);
  EXPECT_LE(s.report.iterations, 8);
}

// The cost of a cycle in fine-grid Jacobi sweeps (by the byte models), and the target for
// 1e-6 at 256^3 (<= 100 sweep equivalents) estimated with the cycle count measured here at 64^3.
TEST(Multigrid, ACycleCostsAFewFineSweeps) {
  const PoissonFaces neumann = all_faces(PoissonFace::neumann);
  const MgCycleCost v = mg_cycle_cost(cube(256), mg_method_options("mg"), neumann);
  const MgCycleCost f = mg_cycle_cost(cube(256), mg_method_options("mg_f"), neumann);
  const MgCycleCost vp = mg_cycle_cost(cube(256), mg_method_options("mg"), all_faces(PoissonFace::periodic));
  std::printf("one cycle at 256^3 (neumann): V(2,2) %.2f sweep equivalents, %d kernels; F(2,2) %.2f, %d kernels; "
              "V(2,2) periodic %d kernels\n", v.sweep_equivalents, v.kernels, f.sweep_equivalents, f.kernels, vp.kernels);
  EXPECT_GT(v.sweep_equivalents, 6.0);  // 4 smoothing sweeps + a residual on the finest level alone
  EXPECT_LT(v.sweep_equivalents, 9.0);
  EXPECT_GT(f.sweep_equivalents, v.sweep_equivalents);
  EXPECT_LT(f.sweep_equivalents, 2 * v.sweep_equivalents);
  EXPECT_EQ(vp.kernels, v.kernels + 4 * 7);  // a ghost pass between the colours, 4 sweeps on 7 levels
  const Grid g = cube(64);
  const std::vector<double> rhs = random_rhs<double>(g, 11);
  const int cycles = solve<double>("mg", g, neumann, rhs, to_tolerance(1e-6)).report.iterations;
  std::printf("mg to 1e-6: %d cycles = %.0f sweep equivalents (without the residual checks)\n", cycles,
              cycles * v.sweep_equivalents);
  EXPECT_LE(cycles * v.sweep_equivalents, 100.0);
}

// The fused residual + restriction (poisson/mg_residual_restrict) computes what mg_residual then
// mg_restrict compute, bit for bit on the CPU (the same values summed in the same order), and saves a
// kernel a level and 2 words a fine point of each level (~0.7 fine sweep equivalents a V-cycle).
TEST(Multigrid, TheFusedResidualRestrictionEqualsTheTwoPasses) {
  const Grid fine{14, 10, 12, 1.0, 1.5, 0.75}, coarse{7, 5, 6, 1.0, 1.5, 0.75};
  const std::vector<double> p = random_values<double>(fine.padded_points(), 21), f = random_values<double>(fine.padded_points(), 22);
  std::vector<double> r(fine.padded_points(), 0.0), two(coarse.padded_points(), 0.0), one(coarse.padded_points(), 0.0);
  const auto base = [](const Grid& g) {
    MgCallBase b;
    b.grid = g, b.zr = ZRange::interior(g), b.exec.backend = Backend::cpu_serial;
    return b;
  };
  MgResidualCall<double> res;
  static_cast<MgCallBase&>(res) = base(fine);
  res.p = p.data(), res.f = f.data(), res.r = r.data();
  Registry::instance().get("poisson/mg_residual", "cpu_serial").fn<MgResidualCall<double>>()(res);
  MgRestrictCall<double> rst;
  static_cast<MgCallBase&>(rst) = base(coarse);
  rst.fine = fine, rst.fine_r = r.data(), rst.coarse_f = two.data();
  Registry::instance().get("poisson/mg_restrict", "cpu_serial").fn<MgRestrictCall<double>>()(rst);
  MgResidualRestrictCall<double> both;
  static_cast<MgCallBase&>(both) = base(coarse);
  both.fine = fine, both.p = p.data(), both.f = f.data(), both.coarse_f = one.data();
  Registry::instance().get("poisson/mg_residual_restrict", "cpu_serial").fn<MgResidualRestrictCall<double>>()(both);
  EXPECT_EQ(one, two);
  EXPECT_GT(test::max_abs(one), 0.1);

  const PoissonFaces neumann = all_faces(PoissonFace::neumann);
  MgOptions separate = mg_method_options("mg");
  separate.fused_restriction = false;
  const MgCycleCost fused = mg_cycle_cost(cube(256), mg_method_options("mg"), neumann);
  const MgCycleCost apart = mg_cycle_cost(cube(256), separate, neumann);
  std::printf("V(2,2) at 256^3: fused restriction %.2f sweep equivalents, %d kernels; separate %.2f, %d\n",
              fused.sweep_equivalents, fused.kernels, apart.sweep_equivalents, apart.kernels);
  EXPECT_EQ(fused.kernels, apart.kernels - 7);  // one launch fewer on each of the 7 levels above the coarsest
  EXPECT_NEAR(apart.sweep_equivalents - fused.sweep_equivalents, 2.0 / 3 * (1 + 1.0 / 8 + 1.0 / 64), 0.01);
}

// A method's options after ':' (--poisson mg_graph:pre1_post2_w130): the smoothing counts and omega
// they set, the words refused by name, options refused by a method that takes none, and the defaults
// spelled out giving the default method's values bit for bit.
TEST(MultigridOptions, SetSmoothingAndOmegaAndRefuseWhatTheyCannotMean) {
  const MgOptions o = mg_method_options("mg_graph", "pre1_post2_w130");
  EXPECT_EQ(o.pre, 1);
  EXPECT_EQ(o.post, 2);
  EXPECT_DOUBLE_EQ(o.omega, 1.3);
  EXPECT_TRUE(o.graph);
  EXPECT_EQ(mg_options_text(o), "pre1_post2_w130");
  EXPECT_EQ(mg_options_text(mg_method_options("mg")), "pre2_post2_w100");
  EXPECT_EQ(mg_options_text(mg_method_options("mg_wj")), "pre2_post2_w86");
  for (const char* bad : {"pre0_post0", "w200", "w0", "x3", "pre", "pre2post1", "post11", "pre2__post1"}) {
    try {
      mg_method_options("mg", bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("mg:") + bad), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(make_poisson_method<double>("cg:pre1", {}), std::runtime_error);
  EXPECT_THROW(make_poisson_method<double>("mg:pre1_w", {}), std::invalid_argument);
  EXPECT_GT(poisson_method_work_arrays("mg_graph:pre1_post2_w130"), 0.0);

  const Grid g = cube(16);
  const std::vector<double> rhs = random_rhs<double>(g, 5);
  const PoissonFaces faces = mixed_faces();
  const Solved<double> plain = solve<double>("mg", g, faces, rhs, to_tolerance(1e-8));
  const Solved<double> spelled = solve<double>("mg:pre2_post2_w100", g, faces, rhs, to_tolerance(1e-8));
  EXPECT_EQ(plain.p, spelled.p);
  EXPECT_EQ(plain.report.iterations, spelled.report.iterations);
  const Solved<double> over = solve<double>("mg:w130", g, faces, rhs, to_tolerance(1e-8));
  EXPECT_NE(plain.p, over.p);
  EXPECT_LE(over.report.relative_residual, 1e-8);
}

// The over-relaxed red-black smoother (omega 1.3) reduces the residual by 1e-6 in fewer V(2,2)-cycles
// than Gauss-Seidel, at a cost of no extra bytes; fewer smoothing sweeps cost less a cycle by the byte
// model (the numbers at 256^3 are in docs/solvers/poisson_multigrid.md).
TEST(MultigridOptions, OverRelaxationSavesCyclesAndFewerSweepsCostLess) {
  const Grid g = cube(64);
  const std::vector<double> rhs = random_rhs<double>(g, 7);
  const PoissonFaces neumann = all_faces(PoissonFace::neumann);
  const int gs = solve<double>("mg", g, neumann, rhs, to_tolerance(1e-6)).report.iterations;
  const int sor = solve<double>("mg:w130", g, neumann, rhs, to_tolerance(1e-6)).report.iterations;
  std::printf("64^3 to 1e-6: V(2,2) %d cycles, V(2,2) omega 1.3 %d cycles\n", gs, sor);
  EXPECT_LT(sor, gs);
  const MgCycleCost v22 = mg_cycle_cost(cube(256), mg_method_options("mg", "w130"), neumann);
  const MgCycleCost v12 = mg_cycle_cost(cube(256), mg_method_options("mg", "pre1_post2_w130"), neumann);
  EXPECT_DOUBLE_EQ(v22.sweep_equivalents, mg_cycle_cost(cube(256), mg_method_options("mg"), neumann).sweep_equivalents);
  EXPECT_LT(v12.sweep_equivalents, v22.sweep_equivalents - 1);  // a sweep on every level: 8/7 of a fine sweep
  EXPECT_EQ(v12.kernels, v22.kernels - 3 * 7);                    // two colours and a ghost pass on 7 levels
}

// Multigrid checks its residual after every cycle unless told otherwise (PoissonSettings::check_every
// 0, the command line's default): it stops at the first cycle under the tolerance, where a check
// every 10 cycles runs 10.
TEST(Multigrid, ChecksEveryCycleByDefault) {
  const Grid g = cube(32);
  const std::vector<double> rhs = random_rhs<double>(g, 7);
  PoissonSettings by_default = to_tolerance(1e-6), every10 = to_tolerance(1e-6);
  by_default.check_every = 0, every10.check_every = 10;
  const int cycles = solve<double>("mg", g, all_faces(PoissonFace::neumann), rhs, by_default).report.iterations;
  const int ten = solve<double>("mg", g, all_faces(PoissonFace::neumann), rhs, every10).report.iterations;
  EXPECT_EQ(cycles, solve<double>("mg", g, all_faces(PoissonFace::neumann), rhs, to_tolerance(1e-6)).report.iterations);
  EXPECT_LE(cycles, 8);
  EXPECT_EQ(ten, 10);
}

// The projection solver's pressure solve by mg through --poisson: the same flow as Jacobi when both
// solve to a tight tolerance (the pressure compared without its mean, which the methods fix differently).
TEST(Multigrid, ProjectionSolverGivesTheSameFlowAsJacobi) {
  CaseOptions co;
  co.name = "cavity", co.nx = 16, co.ny = 4, co.nz = 16, co.re = 100;
  const Case c = make_case(co);
  SolverOptions o;
  o.jacobi_iterations = 20000, o.jacobi_tol = 1e-10, o.check_every = 10;
  const auto jacobi = test::run_case<double>(c, "cpu-serial", 20, o);
  o.poisson_method = "mg", o.jacobi_iterations = 50, o.check_every = 1;
  const auto mg = test::run_case<double>(c, "cpu-serial", 20, o);
  for (const char* v : {"u", "v", "w"})
    EXPECT_LT(test::max_abs_diff(jacobi.state.field(v), mg.state.field(v)), 1e-8) << v;
  std::vector<double> pj = jacobi.state.field("p"), pm = mg.state.field("p");
  subtract_interior(pj.data(), interior_mean(pj.data(), c.grid), c.grid);
  subtract_interior(pm.data(), interior_mean(pm.data(), c.grid), c.grid);
  double worst = 0;
  for (int k = 1; k <= c.grid.nz; ++k)
    for (int j = 1; j <= c.grid.ny; ++j)
      for (int i = 1; i <= c.grid.nx; ++i) worst = std::max(worst, std::abs(pj[c.grid.idx(i, j, k)] - pm[c.grid.idx(i, j, k)]));
  EXPECT_LT(worst, 1e-7 * test::max_abs(pj));
}

// When a cycle is a graph (MgOptions::graph): plain launches on the CPU, without a stream, or inside an
// enclosing capture; otherwise capture once and replay while the key holds, capture again when it changes.
TEST(MultigridGraph, CapturesOnceReplaysAndFallsBackToPlainLaunches) {
  EXPECT_EQ(graph_step(false, true, false, true, true), GraphStep::plain);   // CPU backend
  EXPECT_EQ(graph_step(true, false, false, false, false), GraphStep::plain); // the legacy default stream
  EXPECT_EQ(graph_step(true, true, true, true, true), GraphStep::plain);     // --launch graph around it
  EXPECT_EQ(graph_step(true, true, false, false, false), GraphStep::capture);
  EXPECT_EQ(graph_step(true, true, false, true, true), GraphStep::replay);
  EXPECT_EQ(graph_step(true, true, false, true, false), GraphStep::capture);  // arrays or faces changed
  EXPECT_TRUE(mg_method_options("mg_graph").graph);
  EXPECT_EQ(mg_method_options("mg_f_graph").cycle, MgCycle::f);
  EXPECT_TRUE(mg_method_options("mg_f_wj_graph").graph);
  EXPECT_FALSE(mg_method_options("mg").graph);
  EXPECT_THROW(mg_method_options("_graph"), std::invalid_argument);
  EXPECT_THROW(mg_method_options("mg_x_graph"), std::invalid_argument);
}

// On the CPU a graph method runs the plain cycle: the same values bit for bit, to a tolerance too.
TEST(MultigridGraph, OnTheCpuTheGraphMethodsEqualThePlainOnes) {
  const Grid g = cube(16);
  const std::vector<double> rhs = random_rhs<double>(g, 5);
  for (const char* method : {"mg", "mg_f", "mg_wj", "mg_f_wj"}) {  // every cycle has its graph method
    const auto plain = solve<double>(method, g, mixed_faces(), rhs, to_tolerance(1e-8));
    const auto graph = solve<double>(std::string(method) + "_graph", g, mixed_faces(), rhs, to_tolerance(1e-8));
    EXPECT_EQ(plain.p, graph.p) << method;
    EXPECT_EQ(plain.report.iterations, graph.report.iterations) << method;
  }
}

// On a GPU: the same cycles as the CPU reference, and the same solution within rounding.
template <class T>
void gpu_matches_cpu(double tol) {
  NSB_NEEDS_GPU();
  for (const char* method : {"mg", "mg_f_wj", "mg:pre1_post2_w130"})  // the last: options, over-relaxed colours
    for (const PoissonFaces& faces : {all_faces(PoissonFace::neumann), mixed_faces()}) {
      const Grid g{32, 16, 48, 1.0, 0.5, 1.5};
      const std::vector<T> rhs = random_rhs<T>(g, 9);
      PoissonSettings s;
      s.iterations = 3;
      const auto cpu = solve<T>(method, g, faces, rhs, s, Backend::cpu_serial, T(2));
      const auto gpu = solve<T>(method, g, faces, rhs, s, Backend::cuda, T(2));
      double worst = 0, largest = 0;
      for (std::size_t n = 0; n < cpu.p.size(); ++n)
        worst = std::max(worst, double(std::abs(cpu.p[n] - gpu.p[n]))), largest = std::max(largest, double(std::abs(cpu.p[n])));
      EXPECT_LE(worst, tol * largest) << method;
      const auto cpu_tol = solve<T>(method, g, faces, rhs, to_tolerance(sizeof(T) == 4 ? 1e-5 : 1e-8), Backend::cpu_serial);
      const auto gpu_tol = solve<T>(method, g, faces, rhs, to_tolerance(sizeof(T) == 4 ? 1e-5 : 1e-8), Backend::cuda);
      EXPECT_LE(std::abs(cpu_tol.report.iterations - gpu_tol.report.iterations), sizeof(T) == 4 ? 1 : 0) << method;
      EXPECT_LE(gpu_tol.report.relative_residual, sizeof(T) == 4 ? 1e-5 : 1e-8) << method;
      // The other red-black variant, picked through the settings as a recipe or --stage would.
      PoissonSettings packed = s;
      packed.kernels["poisson/mg_rbgs"] = "global_colour_packed:bx64_by4_sz8";
      const auto gpu_packed = solve<T>(method, g, faces, rhs, packed, Backend::cuda, T(2));
      double worst_packed = 0;
      for (std::size_t n = 0; n < cpu.p.size(); ++n) worst_packed = std::max(worst_packed, double(std::abs(cpu.p[n] - gpu_packed.p[n])));
      EXPECT_LE(worst_packed, tol * largest) << method << " with global_colour_packed";
    }
}
TEST(MultigridGpu, DoubleMatchesTheCpuReference) { gpu_matches_cpu<double>(1e-11); }
TEST(MultigridGpu, FloatMatchesTheCpuReference) { gpu_matches_cpu<float>(2e-4); }

// On a GPU a cycle replayed as a graph gives the plain launches' values bit for bit (the same kernels
// in the same order), over several solves (replays) and with weighted Jacobi (whose arrays swap);
// inside an enclosing capture (--launch graph) the method launches plainly into that graph.
TEST(MultigridGpu, GraphCyclesEqualPlainLaunchesAndNestInAnEnclosingCapture) {
  NSB_NEEDS_GPU();
  const Grid g{32, 16, 48, 1.0, 0.5, 1.5};
  const std::vector<double> rhs = random_rhs<double>(g, 11);
  for (const char* method : {"mg", "mg_f_wj"}) {
    const auto plain = solve<double>(method, g, mixed_faces(), rhs, to_tolerance(1e-9), Backend::cuda);
    const auto graph = solve<double>(std::string(method) + "_graph", g, mixed_faces(), rhs, to_tolerance(1e-9), Backend::cuda);
    EXPECT_EQ(plain.p, graph.p) << method;
    EXPECT_EQ(plain.report.iterations, graph.report.iterations) << method;
  }
  // Nested: one solve to build the method and its graph, then a fixed-count solve captured from outside.
  Buffer<double> p(g.padded_points(), true, "test p"), f(g.padded_points(), true, "test rhs");
  f.upload(rhs);
  void* stream = device::stream_create();
  EquationOnly<double> sys;
  sys.eq.grid = g, sys.eq.faces = mixed_faces(), sys.eq.p = p.get(), sys.eq.rhs = f.get();
  sys.eq.exec = Exec{Backend::cuda, 0, stream, nullptr, 0};
  PoissonSettings fixed;
  fixed.iterations = 3;
  auto m = make_poisson_method<double>("mg_graph", fixed);
  p.upload(std::vector<double>(g.padded_points(), 0.0));
  m->solve(sys);
  device::stream_sync(stream);
  p.upload(std::vector<double>(g.padded_points(), 0.0));
  device::capture_begin(stream);
  m->solve(sys);
  void* outer = device::capture_end(stream);
  device::graph_launch(outer, stream);
  device::stream_sync(stream);
  device::graph_destroy(outer);
  device::stream_destroy(stream);
  EXPECT_EQ(p.download(), solve<double>("mg", g, mixed_faces(), rhs, fixed, Backend::cuda).p);
}

}  // namespace
}  // namespace nsb
