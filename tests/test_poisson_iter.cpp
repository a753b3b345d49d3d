// The Poisson family's iterative methods (rbsor, cg, pcg) and its poisson solver: each method against
// the manufactured solution (second order on refinement, every face type), serial against OpenMP, the
// GPU against the CPU reference (skips without a GPU), bad input refused by name, --stage reaching the
// method's kernels, and the projection solver giving the same cavity with every method.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "device.hpp"
#include "poisson/csr.hpp"
#include "poisson/formulas.hpp"
#include "poisson/host_ops.hpp"
#include "poisson/poisson.hpp"
#include "run.hpp"
#include "test_support.hpp"

namespace nsb {
namespace {

struct Solved {
  std::vector<double> p;
  nlohmann::json validation, checks;
};

SolverOptions method_options(const std::string& method, double tol, int cap = 20000) {
  SolverOptions o;
  o.poisson_method = method;
  o.jacobi_tol = tol;
  o.jacobi_iterations = cap;
  o.check_every = 5;
  o.threads = 2;
  return o;
}

// One solve (one step of the poisson solver) of case `name` on an n^3 grid.
template <class T>
Solved solve(const std::string& name, int n, const SolverOptions& o, Backend b = Backend::cpu_serial,
             bool final_checks = false) {
  CaseOptions co;
  co.name = name, co.nx = co.ny = co.nz = n;
  const std::unique_ptr<Problem> problem = SolverRegistry::instance().get("poisson").make_problem(co);
  const Recipe& recipe = b == Backend::cuda ? find_recipe("poisson", "gpu", "") : cpu_recipe("poisson", b);
  auto s = problem->make_solver(Precision<T>{}, resolve(recipe, {}), o, nullptr);
  s->load(problem->initial_state(Precision<T>{}));
  s->step();
  const HostState<T> fin = s->save();
  Solved out;
  for (T v : fin.field("p")) out.p.push_back(double(v));
  out.validation = problem->validate(fin, false);
  if (final_checks) out.checks = s->final_checks();
  return out;
}

// The interior of p with its mean removed (singular problems: the level is the method's choice).
std::vector<double> without_mean(const std::vector<double>& p, int n) {
  const Grid g{n, n, n};
  const double mean = interior_mean(p.data(), g);
  std::vector<double> out;
  for (int k = 1; k <= n; ++k)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) out.push_back(p[g.idx(i, j, k)] - mean);
  return out;
}

using MethodCase = std::tuple<std::string, std::string>;
class PoissonIterOrder : public ::testing::TestWithParam<MethodCase> {};

TEST_P(PoissonIterOrder, ReachesTheManufacturedSolutionWithSecondOrder) {
  const auto& [method, name] = GetParam();
  const SolverOptions o = method_options(method, 1e-11);
  const Solved coarse = solve<double>(name, 12, o), fine = solve<double>(name, 24, o);
  const double e12 = coarse.validation["rms_error"].get<double>(), e24 = fine.validation["rms_error"].get<double>();
  std::printf("%s on %s: RMS error %.3e (12^3) -> %.3e (24^3), order %.2f\n", method.c_str(), name.c_str(), e12, e24,
              std::log2(e12 / e24));
  EXPECT_NEAR(std::log2(e12 / e24), 2.0, 0.25);
  EXPECT_LT(e24, 1e-2);
}

INSTANTIATE_TEST_SUITE_P(Methods, PoissonIterOrder,
                         ::testing::Combine(::testing::Values("rbsor", "cg", "pcg"),
                                            ::testing::Values("poisson_manufactured", "poisson_manufactured_dirichlet",
                                                              "poisson_manufactured_periodic",
                                                              "poisson_manufactured_mixed")),
                         [](const ::testing::TestParamInfo<MethodCase>& p) {
                           return std::get<0>(p.param) + "_" + std::get<1>(p.param).substr(std::string("poisson_").size());
                         });

TEST(PoissonIter, EveryMethodReachesJacobisSolution) {
  // Jacobi through the poisson solver's own sweep: the same discrete solution, to the tolerance.
  const int n = 10;
  const Solved jacobi = solve<double>("poisson_manufactured_mixed", n, method_options("jacobi", 1e-12, 200000));
  for (const char* m : {"rbsor", "cg", "pcg"}) {
    const Solved s = solve<double>("poisson_manufactured_mixed", n, method_options(m, 1e-12));
    EXPECT_LT(test::max_abs_diff(s.p, jacobi.p), 1e-9 * test::max_abs(jacobi.p)) << m;
  }
}

TEST(PoissonIter, SingularProblemsReturnAZeroMeanSolution) {
  for (const char* m : {"rbsor", "cg", "pcg"}) {
    const Solved s = solve<double>("poisson_manufactured", 12, method_options(m, 1e-10));
    EXPECT_LT(std::abs(interior_mean(s.p.data(), Grid{12, 12, 12})), 1e-12) << m;
  }
}

TEST(PoissonIter, SerialAndOpenMPAgree) {
  for (const char* m : {"rbsor", "cg", "pcg"}) {
    const SolverOptions o = method_options(m, 0, 30);
    const Solved a = solve<double>("poisson_manufactured_mixed", 14, o, Backend::cpu_serial);
    const Solved b = solve<double>("poisson_manufactured_mixed", 14, o, Backend::cpu_omp);
    // Red-black points are independent (bitwise); CG's sums meet in the threads' order (rounding only).
    EXPECT_LE(test::max_abs_diff(a.p, b.p), (std::string(m) == "rbsor" ? 0.0 : 1e-12) * test::max_abs(a.p)) << m;
  }
}

TEST(PoissonIter, RecordsTheResidualHistoryAndTheSweepTime) {
  const Solved s = solve<double>("poisson_random", 12, method_options("cg", 1e-8), Backend::cpu_serial, true);
  const nlohmann::json& h = s.checks["residual_history"];
  ASSERT_GT(h["iteration"].size(), 2u);
  EXPECT_EQ(h["iteration"].size(), h["seconds"].size());
  const auto& res = h["relative_residual"];
  EXPECT_LT(res.back().get<double>(), 1e-8);
  EXPECT_LT(res.back().get<double>(), res.front().get<double>());
  for (std::size_t i = 1; i < h["seconds"].size(); ++i) EXPECT_GE(h["seconds"][i].get<double>(), h["seconds"][i - 1].get<double>());
  EXPECT_GT(s.checks["jacobi_sweep_seconds"].get<double>(), 0);
  EXPECT_EQ(s.checks["poisson_kernels"]["poisson/cg_update"].get<std::string>(), "cpu_serial:default");
}

// The device-side check (cg_device_check, pcg_device_check) stops at the iteration the host check
// stops at when it looks after every iteration, with the same solution bit for bit, however rarely the
// host reads the flag; the host check every 10 iterations overshoots to a multiple of 10.
TEST(PoissonIter, DeviceCheckStopsWhereAHostCheckEveryIterationStops) {
  for (const char* m : {"cg", "pcg"})
    for (const int n : {11, 14}) {
      const char* name = "poisson_random";  // every mode present (a manufactured mode takes CG one iteration)
      SolverOptions every = method_options(m, 1e-7);
      every.check_every = 1;
      const Solved host = solve<double>(name, n, every, Backend::cpu_serial, true);
      const int iterations = host.checks["poisson_iterations"].get<int>();
      ASSERT_GT(iterations, 10) << m << " " << n;
      for (int k : {1, 7, 10, 1000}) {
        SolverOptions o = method_options(std::string(m) + "_device_check", 1e-7);
        o.check_every = k;
        const Solved device = solve<double>(name, n, o, Backend::cpu_serial, true);
        EXPECT_EQ(device.checks["poisson_iterations"].get<int>(), iterations) << m << " " << n << " every " << k;
        EXPECT_EQ(device.p, host.p) << m << " " << n << " every " << k;
        EXPECT_EQ(device.checks["poisson_relative_residual"].get<double>(),
                  host.checks["poisson_relative_residual"].get<double>());
        EXPECT_EQ(device.checks["poisson_kernels"]["poisson/cg_check"].get<std::string>(), "cpu_serial:default");
      }
      SolverOptions tenth = every;
      tenth.check_every = 10;
      const int host10 = solve<double>(name, n, tenth, Backend::cpu_serial, true).checks["poisson_iterations"].get<int>();
      EXPECT_EQ(host10 % 10, 0);
      EXPECT_GE(host10, iterations);
    }
}

// The run's memory check before allocation counts each method's workspace: every method but Jacobi (which
// sweeps through the solver's own arrays) declares one, and the poisson problem's estimate grows with it.
TEST(PoissonIter, TheMemoryCheckCountsEveryMethodsWorkspace) {
  for (const PoissonMethodInfo& m : poisson_methods())
    EXPECT_TRUE(m.name == "jacobi" || m.work_arrays > 0) << m.name << " declares no workspace";
  CaseOptions co;
  co.name = "poisson_random", co.nx = co.ny = co.nz = 16;  // the estimate is of the grid passed
  const std::unique_ptr<Problem> problem = SolverRegistry::instance().get("poisson").make_problem(co);
  const Grid g{512, 512, 512};
  const auto bytes = [&](const char* method) {
    return problem->device_bytes(Precision<double>{}, g, method_options(method, 1e-6));
  };
  const double array = double(g.padded_points()) * 8;
  EXPECT_DOUBLE_EQ(double(bytes("cg") - bytes("jacobi")), 6 * array);  // three vectors, twice (timed and history)
  EXPECT_LT(bytes("mg"), bytes("fft"));
  EXPECT_EQ(bytes("cg_device_check"), bytes("cg"));
  EXPECT_LT(double(bytes("fft2_tridiag")), 80e9);  // 512^3 in double fits one 80 GB card with every method
}

// What a chosen kernel keeps itself (a library's matrix: PoissonKernelWorkspaceRegistrar) is added to the
// memory check once, by precision; a kernel that declares none adds nothing. (The GPU variants that
// declare some are not in a CPU build: this test registers its own.)
const PoissonKernelWorkspaceRegistrar test_workspace{{"poisson/apply_dot", "test_library_operator", {10, 20}, ""}};
TEST(PoissonIter, TheMemoryCheckCountsWhatTheChosenKernelsKeep) {
  CaseOptions co;
  co.name = "poisson_random", co.nx = co.ny = co.nz = 16;
  const std::unique_ptr<Problem> problem = SolverRegistry::instance().get("poisson").make_problem(co);
  const Grid g{64, 32, 16};
  SolverOptions plain = method_options("cg", 1e-6), library = plain, other = plain;
  library.poisson_kernels["poisson/apply_dot"] = "test_library_operator:bx32_by4_sz8";
  other.poisson_kernels["poisson/apply_dot"] = "fused_buffer";
  const double points = double(g.interior_points());
  EXPECT_DOUBLE_EQ(double(problem->device_bytes(Precision<double>{}, g, library)) -
                       double(problem->device_bytes(Precision<double>{}, g, plain)), 20 * points);
  EXPECT_DOUBLE_EQ(double(problem->device_bytes(Precision<float>{}, g, library)) -
                       double(problem->device_bytes(Precision<float>{}, g, plain)), 10 * points);
  EXPECT_EQ(problem->device_bytes(Precision<double>{}, g, other), problem->device_bytes(Precision<double>{}, g, plain));
}

// Kernels that share one allocation (the cuBLAS variants' compact vectors: pool "cublas_dots") are counted once
// however many of them a run chooses, at the largest declaration; a kernel of its own memory beside them adds its own.
const PoissonKernelWorkspaceRegistrar test_pool_dot{{"poisson/dot", "test_pooled_dot", {16, 16}, "test_pool"}};
const PoissonKernelWorkspaceRegistrar test_pool_apply{{"poisson/apply_dot", "test_pooled_apply", {8, 24}, "test_pool"}};
const PoissonKernelWorkspaceRegistrar test_pool_update{{"poisson/cg_update", "test_pooled_update", {16, 16}, "test_pool"}};
TEST(PoissonIter, TheMemoryCheckCountsASharedPoolOnce) {
  const Grid g{64, 32, 16};
  const double points = double(g.interior_points());
  const std::map<std::string, std::string> one{{"poisson/dot", "test_pooled_dot"}};
  std::map<std::string, std::string> three = one;
  three["poisson/apply_dot"] = "test_pooled_apply:bx32_by4_sz8";
  three["poisson/cg_update"] = "test_pooled_update";
  EXPECT_DOUBLE_EQ(poisson_kernels_workspace_bytes(one, g, 8), 16 * points);
  EXPECT_DOUBLE_EQ(poisson_kernels_workspace_bytes(three, g, 8), 24 * points);  // once, the largest
  EXPECT_DOUBLE_EQ(poisson_kernels_workspace_bytes(three, g, 4), 16 * points);
  std::map<std::string, std::string> beside = one;
  beside["poisson/apply_dot"] = "test_library_operator";  // its own memory (above), added to the pool's
  EXPECT_DOUBLE_EQ(poisson_kernels_workspace_bytes(beside, g, 8), (16 + 20) * points);
}

// y = A x (x: the interior of `padded`, or `padded` itself) is the matrix-free operator on `padded` at every
// interior point, and the columns of every row ascend (as cuSPARSE requires).
void expect_is_the_stencil(const PoissonCsr<double>& a, const std::vector<double>& x, const std::vector<double>& padded,
                           const Grid& g) {
  std::vector<double> y(g.interior_points());
  csr_multiply(a, x.data(), y.data());
  const PoissonCoef<double> c = make_poisson_coef<double>(g);
  std::size_t m = 0;
  for (int k = 1; k <= g.nz; ++k)
    for (int j = 1; j <= g.ny; ++j)
      for (int i = 1; i <= g.nx; ++i, ++m)
        EXPECT_NEAR(y[m], poisson_apply(padded.data(), g.idx(i, j, k), g.sy(), g.sz(), c), 1e-12 * c.diag * 4)
            << g.nx << "x" << g.ny << "x" << g.nz << " at " << i << "," << j << "," << k;
  for (int r = 0; r < a.rows; ++r)
    for (int e = a.row_start[r] + 1; e < a.row_start[r + 1]; ++e) EXPECT_LT(a.column[e - 1], a.column[e]);
}

// The operator as a CSR matrix (Liu's form, for cuSPARSE) gives the matrix-free operator's values, for
// every face type (a periodic axis of 1, 2 and more cells included), and its size counted without
// building it equals the built one's.
TEST(PoissonCsr, EqualsTheMatrixFreeOperatorAndCountsItsBytes) {
  PoissonFaces mixed;
  mixed.face[0][0] = mixed.face[0][1] = PoissonFace::periodic;
  mixed.face[1][0] = PoissonFace::dirichlet, mixed.face[1][1] = PoissonFace::neumann;
  mixed.face[2][0] = mixed.face[2][1] = PoissonFace::periodic;
  PoissonFaces neumann;
  for (const Grid& g : {Grid{5, 4, 3, 1.0, 2.0, 0.5}, Grid{2, 3, 1, 1.0, 1.0, 1.0}, Grid{7, 1, 2, 1.0, 1.0, 1.0}})
    for (const PoissonFaces& f : {mixed, neumann}) {
      const PoissonCsr<double> a = poisson_csr<double>(g, f);
      std::vector<double> padded = random_values<double>(g.padded_points(), 4), x;
      apply_faces_host(padded.data(), g, f);
      for (int k = 1; k <= g.nz; ++k)
        for (int j = 1; j <= g.ny; ++j)
          for (int i = 1; i <= g.nx; ++i) x.push_back(padded[g.idx(i, j, k)]);
      expect_is_the_stencil(a, x, padded, g);
      EXPECT_EQ(a.column.size(), poisson_csr_entries(g, f));
      EXPECT_EQ(poisson_csr_bytes(g, f, 8), a.value.size() * 8 + a.column.size() * 4 + a.row_start.size() * 4);
    }
  // Liu's 200^3 pressure matrix (neumann all round): 7 entries a row less the 6 x 200^2 faces' ghosts.
  const Grid g{200, 200, 200};
  EXPECT_EQ(poisson_csr_entries(g, neumann), 7u * 8000000u - 6u * 40000u);
  EXPECT_EQ(poisson_csr_bytes(g, neumann, 8), (7u * 8000000u - 6u * 40000u) * 12u + 8000001u * 4u);
}

// The matrix cuSPARSE gets (poisson/apply_dot/csr_cusparse): over the padded vector, ghosts as they stand
// (random here, not the faces'), its product is the matrix-free operator's; its values are Liu's 448 MB at
// 200^3 in double (7 x 8 bytes a cell), 704 MB with its columns and row offsets.
TEST(PoissonCsr, ThePaddedMatrixIsTheStencilGhostsIncluded) {
  for (const Grid& g : {Grid{5, 4, 3, 1.0, 2.0, 0.5}, Grid{2, 3, 1, 1.0, 1.0, 1.0}}) {
    const PoissonCsr<double> a = poisson_csr_padded<double>(g, make_poisson_coef<double>(g));
    const std::vector<double> x = random_values<double>(g.padded_points(), 9);
    expect_is_the_stencil(a, x, x, g);
    EXPECT_EQ(poisson_csr_padded_bytes(g, 8), a.value.size() * 8 + a.column.size() * 4 + a.row_start.size() * 4);
  }
  const Grid liu{200, 200, 200};
  EXPECT_EQ(poisson_csr_padded_bytes(liu, 8), 448000000u + 224000000u + 32000004u);
}

template <class F>
void expect_refused(F f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "not refused; expected a message with '" << words << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(PoissonIter, RefusesBadInputByName) {
  SolverOptions o = method_options("rbsor", 1e-6);
  o.poisson_kernels["poisson/rbsor"] = "global_2d:bx32_by4_sz8_w210";
  expect_refused([&] { solve<double>("poisson_manufactured", 8, o); }, "omega 2.1");
  o.poisson_kernels["poisson/rbsor"] = "cpu_serial:w0";
  expect_refused([&] { solve<double>("poisson_manufactured", 8, o); }, "outside (0, 2)");
  expect_refused([&] { solve<float>("poisson_manufactured", 64, method_options("cg", 1e-9)); }, "cannot be reached in float");
  expect_refused([&] { solve<double>("poisson_manufactured_periodic", 9, method_options("rbsor", 1e-6)); },
                 "odd count of cells");
  // A reachable float tolerance is accepted.
  EXPECT_LT(solve<float>("poisson_manufactured", 16, method_options("cg", 1e-4)).validation["rms_error"].get<double>(), 0.05);
}

TEST(PoissonIter, StageOptionReachesTheMethodsKernels) {
  RunOptions o;
  o.case_options.name = "poisson_manufactured_dirichlet";
  o.case_options.nx = o.case_options.ny = o.case_options.nz = 8;
  o.solver.poisson_method = "rbsor";
  o.solver.jacobi_iterations = 10;
  o.stage_overrides = {"poisson/rbsor=cpu_serial:w150"};
  o.steps = 1, o.warmup = 0, o.progress = false;
  const nlohmann::json r = run(o);
  EXPECT_EQ(r["checks"]["poisson_kernels"]["poisson/rbsor"].get<std::string>(), "cpu_serial:w150") << r["checks"].dump();
  EXPECT_EQ(r["run"]["poisson_kernels"]["poisson/rbsor"].get<std::string>(), "cpu_serial:w150");
}

TEST(PoissonIter, ProjectionGivesTheSameCavityWithEveryMethod) {
  CaseOptions co;
  co.name = "cavity", co.nx = 12, co.ny = 4, co.nz = 12, co.re = 100;
  const Case c = make_case(co);
  auto velocity = [&](const std::string& method) {
    SolverOptions o = method_options(method, 1e-11, 500000);
    o.threads = 0;
    const auto out = test::run_case<double>(c, "cpu-serial", 10, o);
    std::vector<double> uvw;
    for (const char* f : {"u", "v", "w"}) uvw.insert(uvw.end(), out.state.field(f).begin(), out.state.field(f).end());
    return uvw;
  };
  const std::vector<double> jacobi = velocity("jacobi");
  for (const char* m : {"rbsor", "cg", "pcg"}) EXPECT_LT(test::max_abs_diff(velocity(m), jacobi), 1e-8) << m;
}

// Every method on the GPU against the CPU reference, with the default kernels and with the other
// variants of each stage (the cuBLAS ones included), both precisions: the same solution to the tolerance asked (double 1e-10:
// within 1e-7 of the solution's scale; float 1e-4: within 1e-3).
TEST(PoissonIterGpu, EveryMethodMatchesTheCpuReference) {
  NSB_NEEDS_GPU();
  const std::vector<std::map<std::string, std::string>> kernel_sets = {
      {},
      {{"poisson/rbsor", "shared_tile"}, {"poisson/apply_dot", "separate_cub"}, {"poisson/cg_update", "separate_cub"},
       {"poisson/dot", "buffer_two_pass"}},
      {{"poisson/apply_dot", "fused_buffer"}, {"poisson/dot", "block_atomic"}},
      // every dot product by cuBLAS, CG's iterations' too (the paper's)
      {{"poisson/apply_dot", "separate_cublas"}, {"poisson/cg_update", "separate_cublas"}, {"poisson/dot", "library_cublas"}}};
  for (const char* m : {"rbsor", "cg", "pcg", "cg_device_check", "pcg_device_check"})
    for (const auto& kernels : kernel_sets)
      for (const char* name : {"poisson_manufactured", "poisson_manufactured_mixed"}) {
        SolverOptions o = method_options(m, 1e-10);
        o.poisson_kernels = kernels;
        const int n = 22;
        const Solved cpu = solve<double>(name, n, o), gpu = solve<double>(name, n, o, Backend::cuda);
        EXPECT_LT(test::max_abs_diff(without_mean(gpu.p, n), without_mean(cpu.p, n)), 1e-7 * test::max_abs(cpu.p))
            << m << " " << name;
        o.jacobi_tol = 1e-4;
        const Solved cpuf = solve<float>(name, n, o), gpuf = solve<float>(name, n, o, Backend::cuda);
        EXPECT_LT(test::max_abs_diff(without_mean(gpuf.p, n), without_mean(cpuf.p, n)), 1e-3 * test::max_abs(cpuf.p))
            << m << " " << name << " float";
      }
}

}  // namespace
}  // namespace nsb
