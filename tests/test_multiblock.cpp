// The multiblock solver (Kemal, Davis & Owens 2015; harness/solvers/multiblock/): its mesh and rank
// assignment, free-stream preservation and conservation across block interfaces on the CPU, the whole
// loop serial vs OpenMP, P ranks against one, and (with a GPU) the loop's residual history GPU vs CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <thread>

#include "device.hpp"
#include "multiblock/boundary.hpp"
#include "multiblock/time_loop.hpp"
#include "multiblock/multigrid.hpp"
#include "multiblock/stage_call.hpp"
#include "recipe.hpp"
#include "registry.hpp"
#include "run.hpp"
#include "gpu_test_support.hpp"

namespace nsb {
namespace {

constexpr int kN = 17;

std::unique_ptr<Problem> cylinder(int n, const std::vector<std::string>& params = {}) {
  CaseOptions o;
  o.name = "conjugate_cylinder";
  o.nx = o.ny = n, o.nz = kMbBlocks;
  o.params = params;
  return SolverRegistry::instance().of_case("conjugate_cylinder").make_problem(o);
}

// Host arrays of every field over a mesh, geometry filled in.
struct HostFields {
  std::vector<std::vector<double>> store;
  MbArrays<double> a{};
  explicit HostFields(const MbMesh& m) : store(kMbFieldCount, std::vector<double>(m.grid.padded_points(), 0.0)) {
    for (int f = 0; f < kMbFieldCount; ++f) a.f[f] = store[std::size_t(f)].data();
    const std::vector<double>* geometry[] = {&m.x, &m.y, &m.xi_x, &m.xi_y, &m.eta_x, &m.eta_y, &m.hlen, &m.vol};
    for (int f = kX; f <= kVol; ++f) store[std::size_t(f)] = *geometry[f - kX];
  }
};

void run_cpu(MbStage s, const MbMesh& m, HostFields& h, MbHostSide<double>* side = nullptr) {
  MbCall<double> c;
  c.grid = m.grid;
  c.a = h.a;
  std::vector<int> all(kMbBlocks);
  for (int b = 0; b < kMbBlocks; ++b) all[std::size_t(b)] = b;
  for (int b : mb_blocks_of(all, s)) c.blocks[c.nblocks++] = b;
  c.host = side;
  const Variant& v = Registry::instance().get(std::string("multiblock/") + kMbStageNames[int(s)], "cpu_serial");
  v.fn<MbCall<double>>()(c);
}

TEST(Multiblock, RankAssignmentIsThePapers) {
  // notes Sec. 1.3: floor(13 / P) consecutive blocks per rank, the remainder to the last.
  EXPECT_EQ(mb_rank_blocks(4), (std::vector<std::vector<int>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11, 12}}));
  EXPECT_EQ(mb_rank_blocks(8).back(), (std::vector<int>{7, 8, 9, 10, 11, 12}));  // 1 fluid + 5 solid
  for (int p = 1; p <= 8; ++p) {
    const auto r = mb_rank_blocks(p);
    ASSERT_EQ(int(r.size()), p);
    for (int k = 0; k + 1 < p; ++k) EXPECT_EQ(int(r[std::size_t(k)].size()), kMbBlocks / p);
  }
  EXPECT_THROW(mb_rank_blocks(14), std::invalid_argument);
}

TEST(Multiblock, MeshIsPointMatchedAndCoversTheDisc) {
  const MbMesh m = make_mb_mesh(kN);
  // Every block face is linked both ways or is a physical boundary of the right blocks.
  for (int b = 0; b < kMbBlocks; ++b)
    for (int f = 0; f < 4; ++f) {
      const MbFaceLink& l = m.links[b][f];
      if (l.kind != MbBoundary::block) continue;
      const MbFaceLink& back = m.links[l.block][l.face];
      EXPECT_EQ(back.block, b);
      EXPECT_EQ(back.face, f);
      EXPECT_EQ(back.reversed, l.reversed);
    }
  EXPECT_EQ(m.wall.size(), 4u * kN);
  EXPECT_EQ(m.far_field.size(), 4u * kN);
  // Shared nodes: the copies coincide (point-matched), corners of the butterfly are held by 3 blocks.
  std::size_t three = 0, four = 0;
  for (const auto& grp : m.shared) {
    for (std::uint32_t c : grp) {
      EXPECT_EQ(m.x[c], m.x[grp[0]]);
      EXPECT_EQ(m.y[c], m.y[grp[0]]);
    }
    three += grp.size() == 3, four += grp.size() == 4;
  }
  EXPECT_EQ(three, 4u);  // the square's corners (the square and two solid sectors)
  EXPECT_EQ(four, 4u);   // where two sectors of the inner ring meet two of the outer ring
  // The unique nodes' volumes add up to the cells' area: the polygon inscribed in the far-field circle.
  double total = 0;
  std::vector<bool> counted(m.grid.padded_points(), false);
  for (const auto& grp : m.shared)
    for (std::size_t c = 1; c < grp.size(); ++c) counted[grp[c]] = true;  // only the owner counts
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 1; j <= kN; ++j)
      for (int i = 1; i <= kN; ++i) {
        const std::size_t n = mb_idx(m.grid, b, i, j);
        if (!counted[n]) total += m.vol[n];
      }
  double polygon = 0;  // shoelace over the far-field nodes, counter-clockwise (i increases with the angle)
  for (int s = 4; s < 8; ++s)
    for (int i = 1; i < kN; ++i) {
      const std::size_t p = mb_idx(m.grid, s, i, kN), q = p + 1;
      polygon += 0.5 * (m.x[p] * m.y[q] - m.x[q] * m.y[p]);
    }
  EXPECT_NEAR(polygon / (std::numbers::pi * m.r_far * m.r_far), 1.0, 0.05);  // nearly the circle
  EXPECT_NEAR(total / polygon, 1.0, 1e-12);
}

// A uniform flow on the curvilinear multi-block grid stays uniform: every mean-flow change is rounding.
TEST(Multiblock, FreeStreamIsPreserved) {
  const MbMesh m = make_mb_mesh(kN);
  HostFields h(m);
  for (int v = kRho; v <= kRw; ++v) std::fill(h.store[std::size_t(v)].begin(), h.store[std::size_t(v)].end(), mb_free_stream(v));
  MbHostSide<double> side;
  side.mesh = &m;
  for (MbStage s : {MbStage::lamvis, MbStage::deltatp, MbStage::stressp, MbStage::stresstrb, MbStage::flux, MbStage::fluxtrb,
                    MbStage::ifsum, MbStage::smthp, MbStage::smthtrb})
    run_cpu(s, m, h, &side);
  double worst = 0, dt_min = 1e300;
  for (int b = 0; b < kMbFluidBlocks; ++b)
    for (int j = 1; j <= kN; ++j)
      for (int i = 1; i <= kN; ++i) {
        const std::size_t n = mb_idx(m.grid, b, i, j);
        dt_min = std::min(dt_min, h.a.f[kDt][n]);
        for (int v = 0; v < 4; ++v) worst = std::max(worst, std::abs(h.a.f[kRes0 + v][n] / h.a.f[kVol][n]) / std::abs(mb_free_stream(kRho + v) + 1));
      }
  EXPECT_GT(dt_min, 0);
  EXPECT_LT(worst, 1e-13) << "a uniform flow changed";
}

// flux + fluxtrb scatter each cell's change to its corners and ifsum adds the copies of interface nodes:
// summed over the physical nodes (each once), the changes equal the cells' total (nothing lost or counted
// twice across block interfaces), and with one time step everywhere the interior faces cancel.
TEST(Multiblock, InterfacesConserve) {
  const MbMesh m = make_mb_mesh(kN);
  HostFields h(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.9, 1.1);
  for (std::size_t n = 0; n < m.grid.padded_points(); ++n) {
    h.a.f[kRho][n] = u(rng), h.a.f[kRu][n] = 0.2 * u(rng), h.a.f[kRv][n] = 0.05 * (u(rng) - 1);
    h.a.f[kE][n] = 1.8 * u(rng), h.a.f[kRk][n] = 1e-3 * u(rng), h.a.f[kRw][n] = u(rng);
    for (int f : {kTxx, kTxy, kTyy, kQx, kQy, kQkx, kQky, kQwx, kQwy, kSk, kSw}) h.a.f[f][n] = 1e-3 * (u(rng) - 1);
    h.a.f[kDt][n] = 1e-3;
  }
  MbHostSide<double> side;
  side.mesh = &m;
  run_cpu(MbStage::bc, m, h, &side);  // shared copies equal, as in a run
  for (MbStage s : {MbStage::flux, MbStage::fluxtrb, MbStage::ifsum}) run_cpu(s, m, h, &side);
  double cells[6] = {}, nodes[6] = {}, magnitude[6] = {};
  for (int b = 0; b < kMbFluidBlocks; ++b)
    for (int j = 1; j < kN; ++j)
      for (int i = 1; i < kN; ++i) {
        double out4[4][4], out2[4][2];
        const std::size_t c00 = mb_idx(m.grid, b, i, j);
        ni_cell<MbMeanFlow>(h.a, c00, m.grid.sy(), out4);
        ni_cell<MbTurbulence>(h.a, c00, m.grid.sy(), out2);
        for (int k = 0; k < 4; ++k) {
          for (int v = 0; v < 4; ++v) cells[v] += out4[k][v], magnitude[v] += std::abs(out4[k][v]);
          for (int v = 0; v < 2; ++v) cells[4 + v] += out2[k][v], magnitude[4 + v] += std::abs(out2[k][v]);
        }
      }
  std::vector<bool> copy(m.grid.padded_points(), false);
  for (const auto& grp : m.shared)
    for (std::size_t c = 1; c < grp.size(); ++c) copy[grp[c]] = true;
  for (int b = 0; b < kMbFluidBlocks; ++b)
    for (int j = 1; j <= kN; ++j)
      for (int i = 1; i <= kN; ++i) {
        const std::size_t n = mb_idx(m.grid, b, i, j);
        if (!copy[n])
          for (int v = 0; v < 6; ++v) nodes[v] += h.a.f[kRes0 + v][n];
      }
  // Rounding of sums of ~8000 terms: 1e-13 of their magnitudes (a lost or doubled interface node's share is
  // ~1e-3 of it).
  for (int v = 0; v < 6; ++v) EXPECT_NEAR(nodes[v], cells[v], 1e-13 * magnitude[v]) << "unknown " << v;
  // With one dt everywhere the cells' total of rho is -dt times the mass flux through the physical
  // boundaries only (each cell's contour, signed by its area, runs counter-clockwise, so interior and
  // interface edges cancel): the far field counter-clockwise (i increasing) and the wall clockwise.
  auto edge = [&](std::size_t p, std::size_t q) {  // trapezoidal (F dy - G dx) of the mass flux along p -> q
    return 0.5 * ((h.a.f[kRu][p] + h.a.f[kRu][q]) * (m.y[q] - m.y[p]) - (h.a.f[kRv][p] + h.a.f[kRv][q]) * (m.x[q] - m.x[p]));
  };
  double boundary = 0, scale = 0;
  for (int s = 0; s < 4; ++s)
    for (int i = 1; i < kN; ++i) {
      const std::size_t w = mb_idx(m.grid, s, i, 1), f = mb_idx(m.grid, 4 + s, i, kN);
      boundary += edge(f, f + 1) + edge(w + 1, w);
      scale += std::abs(edge(f, f + 1)) + std::abs(edge(w + 1, w));
    }
  EXPECT_NEAR(cells[0], -1e-3 * boundary, 1e-12 * 1e-3 * scale);
}

template <class T>
std::vector<double> residuals(const Problem& p, const std::string& recipe, int steps) {
  const std::unique_ptr<Solver<T>> s = p.make_solver(Precision<T>{}, resolve(find_recipe("multiblock", recipe), {}), SolverOptions{}, nullptr);
  s->load(p.initial_state(Precision<T>{}));
  for (int i = 0; i < steps; ++i) s->step();
  return s->final_checks()["residual_history"].template get<std::vector<double>>();
}

TEST(Multiblock, LoopRunsAndSerialEqualsOpenMp) {
  const auto p = cylinder(kN);
  const std::vector<double> serial = residuals<double>(*p, "cpu-serial", 20);
  const std::vector<double> omp = residuals<double>(*p, "cpu-omp", 20);
  ASSERT_EQ(serial.size(), 20u);
  EXPECT_EQ(serial, omp);
  for (double r : serial) EXPECT_TRUE(std::isfinite(r));
  EXPECT_GT(serial.front(), 0);  // the wall and the heated solid start the flow changing
}

// The multigrid stand-in (multigrid.hpp) on its own: the levels a block allows; a change constant over
// the blocks grows by w L in their middle and at every node inside their edges; a checkerboard (which full
// weighting removes) is left as it is; edge nodes and solid blocks are not touched.
TEST(Multiblock, MultigridStandInActsOnSmoothChanges) {
  EXPECT_EQ(mb_multigrid_levels(1033, 9), 3);
  EXPECT_EQ(mb_multigrid_levels(129, 9), 5);
  EXPECT_EQ(mb_multigrid_levels(129, 2), 2);
  EXPECT_EQ(mb_multigrid_levels(17, 9), 2);
  EXPECT_EQ(mb_multigrid_levels(39, 3), 1);
  EXPECT_EQ(mb_multigrid_levels(18, 3), 0);
  constexpr int n = 65, levels = 3;
  const MbMesh m = make_mb_mesh(n);
  HostFields h(m);
  for (int b = 0; b < kMbBlocks; ++b)
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        const std::size_t k = mb_idx(m.grid, b, i, j);
        h.a.f[kRes0][k] = 0.5 * m.vol[k];
        h.a.f[kRes1][k] = ((i + j) % 2 ? -1e-3 : 1e-3) * m.vol[k];
      }
  const std::vector<std::vector<double>> before = h.store;
  int all[kMbBlocks];
  for (int b = 0; b < kMbBlocks; ++b) all[b] = b;
  mb_multigrid(m, h.a, all, kMbBlocks, levels);
  for (int b = 0; b < kMbBlocks; ++b) {
    const std::size_t mid = mb_idx(m.grid, b, n / 2 + 1, n / 2 + 1);
    if (mb_is_fluid(b)) {
      EXPECT_NEAR(h.a.f[kRes0][mid] / m.vol[mid], 0.5 * (1 + kMbMultigridWeight * levels), 1e-14) << b;
    }
    for (int j = 1; j <= n; ++j)
      for (int i = 1; i <= n; ++i) {
        const std::size_t k = mb_idx(m.grid, b, i, j);
        const bool edge = i == 1 || j == 1 || i == n || j == n;
        if (edge || !mb_is_fluid(b)) {
          for (int v = kRes0; v <= kRes5; ++v) ASSERT_EQ(h.a.f[v][k], before[std::size_t(v)][k]) << b << " " << i << " " << j;
        } else {
          ASSERT_GT(h.a.f[kRes0][k], before[kRes0][k]) << b << " " << i << " " << j;
          ASSERT_NEAR(h.a.f[kRes1][k], before[kRes1][k], 1e-12 * std::abs(before[kRes1][k])) << b << " " << i << " " << j;
        }
      }
  }
}

// In the loop the stand-in acts between the smoothing and the update: after one iteration the changes are
// the single-grid run's changes through mb_multigrid, bit for bit, and the update applied them (inside the
// edges, where the boundary conditions write nothing); over 20 iterations the residual history differs from
// the single grid's and serial = OpenMP.
TEST(Multiblock, MultigridActsBetweenSmoothingAndUpdate) {
  const auto single = cylinder(kN), multi = cylinder(kN, {"multigrid=2"});
  EXPECT_EQ(multi->describe()["multigrid_levels"], 2);
  EXPECT_THROW(cylinder(kN, {"multigrid=-1"}), std::invalid_argument);
  EXPECT_THROW(cylinder(18, {"multigrid=1"}), std::invalid_argument);  // 17 cells do not halve
  const MbMesh m = make_mb_mesh(kN);
  auto one_step = [](const Problem& p) {
    std::unique_ptr<Solver<double>> s = p.make_solver(Precision<double>{}, resolve(find_recipe("multiblock", "cpu-serial"), {}), SolverOptions{}, nullptr);
    s->load(p.initial_state(Precision<double>{}));
    s->step();
    return s;
  };
  const auto sg = one_step(*single), mg = one_step(*multi);
  const auto& sgs = dynamic_cast<const MbSolver<double>&>(*sg);
  const auto& mgs = dynamic_cast<const MbSolver<double>&>(*mg);
  HostFields expected(m);
  for (int v = kRes0; v <= kRes5; ++v) {
    const std::vector<double> f = sgs.field(v);
    std::copy(f.begin(), f.end(), expected.a.f[v]);
  }
  const int fluid[] = {0, 1, 2, 3, 4, 5, 6, 7};
  mb_multigrid(m, expected.a, fluid, kMbFluidBlocks, 2);
  for (int v = kRes0; v <= kRes5; ++v) EXPECT_EQ(mgs.field(v), expected.store[std::size_t(v)]) << kMbFieldNames[v];
  const std::vector<double> rho0 = single->initial_state(Precision<double>{}).field("rho"), rho = mgs.field(kRho);
  const std::vector<double> res_single = sgs.field(kRes0);
  std::size_t moved = 0;
  for (int b = 0; b < kMbFluidBlocks; ++b)
    for (int j = 2; j < kN; ++j)
      for (int i = 2; i < kN; ++i) {
        const std::size_t n = mb_idx(m.grid, b, i, j);
        ASSERT_EQ(rho[n], rho0[n] + expected.a.f[kRes0][n] * (1.0 / m.vol[n])) << b << " " << i << " " << j;
        moved += expected.a.f[kRes0][n] != res_single[n];
      }
  EXPECT_GT(moved, 0u);
  const std::vector<double> plain = residuals<double>(*single, "cpu-serial", 20), serial = residuals<double>(*multi, "cpu-serial", 20);
  EXPECT_NE(serial, plain);
  EXPECT_EQ(serial, residuals<double>(*multi, "cpu-omp", 20));
  for (double r : serial) EXPECT_TRUE(std::isfinite(r));
}

// The byte models the report divides by: every field read once and written once per node of the stage's blocks.
TEST(Multiblock, ByteModels) {
  const MbMesh m = make_mb_mesh(kN);
  std::vector<int> all(kMbBlocks);
  for (int b = 0; b < kMbBlocks; ++b) all[std::size_t(b)] = b;
  const double node = double(kN) * kN;
  EXPECT_EQ(mb_work_model(MbStage::lamvis, m, all, 8).bytes, 9 * 8 * node * kMbFluidBlocks);    // 7 in, 2 out
  EXPECT_EQ(mb_work_model(MbStage::conjugatep, m, all, 8).bytes, 6 * 8 * node * 5);            // 5 in, 1 out
  EXPECT_EQ(mb_work_model(MbStage::flux, m, all, 8).bytes, 20 * 8 * node * kMbFluidBlocks);     // 16 in, 4 out
  EXPECT_EQ(mb_work_model(MbStage::update, m, all, 4).bytes, (19 * kMbFluidBlocks + 3 * 5) * 4 * node);
  EXPECT_EQ(mb_work_model(MbStage::flux, m, all, 8).points, double(kN - 1) * (kN - 1) * kMbFluidBlocks);  // cells
  EXPECT_GT(mb_flops_per_point(MbStage::flux), mb_flops_per_point(MbStage::fluxtrb));
}

TEST(Multiblock, GridMustBeThirteenSquareBlocks) {
  CaseOptions o;
  o.name = "conjugate_cylinder";
  o.nx = 17, o.ny = 17, o.nz = 12;
  EXPECT_THROW(SolverRegistry::instance().of_case("conjugate_cylinder").make_problem(o), std::invalid_argument);
}

// A run of the cylinder over `ranks` ranks of the threads driver (the run checks itself against one rank).
nlohmann::json run_over_ranks(int ranks, const std::string& backend, const std::string& recipe,
                              const std::vector<std::string>& params = {}, const std::vector<std::string>& stages = {}) {
  RunOptions o;
  o.stage_overrides = stages;
  o.case_options.name = "conjugate_cylinder";
  o.case_options.params = params;
  o.case_options.nx = o.case_options.ny = kN, o.case_options.nz = kMbBlocks;
  o.backend = backend, o.recipe = recipe;
  o.steps = 5, o.warmup = 1, o.ranks = ranks, o.progress = false;
  return run(o);
}

// The paper's block-to-rank assignment as the run's slabs, and P ranks doing one rank's arithmetic: the
// host routines see the same bands on every rank and the reductions are exact, so the states agree to the
// bit; the residual history (combined over ranks) is the one-rank run's. P = 4 has a rank of solid blocks
// only (it skips the fluid routines), P = 8 the paper's one fluid block a rank. With the multigrid stand-in
// too (each rank's own blocks, no exchange).
TEST(MultiblockRanks, PRanksAreOneRank) {
  for (int run = 0; run < 6; ++run) {
    const int ranks = 2 << (run % 3);  // 2, 4, 8; single grid, then with the stand-in
    const std::vector<std::string> params = run < 3 ? std::vector<std::string>{} : std::vector<std::string>{"multigrid=2"};
    const auto p = cylinder(kN, params);
    const nlohmann::json r = run_over_ranks(ranks, "cpu_serial", "", params);
    const nlohmann::json& d = r["run"]["decomposition"];
    ASSERT_EQ(d["ranks"], ranks);
    const std::vector<std::vector<int>> blocks = mb_rank_blocks(ranks);
    for (int k = 0; k < ranks; ++k) {
      EXPECT_EQ(d["slabs"][k]["z_begin"], blocks[std::size_t(k)].front() + 1) << ranks << " ranks, rank " << k;
      EXPECT_EQ(d["slabs"][k]["nz"], blocks[std::size_t(k)].size()) << ranks << " ranks, rank " << k;
    }
    const nlohmann::json& ref = r["checks"]["reference"];
    ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
    EXPECT_TRUE(ref["pass"].get<bool>()) << ref.dump();
    for (auto& [name, f] : ref["fields"].items()) EXPECT_EQ(f["max_rel_diff"].get<double>(), 0.0) << ranks << " ranks: " << name;
    const int steps = ref["steps"].get<int>();
    EXPECT_EQ(r["checks"]["residual_history"].get<std::vector<double>>(), residuals<double>(*p, "cpu-serial", steps)) << ranks << " " << run;
  }
}

// Neighbour-only messages (host_side.hpp): each rank gets only the nodes its routines read for its own
// nodes. The states equal one rank's to the bit (so does the residual history); the bytes are counted
// (every rank's share adds up) and are fewer than the allgather's at every P, by more than 10x at P = 8.
// Leaving the solid's node out of the wall's reads (tried) fails the reference check at P = 2, 4 and 8.
TEST(MultiblockRanks, NeighbourMessagesAreOneRankWithFewerBytes) {
  const auto p = cylinder(kN);
  for (int ranks : {2, 4, 8}) {
    const nlohmann::json all = run_over_ranks(ranks, "cpu_serial", "")["checks"];
    const nlohmann::json near = run_over_ranks(ranks, "cpu_serial", "", {"exchange=neighbours"})["checks"];
    const nlohmann::json& ref = near["reference"];
    ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
    for (auto& [name, f] : ref["fields"].items()) EXPECT_EQ(f["max_rel_diff"].get<double>(), 0.0) << ranks << " ranks: " << name;
    const int steps = ref["steps"].get<int>();
    EXPECT_EQ(near["residual_history"].get<std::vector<double>>(), residuals<double>(*p, "cpu-serial", steps)) << ranks;
    EXPECT_EQ(near["exchange"]["kind"], "neighbours");
    EXPECT_EQ(all["exchange"]["kind"], "allgather");
    double by_rank = 0;
    for (double b : near["exchange"]["bytes_per_iteration_by_rank"].get<std::vector<double>>()) by_rank += b;
    const double bytes = near["exchange"]["bytes_per_iteration"].get<double>(), allgather = all["exchange"]["bytes_per_iteration"].get<double>();
    EXPECT_EQ(by_rank, bytes);
    EXPECT_GT(bytes, 0);
    EXPECT_LT(bytes, allgather) << ranks;
    EXPECT_LE(near["exchange"]["messages_per_iteration"].get<double>(), all["exchange"]["messages_per_iteration"].get<double>());
    if (ranks == 8) {
      EXPECT_LT(10 * bytes, allgather);
    }
    std::printf("%d ranks: %.0f bytes an iteration neighbour-only, %.0f allgather\n", ranks, bytes, allgather);
  }
  EXPECT_THROW(cylinder(kN, {"exchange=nccl"}), std::invalid_argument);
}

// What the P2P variants (host_copies.cuh, GPU only) read of the other ranks, built on P threads-driver ranks:
// every rank's device and staging pointer; for each routine, the nodes a rank reads from each other rank's band
// are the neighbour messages' (the same as that rank sends it) and their places point at them in that band.
TEST(MultiblockRanks, PeersPointIntoTheSendersBands) {
  const MbMesh m = make_mb_mesh(kN);
  for (int ranks : {2, 4, 8}) {
    const std::vector<std::vector<int>> blocks = mb_rank_blocks(ranks);
    std::vector<MbPeers<double>> peers(static_cast<std::size_t>(ranks));
    auto group = std::make_shared<ThreadGroup>(ranks);
    std::vector<double> staging(static_cast<std::size_t>(ranks));
    std::vector<std::thread> t;
    for (int r = 0; r < ranks; ++r)
      t.emplace_back([&, r] {
        ThreadComm c(group, r);
        const MbRankExchange<double> x(m, c, MbArrays<double>{}, MbExchange::neighbours);
        peers[std::size_t(r)] = x.peers(10 + r, &staging[std::size_t(r)]);
      });
    for (auto& th : t) th.join();
    std::size_t read = 0;
    for (int q = 0; q < ranks; ++q) {
      const MbPeers<double>& p = peers[std::size_t(q)];
      for (int r = 0; r < ranks; ++r) {
        EXPECT_EQ(p.devices[std::size_t(r)], 10 + r);
        EXPECT_EQ(p.staging[std::size_t(r)], &staging[std::size_t(r)]);
        for (int k = 0; k < 2; ++k) {
          const std::vector<std::uint32_t> band = k == 0 ? mb_boundary_band(m, mb_blocks_of(blocks[std::size_t(r)], MbStage::ifsum), 1)
                                                         : mb_boundary_band(m, blocks[std::size_t(r)], 3);
          const std::vector<std::uint32_t>& nodes = p.nodes[k][std::size_t(r)];
          ASSERT_EQ(p.band_size[k][std::size_t(r)], band.size());
          ASSERT_EQ(p.places[k][std::size_t(r)].size(), nodes.size());
          for (std::size_t j = 0; j < nodes.size(); ++j) EXPECT_EQ(band[p.places[k][std::size_t(r)][j]], nodes[j]);
          EXPECT_EQ(peers[std::size_t(r)].read_by[k][std::size_t(q)], !nodes.empty()) << ranks << " ranks, " << r << " -> " << q;
          EXPECT_TRUE(r != q || nodes.empty());
          read += nodes.size();
        }
      }
    }
    EXPECT_GT(read, 0u) << ranks;
  }
}

// ---------------------------------------------------------------------------------------------- GPU

// The whole loop's residual history on the GPU against the CPU, for every GPU recipe; and with the
// multigrid stand-in (its GPU variants: whole planes down and up, pageable in kemal and kemal-naive,
// registered where kemal-registered's copies are).
TEST(MultiblockGpu, ResidualHistoryMatchesTheCpu) {
  NSB_NEEDS_GPU();
  for (const std::vector<std::string>& params : {std::vector<std::string>{}, std::vector<std::string>{"multigrid=3"}}) {
    const auto p = cylinder(33, params);
    const std::vector<double> cpu = residuals<double>(*p, "cpu-serial", 20);
    for (const char* recipe : {"kemal", "kemal-host-search", "kemal-naive", "kemal-registered", "kemal-streams", "kemal-p2p", "modern"}) {
      const std::vector<double> gpu = residuals<double>(*p, recipe, 20);
      ASSERT_EQ(gpu.size(), cpu.size());
      double worst = 0;
      for (std::size_t k = 0; k < cpu.size(); ++k) worst = std::max(worst, std::abs(gpu[k] - cpu[k]) / std::abs(cpu[k]));
      std::printf("residual history %s%s vs cpu-serial, 20 iterations: max relative difference %.2e\n", recipe,
                  params.empty() ? "" : " with multigrid=3", worst);
      EXPECT_LT(worst, 1e-9) << recipe;
    }
  }
}

// Two and four GPU ranks (oversubscribed where the GPUs are fewer) against one, with each way of moving
// the host routines' data (whole arrays: each rank its own planes; the band, pageable and overlapped).
TEST(MultiblockGpu, RanksAreOneRank) {
  NSB_NEEDS_GPU();
  for (const char* recipe : {"kemal", "kemal-naive", "kemal-streams"})
    for (int ranks : {2, 4}) {
      const nlohmann::json ref = run_over_ranks(ranks, "cuda", recipe)["checks"]["reference"];
      ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
      EXPECT_TRUE(ref["pass"].get<bool>()) << recipe << ", " << ranks << " ranks: " << ref.dump();
    }
  for (const char* param : {"multigrid=2", "exchange=neighbours"}) {  // the stand-in's copies on a rank's planes; messages
    const nlohmann::json ref = run_over_ranks(2, "cuda", "kemal", {param})["checks"]["reference"];
    ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
    EXPECT_TRUE(ref["pass"].get<bool>()) << param << ", 2 ranks: " << ref.dump();
  }
}

// The P2P variants (not in the paper): the other ranks' nodes pulled GPU to GPU, on 2 ranks (each its GPU
// where there are two) and 4 (oversubscribed): the run equals one rank's, and it counts what it pulled (each
// neighbour's whole band: more bytes than the host messages, as many copies as messages). Refused with the
// allgather, which has no neighbour lists.
TEST(MultiblockGpu, PeerBandsAreOneRank) {
  NSB_NEEDS_GPU();
  for (int ranks : {2, 4}) {
    const nlohmann::json checks = run_over_ranks(ranks, "cuda", "kemal-p2p", {"exchange=neighbours"})["checks"];
    const nlohmann::json host = run_over_ranks(ranks, "cuda", "kemal", {"exchange=neighbours"})["checks"]["exchange"];
    const nlohmann::json& ref = checks["reference"];
    ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
    EXPECT_TRUE(ref["pass"].get<bool>()) << ranks << " ranks: " << ref.dump();
    EXPECT_EQ(checks["exchange"]["kind"], "neighbours_p2p");
    EXPECT_EQ(host["kind"], "neighbours");
    EXPECT_GT(checks["exchange"]["bytes_per_iteration"].get<double>(), host["bytes_per_iteration"].get<double>());
    EXPECT_EQ(checks["exchange"]["messages_per_iteration"], host["messages_per_iteration"]);
    std::printf("%d GPU ranks, P2P: %.0f bytes pulled an iteration (host messages: %.0f)\n", ranks,
                checks["exchange"]["bytes_per_iteration"].get<double>(), host["bytes_per_iteration"].get<double>());
  }
  EXPECT_ANY_THROW(run_over_ranks(2, "cuda", "kemal-p2p"));
}

// The NCCL variants (not in the paper; built only with NCCL): 2 ranks, one GPU each, against one rank; they
// receive what the P2P variants pull (each neighbour's whole band: the same bytes, as many messages).
// Refused with the allgather, and on ranks sharing a GPU (NCCL takes one GPU a rank).
TEST(MultiblockGpu, NcclBandsAreOneRank) {
  NSB_NEEDS_GPU();
  if (!Registry::instance().find("multiblock/ifsum", "boundary_band_nccl"))
    GTEST_SKIP() << "SKIPPED: built without NCCL (no multiblock/ifsum/boundary_band_nccl)";
  if (device::count() < 2) GTEST_SKIP() << "SKIPPED: needs 2 GPUs, one a rank (" << device::count() << " usable)";
  const std::vector<std::string> nccl = {"ifsum=boundary_band_nccl", "bc=boundary_band_nccl"};
  const nlohmann::json checks = run_over_ranks(2, "cuda", "kemal-p2p", {"exchange=neighbours"}, nccl)["checks"];
  const nlohmann::json p2p = run_over_ranks(2, "cuda", "kemal-p2p", {"exchange=neighbours"})["checks"]["exchange"];
  const nlohmann::json& ref = checks["reference"];
  ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
  EXPECT_TRUE(ref["pass"].get<bool>()) << ref.dump();
  EXPECT_EQ(checks["exchange"]["bytes_per_iteration"], p2p["bytes_per_iteration"]);
  EXPECT_EQ(checks["exchange"]["messages_per_iteration"], p2p["messages_per_iteration"]);
  std::printf("2 GPU ranks, NCCL: %.0f bytes received an iteration\n", checks["exchange"]["bytes_per_iteration"].get<double>());
  EXPECT_ANY_THROW(run_over_ranks(2, "cuda", "kemal-p2p", {}, nccl));
  if (device::count() < 4) {  // 4 ranks share the GPUs
    EXPECT_ANY_THROW(run_over_ranks(4, "cuda", "kemal-p2p", {"exchange=neighbours"}, nccl));
  }
}

}  // namespace
}  // namespace nsb
