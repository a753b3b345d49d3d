// The batched tridiagonal family (harness/solvers/tridiag/): the CPU solvers by their residual on every
// layout, Sherman-Morrison on periodic systems, PDD and PPT against Thomas on the paper's y-systems
// (momentum: machine accuracy at small beta; Poisson: PDD wrong, PPT exact), and every GPU variant
// against the CPU reference and by its residual (skips without a GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "device.hpp"
#include "stage_kind.hpp"
#include "timer.hpp"
#include "tridiag/pdd.hpp"
#include "tridiag/split_comm.hpp"
#include "tridiag/split_phases.hpp"
#include "tridiag/stage_call.hpp"
#include "tridiag/systems.hpp"
#include "verify.hpp"
#include "gpu_test_support.hpp"

namespace nsb {
namespace {

constexpr double kRoundoff[2] = {1.2e-7, 2.2e-16};  // float, double

template <class T>
double eps() {
  return kRoundoff[sizeof(T) == 8];
}

// Solve random systems of layout l on the CPU and return the residual.
template <class T>
double cpu_residual(const TridiagLayout& l, bool cyclic) {
  const RandomSystems<T> sys = random_systems<T>(l, cyclic, 7);
  std::vector<T> x = sys.d, cp(l.points()), z(l.points());
  for (int s = 0; s < l.batch; ++s) {
    if (cyclic) cyclic_system(l, s, sys.a.data(), sys.b.data(), sys.c.data(), x.data(), cp.data(), z.data());
    else thomas_system(l, s, sys.a.data(), sys.b.data(), sys.c.data(), x.data(), cp.data());
  }
  return tridiag_residual(l, cyclic, sys.a, sys.b, sys.c, sys.d, x);
}

template <class T>
void expect_every_layout_solves() {
  // contiguous, interleaved, and lines along y of a 7 x n x 5 field (inner = 7)
  for (int n : {1, 2, 3, 17, 64})
    for (int inner : {1, 35, 7}) {
      const TridiagLayout l{n, 35, inner};
      EXPECT_LE(cpu_residual<T>(l, false), 16 * eps<T>()) << "n " << n << " inner " << inner;
      if (n >= 3) {
        EXPECT_LE(cpu_residual<T>(l, true), 16 * eps<T>()) << "cyclic n " << n << " inner " << inner;
      }
    }
}

TEST(Tridiag, ThomasAndShermanMorrisonSolveEveryLayout) {
  expect_every_layout_solves<float>();
  expect_every_layout_solves<double>();
}

// The residual check itself fails a wrong answer: the solution of the non-periodic systems does not
// solve the periodic ones (the corners couple), and a perturbed solution does not solve either.
TEST(Tridiag, TheResidualSeesAWrongSolution) {
  const TridiagLayout l{16, 10, 10};
  const RandomSystems<double> sys = random_systems<double>(l, true, 3);
  std::vector<double> x = sys.d, cp(l.points());
  for (int s = 0; s < l.batch; ++s) thomas_system(l, s, sys.a.data(), sys.b.data(), sys.c.data(), x.data(), cp.data());
  EXPECT_GT(tridiag_residual(l, true, sys.a, sys.b, sys.c, sys.d, x), 1e-3);
  std::vector<double> a0 = sys.a, c0 = sys.c;
  for (int s = 0; s < l.batch; ++s) a0[l.index(s, 0)] = 0, c0[l.index(s, l.n - 1)] = 0;
  EXPECT_LE(tridiag_residual(l, false, a0, sys.b, c0, sys.d, x), 1e-14);
  x[l.index(3, 5)] += 1e-6;
  EXPECT_GT(tridiag_residual(l, false, a0, sys.b, c0, sys.d, x), 1e-7);
}

TEST(Tridiag, TheModelCountsFiveWordsAnUnknown) {
  const TridiagLayout l = tridiag_fixture_layout("contiguous", Grid{512, 512, 512, 1, 1, 1});
  EXPECT_EQ(l.points(), std::size_t(512) * 512 * 512);
  const WorkModel m = tridiag_model(l, kThomasFlopsPerPoint, 8);
  EXPECT_DOUBLE_EQ(m.bytes, 5.0 * 8 * 512 * 512 * 512);
  EXPECT_DOUBLE_EQ(m.flops, 9.0 * 512 * 512 * 512);
}

TEST(Tridiag, SerialAndOpenMpReferencesAgreeBitForBit) {
  for (const char* stage : {"contiguous", "interleaved", "lines_y", "cyclic", "pdd", "ppt"}) {
    const StageKind& k = StageKindRegistry::instance().get(std::string("tridiag/") + stage);
    FixtureSpec spec{stage, Grid{9, 24, 7, 1, 1, 1}, Backend::cpu_serial, k.workloads.back(), 5, true};
    const auto serial = k.fixture<double>()(spec);
    const auto omp = k.fixture<double>()(spec);
    const Variant& vs = Registry::instance().get(k.id(), "cpu_serial");
    const Variant& vo = Registry::instance().get(k.id(), "cpu_omp");
    serial->run(vs, vs.tunings.front());
    omp->run(vo, vo.tunings.front());
    EXPECT_EQ(serial->arrays(), omp->arrays()) << stage;
  }
}

// The PCR step and the PCR-then-Thomas split of the shared-memory variants (variants/tridiag/
// block_per_system.cuh), run here the way a block runs them: every row of a step from the previous
// step's rows (ping-pong), identity rows beyond the ends, then Thomas on each residue class mod S.
std::vector<double> pcr_then_thomas(const std::vector<TridiagRow<double>>& system, int stop_distance) {
  const int n = int(system.size());
  std::vector<TridiagRow<double>> cur = system, nxt(system.size());
  const TridiagRow<double> identity{0, 1, 0, 0};
  for (int stride = 1; stride < stop_distance; stride *= 2) {
    for (int j = 0; j < n; ++j)
      nxt[std::size_t(j)] = pcr_combine(j >= stride ? cur[std::size_t(j - stride)] : identity, cur[std::size_t(j)],
                                        j + stride < n ? cur[std::size_t(j + stride)] : identity);
    std::swap(cur, nxt);
  }
  std::vector<double> x(system.size());
  const int S = std::min(stop_distance, n);
  for (int r = 0; r < S; ++r) {  // Thomas on rows r, r + S, ...: a system of their own
    const TridiagLayout sub{(n - r + S - 1) / S, 1, 1};
    std::vector<double> a, b, c, d, cp(sub.points());
    for (int j = r; j < n; j += S) {
      const TridiagRow<double>& row = cur[std::size_t(j)];
      a.push_back(row.a), b.push_back(row.b), c.push_back(row.c), d.push_back(row.d);
    }
    thomas_system(sub, 0, a.data(), b.data(), c.data(), d.data(), cp.data());
    for (int j = r, k = 0; j < n; j += S, ++k) x[std::size_t(j)] = d[std::size_t(k)];
  }
  return x;
}

TEST(Tridiag, PcrAndPcrThenThomasSolveLikeThomas) {
  for (int n : {1, 3, 23, 64, 100, 512}) {
    const TridiagLayout l{n, 1, 1};
    const RandomSystems<double> sys = random_systems<double>(l, false, 5);
    std::vector<double> exact = sys.d, cp(l.points());
    thomas_system(l, 0, sys.a.data(), sys.b.data(), sys.c.data(), exact.data(), cp.data());
    std::vector<TridiagRow<double>> rows;
    for (std::size_t j = 0; j < std::size_t(n); ++j) rows.push_back({sys.a[j], sys.b[j], sys.c[j], sys.d[j]});
    int pow2 = 1;
    while (pow2 < n) pow2 *= 2;
    for (int stop : {1, 4, 32, pow2}) {  // 1: Thomas alone; pow2: PCR to the end
      const std::vector<double> x = pcr_then_thomas(rows, stop);
      EXPECT_LE(tridiag_residual(l, false, sys.a, sys.b, sys.c, sys.d, x), 16 * eps<double>()) << "n " << n << " S " << stop;
      double diff = 0;
      for (std::size_t j = 0; j < x.size(); ++j) diff = std::max(diff, std::abs(x[j] - exact[j]));
      EXPECT_LE(diff, 1e-14) << "n " << n << " S " << stop;
    }
  }
}

// The partition method of the partition_registers variants (variants/tridiag/partition_registers.cuh),
// composed here the way a block runs it: chunk k (rows pdd_block_start(n, K, k) ..) eliminated alone, the
// couplings outside the matrix left out as the kernel leaves them (partition_eliminate), the 2K rows of
// the reduced system handed to solve_reduced (rows -> their unknowns), each chunk's unknowns from its
// first and last (partition_unknown).
template <int M, class T, class Reduced>
std::vector<T> partition_solve(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                               const std::vector<T>& d, const Reduced& solve_reduced) {
  const int n = int(b.size()), chunks = partition_chunks(n, M);
  std::vector<PartitionLocal<T, M>> local;
  std::vector<TridiagRow<T>> reduced;
  for (int k = 0; k < chunks; ++k) {
    const int j0 = pdd_block_start(n, chunks, k), m = pdd_block_start(n, chunks, k + 1) - j0;
    EXPECT_TRUE(m <= M && (m >= 2 || n == 1)) << "n " << n << " M " << M << " chunk " << k << " of " << m << " rows";
    T ca[M], cb[M], cc[M], cd[M];
    for (int r = 0; r < M; ++r) {
      const std::size_t j = std::size_t(j0 + r);
      const bool in = r < m;
      ca[r] = in && j > 0 ? a[j] : T(0), cb[r] = in ? b[j] : T(1), cc[r] = in && int(j) < n - 1 ? c[j] : T(0);
      cd[r] = in ? d[j] : T(0);
    }
    local.push_back(partition_eliminate(ca, cb, cc, cd, m));
    reduced.push_back(local.back().first), reduced.push_back(local.back().last);
  }
  const std::vector<T> y = solve_reduced(reduced);
  std::vector<T> x(b.size());
  for (int k = 0; k < chunks; ++k) {
    const int j0 = pdd_block_start(n, chunks, k), m = pdd_block_start(n, chunks, k + 1) - j0;
    for (int r = 0; r < m; ++r)
      x[std::size_t(j0 + r)] = partition_unknown(local[std::size_t(k)], r, m, y[std::size_t(2 * k)], y[std::size_t(2 * k + 1)]);
  }
  return x;
}

template <class T>
std::vector<T> thomas_rows(const std::vector<TridiagRow<T>>& rows) {
  const TridiagLayout l{int(rows.size()), 1, 1};
  std::vector<T> a, b, c, x, cp(rows.size());
  for (const TridiagRow<T>& r : rows) a.push_back(r.a), b.push_back(r.b), c.push_back(r.c), x.push_back(r.d);
  thomas_system(l, 0, a.data(), b.data(), c.data(), x.data(), cp.data());
  return x;
}

// What the kernel runs: the reduced system by the same elimination (chunks of kPartitionReducedRows),
// Thomas on the rows that leaves.
template <int M, class T>
std::vector<T> partition_two_levels(const std::vector<T>& a, const std::vector<T>& b, const std::vector<T>& c,
                                    const std::vector<T>& d) {
  return partition_solve<M>(a, b, c, d, [](const std::vector<TridiagRow<T>>& rows) {
    std::vector<T> ra, rb, rc, rd;
    for (const TridiagRow<T>& r : rows) ra.push_back(r.a), rb.push_back(r.b), rc.push_back(r.c), rd.push_back(r.d);
    return partition_solve<kPartitionReducedRows>(ra, rb, rc, rd, thomas_rows<T>);
  });
}

// max |x - x_Thomas| / max |x_Thomas|
template <class T>
double relative_difference(const std::vector<T>& x, const std::vector<T>& exact) {
  double scale = 0, diff = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    scale = std::max(scale, std::abs(double(exact[j]))), diff = std::max(diff, std::abs(double(x[j]) - double(exact[j])));
  return scale > 0 ? diff / scale : diff;
}

// Exact, unlike PDD: the fixture's dominant systems give Thomas's solution to rounding (16 units here,
// the family's tolerance is 256) for every length from 1 to 600, chunks of 4, 8 and 16 rows, n a multiple
// of the chunk or not, systems shorter than one chunk, float and double.
template <int M, class T>
void expect_partition_equals_thomas(double& worst) {
  std::vector<int> lengths;
  for (int n = 1; n <= 70; ++n) lengths.push_back(n);
  for (int n : {95, 96, 97, 127, 128, 129, 255, 256, 257, 400, 511, 512, 513, 600}) lengths.push_back(n);
  for (int n : lengths) {
    const TridiagLayout l{n, 1, 1};
    const RandomSystems<T> sys = random_systems<T>(l, false, unsigned(n));
    std::vector<T> exact = sys.d, cp(l.points());
    thomas_system(l, 0, sys.a.data(), sys.b.data(), sys.c.data(), exact.data(), cp.data());
    const std::vector<T> x = partition_two_levels<M>(sys.a, sys.b, sys.c, sys.d);
    const double diff = relative_difference(x, exact);
    worst = std::max(worst, diff);
    EXPECT_LE(diff, 16 * eps<T>()) << "n " << n << " M " << M << " elem " << sizeof(T);
    EXPECT_LE(tridiag_residual(l, false, sys.a, sys.b, sys.c, sys.d, x), 16 * eps<T>()) << "n " << n << " M " << M;
  }
}

TEST(TridiagPartition, EqualsThomasOnDominantSystemsOfEveryLength) {
  double worst[2] = {0, 0};
  expect_partition_equals_thomas<4, float>(worst[0]);
  expect_partition_equals_thomas<8, float>(worst[0]);
  expect_partition_equals_thomas<16, float>(worst[0]);
  expect_partition_equals_thomas<4, double>(worst[1]);
  expect_partition_equals_thomas<8, double>(worst[1]);
  expect_partition_equals_thomas<16, double>(worst[1]);
  std::printf("partition vs Thomas, n = 1..600, M = 4, 8, 16: max |x - x_Thomas| / max |x_Thomas| float %.2e (%.1f ulps), "
              "double %.2e (%.1f ulps)\n", worst[0], worst[0] / eps<float>(), worst[1], worst[1] / eps<double>());
}

// A wrong coupling shows: the same solve with one chunk's first row cut from the chunk above (a_0 of
// chunk 1 dropped) is far from Thomas.
TEST(TridiagPartition, ADroppedCouplingShows) {
  const TridiagLayout l{64, 1, 1};
  const RandomSystems<double> sys = random_systems<double>(l, false, 4);
  std::vector<double> exact = sys.d, cp(l.points());
  thomas_system(l, 0, sys.a.data(), sys.b.data(), sys.c.data(), exact.data(), cp.data());
  std::vector<double> cut = sys.a;
  cut[std::size_t(pdd_block_start(64, partition_chunks(64, 16), 1))] = 0;
  EXPECT_GT(relative_difference(partition_two_levels<16>(cut, sys.b, sys.c, sys.d), exact), 1e-3);
}

// The paper's y-systems (256-cell tanh grid): ADI momentum I - beta D2 and the nearly singular Poisson
// D2 - k2, where PDD fails (TridiagPdd below). The reduced system is the Schur complement of the chunks'
// interiors, as dominant as A; solved by the two levels its residual is Thomas's, and its solution
// Thomas's within the family's 256 units where the system is well conditioned (elsewhere two
// backward-stable solves differ by the conditioning). PCR on the same reduced rows (pcr_then_thomas to
// the end, as pcr_shared) is not backward stable on the Poisson systems: why the kernel does not use it.
TEST(TridiagPartition, SolvesThePapersYSystemsAsThomasDoes) {
  const SecondDifference d2 = second_difference(tanh_stretched_faces(256));
  std::printf("partition (M = 16, 8) on the paper's y-systems, n = 256: error relative to Thomas; residuals "
              "(Thomas, the two levels, PCR on the reduced system)\n");
  auto check = [&](const SingleSystem& sys, const char* what, double param, bool well_conditioned) {
    const TridiagLayout l{int(sys.b.size()), 1, 1};
    std::vector<double> d(sys.b.size());
    for (std::size_t j = 0; j < d.size(); ++j) d[j] = tridiag_random(3, 4, j) * std::abs(sys.b[j]);
    std::vector<double> exact = d, cp(d.size());
    thomas_system(l, 0, sys.a.data(), sys.b.data(), sys.c.data(), exact.data(), cp.data());
    auto residual = [&](const std::vector<double>& x) { return tridiag_residual(l, false, sys.a, sys.b, sys.c, d, x); };
    const double res_thomas = residual(exact);
    const auto pcr = [](const std::vector<TridiagRow<double>>& rows) {
      int pow2 = 1;
      while (pow2 < int(rows.size())) pow2 *= 2;
      return pcr_then_thomas(rows, pow2);
    };
    for (const auto& [x, x_pcr] : {std::pair{partition_two_levels<16>(sys.a, sys.b, sys.c, d), partition_solve<16>(sys.a, sys.b, sys.c, d, pcr)},
                                   std::pair{partition_two_levels<8>(sys.a, sys.b, sys.c, d), partition_solve<8>(sys.a, sys.b, sys.c, d, pcr)}}) {
      const double diff = relative_difference(x, exact), res = residual(x), res_pcr = residual(x_pcr);
      std::printf("  %s %7.0e  two levels %9.2e   residual Thomas %9.2e two levels %9.2e PCR %9.2e\n", what, param, diff,
                  res_thomas, res, res_pcr);
      EXPECT_LE(res, 8 * std::max(res_thomas, 1e-16)) << what << " " << param;
      if (well_conditioned) {
        EXPECT_LE(diff, 256 * eps<double>()) << what << " " << param;
      }
      if (param == 1e-10) {
        EXPECT_GT(res_pcr, 1e-6) << "PCR on the reduced Poisson system: " << what << " " << param;
      }
    }
  };
  for (double beta : {1e-6, 1e-4, 1e-2, 1.0}) check(momentum_system(d2, beta), "momentum beta", beta, beta <= 1e-4);
  for (double k2 : {1e-2, 1e-6, 1e-10}) check(poisson_system(d2, k2), "Poisson k2", k2, false);
}

// ----------------------------------------------------------------------------------- PDD and PPT

// PDD and PPT on one system split into p blocks, against Thomas: the error relative to Thomas's
// solution, and the residual of each (the Poisson systems are nearly singular at small k2, so there the
// residual, not the difference from Thomas, tells a solver that works from one that does not).
struct SplitErrors {
  double pdd, ppt;                  // max |x - x_Thomas| / max |x_Thomas|
  double res_thomas, res_pdd, res_ppt;  // max |A x - d| / max |d|
};

SplitErrors split_errors(const SingleSystem& m, int p, unsigned seed) {
  const TridiagLayout l{int(m.b.size()), 1, 1};
  std::vector<double> d(m.b.size());
  for (std::size_t j = 0; j < d.size(); ++j) d[j] = tridiag_random(seed, 4, j) * std::abs(m.b[j]);
  std::vector<double> exact = d, pdd = d, ppt = d, cp(d.size()), v(d.size()), w(d.size());
  thomas_system(l, 0, m.a.data(), m.b.data(), m.c.data(), exact.data(), cp.data());
  pdd_system(l, 0, p, m.a.data(), m.b.data(), m.c.data(), pdd.data(), PddScratch<double>{v.data(), w.data(), cp.data()});
  ppt_system(l, 0, p, m.a.data(), m.b.data(), m.c.data(), ppt.data(), PddScratch<double>{v.data(), w.data(), cp.data()});
  double scale = 0, e_pdd = 0, e_ppt = 0;
  for (std::size_t j = 0; j < d.size(); ++j) {
    scale = std::max(scale, std::abs(exact[j]));
    e_pdd = std::max(e_pdd, std::abs(pdd[j] - exact[j]));
    e_ppt = std::max(e_ppt, std::abs(ppt[j] - exact[j]));
  }
  auto residual = [&](const std::vector<double>& x) { return tridiag_residual(l, false, m.a, m.b, m.c, d, x); };
  return {e_pdd / scale, e_ppt / scale, residual(exact), residual(pdd), residual(ppt)};
}

// Notes Sec. 1.7: on a 256-cell tanh-stretched grid, PDD is exact to rounding when beta / dy^2 is small
// (DNS time steps) and the blocks thick, and not otherwise: "+1 dominance" alone is not enough. At p = 2
// the reduced system is the one 2x2 block, so PDD is PPT. PPT solves as well as Thomas (its residual).
TEST(TridiagPdd, MomentumSystemsReachMachineAccuracyAtSmallBeta) {
  const SecondDifference d2 = second_difference(tanh_stretched_faces(256));
  std::printf("ADI momentum I - beta D2, n = 256, tanh-stretched (s = 3): error relative to Thomas; residuals\n");
  for (int p : {2, 4, 8})
    for (double beta : {1e-6, 1e-4, 1e-2, 1.0}) {
      const SplitErrors e = split_errors(momentum_system(d2, beta), p, 1);
      std::printf("  p %d beta %7.0e  PDD %9.2e  PPT %9.2e   residual Thomas %9.2e PDD %9.2e PPT %9.2e\n", p, beta,
                  e.pdd, e.ppt, e.res_thomas, e.res_pdd, e.res_ppt);
      EXPECT_LE(e.res_ppt, 8 * std::max(e.res_thomas, 1e-16)) << "PPT is exact; p " << p << " beta " << beta;
      if (p == 2 || (p == 4 && beta <= 1e-6)) {
        EXPECT_LE(e.res_pdd, 8 * std::max(e.res_thomas, 1e-16)) << "p " << p << " beta " << beta;
      }
      if (p >= 4 && beta >= 1e-2) {
        EXPECT_GT(e.pdd, 1e-2) << "PDD's dropped terms matter here; p " << p << " beta " << beta;
      }
    }
}

// The paper's claim behind PPT: PDD on the Poisson y-systems (|b| = |a| + |c| + eps, eps 1e-6..1e-10)
// is inaccurate; PPT solves them as well as Thomas does. (At p = 2 PDD is exact: one interface.)
TEST(TridiagPdd, PoissonSystemsDefeatPddButNotPpt) {
  const SecondDifference d2 = second_difference(tanh_stretched_faces(256));
  std::printf("Poisson D2 - k2 (rows scaled), n = 256: error relative to Thomas; residuals\n");
  for (int p : {2, 4, 8})
    for (double k2 : {1e-2, 1e-6, 1e-10}) {
      const SplitErrors e = split_errors(poisson_system(d2, k2), p, 2);
      std::printf("  p %d k2 %7.0e  PDD %9.2e  PPT %9.2e   residual Thomas %9.2e PDD %9.2e PPT %9.2e\n", p, k2, e.pdd,
                  e.ppt, e.res_thomas, e.res_pdd, e.res_ppt);
      EXPECT_LE(e.res_ppt, 8 * std::max(e.res_thomas, 1e-16)) << "p " << p << " k2 " << k2;
      if (p >= 4) {
        EXPECT_GT(e.res_pdd, 1e-3) << "p " << p << " k2 " << k2;
        EXPECT_GT(e.pdd, 0.5) << "p " << p << " k2 " << k2;
      }
    }
}

// PPT on random, barely structured systems split unevenly: exact whatever the dominance.
TEST(TridiagPdd, PptIsExactOnUnevenSplits) {
  const TridiagLayout l{23, 1, 1};
  const RandomSystems<double> sys = random_systems<double>(l, false, 9);
  std::vector<double> exact = sys.d, x = sys.d, cp(23), v(23), w(23);
  thomas_system(l, 0, sys.a.data(), sys.b.data(), sys.c.data(), exact.data(), cp.data());
  for (int p : {2, 3, 5, 8}) {
    x = sys.d;
    ppt_system(l, 0, p, sys.a.data(), sys.b.data(), sys.c.data(), x.data(), PddScratch<double>{v.data(), w.data(), cp.data()});
    double diff = 0;
    for (std::size_t j = 0; j < x.size(); ++j) diff = std::max(diff, std::abs(x[j] - exact[j]));
    EXPECT_LE(diff, 1e-14) << "p " << p;
  }
}

// Through the stage kinds: tridiag/ppt on p blocks equals Thomas on the same lines (tridiag/lines_y),
// tridiag/pdd does not (the fixture's systems are dominant by less than the momentum matrices).
TEST(TridiagPdd, ThePptStageEqualsThomasAndThePddStageDoesNot) {
  const Grid g{6, 24, 5, 1, 1, 1};
  auto solve = [&](const char* stage, const std::string& workload) {
    const StageKind& k = StageKindRegistry::instance().get(std::string("tridiag/") + stage);
    const auto fx = k.fixture<double>()(FixtureSpec{stage, g, Backend::cpu_serial, workload, 3, true});
    const Variant& v = Registry::instance().get(k.id(), "cpu_serial");
    fx->run(v, v.tunings.front());
    return fx->arrays().back().second;
  };
  const std::vector<double> thomas = solve("lines_y", "");
  for (const char* p : {"p2", "p4"}) {
    const std::vector<double> ppt = solve("ppt", p), pdd = solve("pdd", p);
    double d_ppt = 0, d_pdd = 0;
    for (std::size_t i = 0; i < thomas.size(); ++i)
      d_ppt = std::max(d_ppt, std::abs(ppt[i] - thomas[i])), d_pdd = std::max(d_pdd, std::abs(pdd[i] - thomas[i]));
    EXPECT_LE(d_ppt, 1e-13) << p;
    if (std::string(p) == "p4") {
      EXPECT_GT(d_pdd, 1e-6) << p;  // at p = 2 PDD is PPT (one interface)
    }
  }
}

// Strided lines of random systems (inner = nx: the y lines of a field) for the phased solve.
struct RowsOfArrays {
  const double *a, *b, *c;
  std::size_t first, stride;
  struct Row {
    double lower, diag, upper;
  };
  Row operator()(int j) const {
    const std::size_t i = first + std::size_t(j) * stride;
    return {a[i], b[i], c[i]};
  }
};
struct RandomLines {
  TridiagLayout l;
  int p;
  const RandomSystems<double>* sys;
  double *x, *v, *w, *cp;
  std::size_t count() const { return std::size_t(l.batch); }
  int ranks() const { return p; }
  bool whole_line_steps() const { return false; }
  void before(std::size_t) const {}
  void after(std::size_t) const {}
  SplitLine<double, RowsOfArrays> line(std::size_t s) const {
    const std::size_t f = l.index(int(s), 0);
    const auto st = std::ptrdiff_t(l.stride());
    return {RowsOfArrays{sys->a.data(), sys->b.data(), sys->c.data(), f, l.stride()}, l.n, x + f, st, v + f, w + f, cp + f, st, 0, 0};
  }
};

// split_phases.hpp, rank after rank and phase after phase, gives split_line_solve's numbers bit for
// bit (PDD and PPT, even and uneven blocks), and times each rank's phases as sections of their own:
// PDD's exchange is two messages on the inner ranks (Steps 4 and 6), one on the end ranks, and the last
// rank has no interface to solve; PPT's every rank gathers and solves.
TEST(TridiagPdd, ThePhasedSolveEqualsTheOneThreadSolveAndTimesEachRank) {
  const TridiagLayout l{29, 12, 4};
  const RandomSystems<double> sys = random_systems<double>(l, false, 5);
  for (int p : {2, 3, 4, 8})
    for (bool exact : {false, true}) {
      std::vector<double> fused = sys.d, phased = sys.d, v(l.points()), w(l.points()), cp(l.points());
      for (int s = 0; s < l.batch; ++s) {
        const std::size_t f = l.index(s, 0);
        split_line_solve(RowsOfArrays{sys.a.data(), sys.b.data(), sys.c.data(), f, l.stride()}, l.n, p, exact, fused.data() + f,
                         std::ptrdiff_t(l.stride()), v.data() + f, w.data() + f, cp.data() + f, std::ptrdiff_t(l.stride()));
      }
      std::vector<double> words(split_buffer_words(std::size_t(l.batch), p, exact));
      const RandomLines lines{l, p, &sys, phased.data(), v.data(), w.data(), cp.data()};
      CpuTimer timer;
      split_solve_phased(lines, split_buffers(words.data(), std::size_t(l.batch), p, exact), exact, HostSplitLaunch{},
                         RankPhaseSections{&timer, 0});
      EXPECT_EQ(phased, fused) << "p " << p << (exact ? " PPT" : " PDD");
      std::vector<int> calls(std::size_t(p * kSplitPhases), 0);
      for (const Sample& smp : timer.samples()) ++calls[std::size_t(smp.section)];
      for (int r = 0; r < p; ++r) {
        const int inner = r > 0 && r + 1 < p;
        EXPECT_EQ(calls[std::size_t(r * kSplitPhases + kSplitLocal)], 1);
        EXPECT_EQ(calls[std::size_t(r * kSplitPhases + kSplitCorrect)], 1);
        EXPECT_EQ(calls[std::size_t(r * kSplitPhases + kSplitExchange)], exact ? 1 : 1 + inner) << "rank " << r;
        EXPECT_EQ(calls[std::size_t(r * kSplitPhases + kSplitReduced)], exact || r + 1 < p ? 1 : 0) << "rank " << r;
      }
    }
}

// The local phase with its factors set up once (split_factor, then split_local_factored: x~ swept
// against the stored c') gives the per-line form's (split_local: x~, v, w, c' in one sweep) x~, v, w and
// c' bit for bit, on every block of even and uneven splits; a factor left out (c' of another matrix)
// changes x~.
TEST(TridiagPdd, SharedFactorsGiveThePerLineLocalPhaseBitForBit) {
  const TridiagLayout l{29, 12, 4};
  const RandomSystems<double> sys = random_systems<double>(l, false, 7);
  for (int p : {2, 3, 4, 8}) {
    std::vector<double> x1 = sys.d, v1(l.points()), w1(l.points()), cp1(l.points());
    std::vector<double> x2 = sys.d, v2(l.points()), w2(l.points()), cp2(l.points());
    const RandomLines per_line{l, p, &sys, x1.data(), v1.data(), w1.data(), cp1.data()};
    const RandomLines factored{l, p, &sys, x2.data(), v2.data(), w2.data(), cp2.data()};
    for (int s = 0; s < l.batch; ++s)
      for (int r = 0; r < p; ++r) {
        split_local(per_line.line(std::size_t(s)), p, r);
        split_factor(factored.line(std::size_t(s)), p, r);
        split_local_factored(factored.line(std::size_t(s)), p, r);
      }
    EXPECT_EQ(x2, x1) << "p " << p;
    EXPECT_EQ(v2, v1) << "p " << p;
    EXPECT_EQ(w2, w1) << "p " << p;
    EXPECT_EQ(cp2, cp1) << "p " << p;
    std::vector<double> x3 = sys.d, cp_other = cp1;  // the x sweep reads c': another system's gives another x~
    for (std::size_t i = 0; i < cp_other.size(); ++i) cp_other[i] *= 1.0 + 1e-3;
    const RandomLines wrong{l, p, &sys, x3.data(), v1.data(), w1.data(), cp_other.data()};
    for (int r = 0; r < p; ++r) split_local_factored(wrong.line(0), p, r);
    EXPECT_NE(x3[l.index(0, l.n - 1)], x1[l.index(0, l.n - 1)]) << "p " << p;
  }
}

// Rank r's lines in a real run: its block of rows [j0, j1) of every system in arrays of its own (the
// layout `mine` of j1 - j0 rows), the matrix rows read from the whole systems by their global index.
struct RankLines {
  TridiagLayout whole, mine;
  int p, j0;
  const RandomSystems<double>* sys;
  double *x, *v, *w, *cp;
  std::size_t count() const { return std::size_t(whole.batch); }
  int ranks() const { return p; }
  bool whole_line_steps() const { return false; }
  void before(std::size_t) const {}
  void after(std::size_t) const {}
  SplitLine<double, RowsOfArrays> line(std::size_t s) const {
    const std::size_t f = mine.index(int(s), 0);
    const auto st = std::ptrdiff_t(mine.stride());
    return {RowsOfArrays{sys->a.data(), sys->b.data(), sys->c.data(), whole.index(int(s), 0), whole.stride()},
            whole.n, x + f, st, v + f, w + f, cp + f, st, j0, 0};
  }
};

// What rank r of p holds in a real run: its block of rows [j0, j1) of every system (its right-hand sides
// copied in), its own v, w, c'; its lines (RankLines), and its rows written back into a whole array.
struct RankBlock {
  const TridiagLayout& whole;
  const RandomSystems<double>& sys;
  int p, j0, j1;
  TridiagLayout mine;
  std::vector<double> x, v, w, cp;
  RankBlock(const TridiagLayout& l, const RandomSystems<double>& s, int ranks, int r)
      : whole(l), sys(s), p(ranks), j0(pdd_block_start(l.n, ranks, r)), j1(pdd_block_start(l.n, ranks, r + 1)),
        mine{j1 - j0, l.batch, l.inner}, x(mine.points()), v(mine.points()), w(mine.points()), cp(mine.points()) {
    for (int b = 0; b < whole.batch; ++b)
      for (int j = j0; j < j1; ++j) x[mine.index(b, j - j0)] = sys.d[whole.index(b, j)];
  }
  RankLines lines() { return {whole, mine, p, j0, &sys, x.data(), v.data(), w.data(), cp.data()}; }
  void write_into(std::vector<double>& out) const {  // the ranks' rows are disjoint
    for (int b = 0; b < whole.batch; ++b)
      for (int j = j0; j < j1; ++j) out[whole.index(b, j)] = x[mine.index(b, j - j0)];
  }
};

// One thread a rank (the threads driver's ThreadComm), each holding only its block of every line and its
// own buffers, the messages through the Communicator (split_comm.hpp): split_solve_rank gives the
// emulation's numbers bit for bit (PDD and PPT, even and uneven blocks), each rank timing its own phases
// (PDD: two messages on every rank, each takes part in both; the last rank solves no interface).
TEST(TridiagPdd, RealRanksEqualThePhasedEmulation) {
  const TridiagLayout l{29, 12, 4};
  const RandomSystems<double> sys = random_systems<double>(l, false, 5);
  const std::size_t lines = std::size_t(l.batch);
  for (int p : {2, 3, 4})
    for (bool exact : {false, true}) {
      std::vector<double> emulated = sys.d, v(l.points()), w(l.points()), cp(l.points());
      std::vector<double> words(split_buffer_words(lines, p, exact));
      split_solve_phased(RandomLines{l, p, &sys, emulated.data(), v.data(), w.data(), cp.data()},
                         split_buffers(words.data(), lines, p, exact), exact, HostSplitLaunch{}, RankPhaseSections{});
      std::vector<double> real(l.points(), std::nan(""));
      std::vector<std::vector<int>> calls(std::size_t(p), std::vector<int>(std::size_t(p * kSplitPhases), 0));
      const auto group = std::make_shared<ThreadGroup>(p);
      std::vector<std::thread> ranks;
      for (int r = 0; r < p; ++r)
        ranks.emplace_back([&, r] {
          ThreadComm comm(group, r);
          CommSplitMessages<double> messages(comm);
          RankBlock block(l, sys, p, r);
          std::vector<double> own(split_buffer_words(lines, p, exact, 1));
          CpuTimer timer;
          split_solve_rank(block.lines(), split_buffers(own.data(), lines, p, exact, 1), exact, HostSplitLaunch{},
                           RankPhaseSections{&timer, 0}, r, messages);
          block.write_into(real);
          for (const Sample& smp : timer.samples()) ++calls[std::size_t(r)][std::size_t(smp.section)];
        });
      for (std::thread& t : ranks) t.join();
      EXPECT_EQ(real, emulated) << "p " << p << (exact ? " PPT" : " PDD");
      for (int r = 0; r < p; ++r) {
        const std::vector<int>& c = calls[std::size_t(r)];
        for (int other = 0; other < p * kSplitPhases; ++other)
          if (other / kSplitPhases != r) {
            EXPECT_EQ(c[std::size_t(other)], 0) << "rank " << r << " timed another rank's phase";
          }
        EXPECT_EQ(c[std::size_t(r * kSplitPhases + kSplitLocal)], 1);
        EXPECT_EQ(c[std::size_t(r * kSplitPhases + kSplitPack)], 1);
        EXPECT_EQ(c[std::size_t(r * kSplitPhases + kSplitCorrect)], 1);
        EXPECT_EQ(c[std::size_t(r * kSplitPhases + kSplitExchange)], exact ? 1 : 2) << "rank " << r;
        EXPECT_EQ(c[std::size_t(r * kSplitPhases + kSplitReduced)], exact || r + 1 < p ? 1 : 0) << "rank " << r;
      }
    }
}

// V2-async's pipelined solve (split_solve_rank_pipelined), checked on the host where it really runs (the
// threads driver, messages through the Communicator): with K batches it gives split_solve_rank's numbers
// bit for bit (PDD and PPT, K = 1, uneven batches, K past the line count), and it issues its work in the
// order the overlap needs, logged per rank: every batch's kernels (k) and first message (m) posted right
// after its pack, each message preceded by a hand-over from the compute work (h) and followed by a mark
// (M); then each batch's reduced kernel after a wait (w) for its message's mark, PDD's second message
// likewise; then the corrections. Every mark is waited for before the solve returns (else the next
// kernels on a GPU could read a message still travelling), and each message carries its batch's words.
struct LoggedLaunch {
  std::string* log;
  template <class Op>
  void each(std::size_t n, const Op& op) const {
    *log += 'k';
    HostSplitLaunch{}.each(n, op);
  }
};
struct LoggedMessages final : SplitMessages<double> {
  SplitMessages<double>& inner;
  std::string* log;
  std::vector<std::size_t> words;
  LoggedMessages(SplitMessages<double>& m, std::string* l) : inner(m), log(l) {}
  void allgather(const double* send, double* recv, std::size_t n) override { note(n), inner.allgather(send, recv, n); }
  void from_next(const double* send, double* recv, std::size_t n) override { note(n), inner.from_next(send, recv, n); }
  void from_prev(const double* send, double* recv, std::size_t n) override { note(n), inner.from_prev(send, recv, n); }
  void note(std::size_t n) { *log += 'm', words.push_back(n); }
};
struct LoggedOverlap final : SplitOverlap {
  std::string* log;
  int marks = 0;
  std::vector<int> waited;
  explicit LoggedOverlap(std::string* l) : log(l) {}
  void start() override { marks = 0, waited.clear(); }
  void messages_after_compute() override { *log += 'h'; }
  int mark_messages() override {
    *log += 'M';
    return marks++;
  }
  void compute_after(int mark) override { *log += 'w', waited.push_back(mark); }
};
std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}
TEST(TridiagPdd, PipelinedRankSolveEqualsTheRankSolveInItsIssueOrder) {
  const TridiagLayout l{29, 12, 4};
  const RandomSystems<double> sys = random_systems<double>(l, false, 9);
  const std::size_t lines = std::size_t(l.batch);
  for (int p : {2, 3})
    for (bool exact : {false, true})
      for (int batches : {1, 3, 5, 12, 40}) {
        const std::size_t k = std::min<std::size_t>(std::size_t(batches), lines);
        std::vector<double> one(l.points(), std::nan("")), piped(l.points(), std::nan(""));
        const std::size_t ranks_count = static_cast<std::size_t>(p);
        std::vector<std::string> logs(ranks_count);
        std::vector<std::vector<std::size_t>> words(ranks_count);
        std::vector<std::vector<int>> waited(ranks_count);
        const auto group = std::make_shared<ThreadGroup>(p);
        std::vector<std::thread> ranks;
        for (int r = 0; r < p; ++r)
          ranks.emplace_back([&, r] {
            ThreadComm comm(group, r);
            CommSplitMessages<double> messages(comm);
            for (bool pipelined : {false, true}) {
              RankBlock block(l, sys, p, r);
              std::vector<double> own(split_buffer_words(lines, p, exact, 1), std::nan(""));
              const RankLines mine_lines = block.lines();
              if (pipelined) {
                std::string& log = logs[std::size_t(r)];
                LoggedMessages logged(messages, &log);
                LoggedOverlap overlap(&log);
                split_solve_rank_pipelined(mine_lines, own.data(), exact, LoggedLaunch{&log}, r, logged, overlap, batches);
                words[std::size_t(r)] = logged.words, waited[std::size_t(r)] = overlap.waited;
              } else {
                split_solve_rank(mine_lines, split_buffers(own.data(), lines, p, exact, 1), exact, HostSplitLaunch{}, RankPhaseSections{}, r,
                                 messages);
              }
              block.write_into(pipelined ? piped : one);
            }
          });
        for (std::thread& t : ranks) t.join();
        const std::string what = "p " + std::to_string(p) + (exact ? " PPT" : " PDD") + " batches " + std::to_string(batches);
        EXPECT_EQ(piped, one) << what;
        for (int r = 0; r < p; ++r) {
          const bool reduced = exact || r + 1 < p;
          const std::string expected = repeat("kkhmM", k) + (exact ? repeat("wk", k) : repeat(reduced ? "wkhmM" : "whmM", k)) +
                                       (exact ? repeat("k", k) : repeat("wk", k));
          EXPECT_EQ(logs[std::size_t(r)], expected) << what << " rank " << r;
          std::vector<int> all(exact ? k : 2 * k);
          for (std::size_t i = 0; i < all.size(); ++i) all[i] = int(i);
          EXPECT_EQ(waited[std::size_t(r)], all) << what << " rank " << r << ": every mark waited for, in order";
          std::size_t sent = 0;
          for (std::size_t b = 0; b < k; ++b) sent += words[std::size_t(r)][b];
          EXPECT_EQ(sent, (exact ? std::size_t(kSbCount) : 2) * lines) << what << ": the batches' first messages cover every line once";
        }
      }
}

TEST(TridiagPdd, RefusesBlocksOfFewerThanTwoUnknowns) {
  const StageKind& k = StageKindRegistry::instance().get("tridiag/pdd");
  FixtureSpec spec{"pdd", Grid{3, 7, 2, 1, 1, 1}, Backend::cpu_serial, "p4", 1, true};
  const auto fx = k.fixture<double>()(spec);
  const Variant& v = Registry::instance().get(k.id(), "cpu_serial");
  EXPECT_THROW(fx->run(v, v.tunings.front()), std::invalid_argument);
}

// ------------------------------------------------------------------------------------------- GPU

TEST(TridiagGpu, EveryVariantPassesVerify) {
  NSB_NEEDS_GPU();
  VerifyOptions o;
  o.solver = "tridiag";
  const std::vector<VerifyResult> results = verify_variants(o);
  EXPECT_FALSE(results.empty());
  for (const VerifyResult& r : results)
    EXPECT_TRUE(r.pass) << r.id << ":" << r.tuning << " " << r.precision << " " << r.grid << " " << r.scheme << ": "
                        << r.message << " (" << r.max_rel_diff << " > " << r.tolerance << ")";
}

// Each GPU variant by its own residual, on systems long enough for the shared-memory paths' PCR steps
// and the Thomas finish (n = 512, the benchmark's length; n = 100, not a power of 2).
template <class T>
void expect_gpu_residual(const StageKind& k, const Variant& v, const Grid& g) {
  if (k.name == "pdd") return;  // PDD is an approximation: verify checks it against the CPU PDD
  const TridiagLayout l = tridiag_fixture_layout(k.name, g);
  const RandomSystems<T> sys = random_systems<T>(l, k.name == "cyclic", 1);
  for (const Tuning& t : v.tunings) {
    const auto fx = k.fixture<T>()(FixtureSpec{k.name, g, Backend::cuda, k.workloads.front(), 1, true});
    fx->run(v, t);
    const auto arrays = fx->arrays();
    EXPECT_LE(tridiag_residual(l, k.name == "cyclic", sys.a, sys.b, sys.c, sys.d, arrays.back().second), 64 * eps<T>())
        << v.id() << ":" << t.name << " n " << l.n << " elem " << sizeof(T);
  }
}

TEST(TridiagGpu, EveryVariantSolvesByItsResidual) {
  NSB_NEEDS_GPU();
  for (const StageKind* k : StageKindRegistry::instance().of_solver("tridiag"))
    for (const Variant* v : Registry::instance().of_stage(k->id()))
      if (v->backend == Backend::cuda)
        for (const Grid& g : {Grid{8, 512, 9, 1, 1, 1}, Grid{33, 100, 5, 1, 1, 1}}) {
          expect_gpu_residual<float>(*k, *v, g);
          expect_gpu_residual<double>(*k, *v, g);
        }
}

// partition_shared_async's and partition_registers_ahead's blocks are persistent (as many as the SMs hold,
// each solving every gridDim.x-th tile of bx systems, the next tile's loads in flight while it solves one):
// on the grids above every block solves one tile at most, so the loads ahead are never used. 511 x 129
// systems of 100 unknowns give every block of every tuning several tiles (about 8 to 28 on an H100;
// tiles straddle the field's x rows in lines_y, and the last one has spare lanes).
TEST(TridiagGpu, PersistentPartitionVariantsSolveSeveralTilesABlock) {
  NSB_NEEDS_GPU();
  for (const auto& [stage, variant] : {std::pair{"tridiag/lines_y", "partition_shared_async"},
                                       std::pair{"tridiag/interleaved", "partition_shared_async"},
                                       std::pair{"tridiag/lines_y", "partition_registers_ahead"}}) {
    const StageKind& k = StageKindRegistry::instance().get(stage);
    const Variant& v = Registry::instance().get(stage, variant);
    expect_gpu_residual<float>(k, v, Grid{511, 100, 129, 1, 1, 1});
    expect_gpu_residual<double>(k, v, Grid{511, 100, 129, 1, 1, 1});
  }
}

}  // namespace
}  // namespace nsb
