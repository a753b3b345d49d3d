// Decomposed runs without a GPU: the z-slab arithmetic, the ghost-plane bookkeeping, the threads
// driver's collectives, and whole runs on several ranks checked against the undecomposed run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "comm.hpp"
#include "decomposition.hpp"
#include "device.hpp"
#include "halo.hpp"
#include "projection/cases.hpp"
#include "run.hpp"

namespace nsb {
namespace {

Grid grid(int nx, int ny, int nz) { return Grid{nx, ny, nz, 1.0, 1.0, 1.0}; }

TEST(Decomposition, UnevenSplitCoversEveryPlaneOnce) {
  const std::vector<Slab> s = decompose_z(grid(8, 4, 10), 4, false);
  ASSERT_EQ(s.size(), 4u);
  const int expected_nz[] = {3, 3, 2, 2};
  int next = 1;
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(s[r].nz, expected_nz[r]);
    EXPECT_EQ(s[r].z_begin, next);
    next += s[r].nz;
  }
  EXPECT_EQ(next, 11);
  EXPECT_EQ(s[0].lo_rank, -1);
  EXPECT_EQ(s[0].hi_rank, 1);
  EXPECT_EQ(s[3].hi_rank, -1);
  EXPECT_EQ(s[2].lo_rank, 1);
}

TEST(Decomposition, PeriodicZWrapsAround) {
  const std::vector<Slab> s = decompose_z(grid(4, 4, 6), 3, true);
  EXPECT_EQ(s[0].lo_rank, 2);
  EXPECT_EQ(s[2].hi_rank, 0);
  const std::vector<Slab> one = decompose_z(grid(4, 4, 6), 1, true);
  EXPECT_FALSE(one[0].has_lo());  // one rank: the ordinary periodic ghost rule, no exchange
}

TEST(Decomposition, TooManyRanksIsAClearError) {
  try {
    decompose_z(grid(4, 4, 3), 4, false);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot split 3 z planes over 4 ranks"), std::string::npos) << e.what();
  }
}

TEST(Decomposition, SlabGridKeepsTheSpacing) {
  const Grid g{16, 8, 12, 2.0, 1.0, 3.0};
  const std::vector<Slab> s = decompose_z(g, 5, false);
  for (const Slab& sl : s) {
    const Grid l = slab_grid(g, sl);
    EXPECT_EQ(l.nx, 16);
    EXPECT_EQ(l.nz, sl.nz);
    EXPECT_NEAR(l.dz(), g.dz(), 1e-15);
  }
}

TEST(Decomposition, ScatterThenGatherRestoresTheField) {
  const Grid g = grid(3, 2, 7);
  std::vector<double> field(g.padded_points());
  for (std::size_t i = 0; i < field.size(); ++i) field[i] = double(i) + 0.5;
  for (bool periodic : {false, true}) {
    const std::vector<Slab> s = decompose_z(g, 3, periodic);
    std::vector<double> back(field.size(), -1);
    for (const Slab& sl : s) {
      const std::vector<double> local = scatter_slab(field, g, sl);
      ASSERT_EQ(local.size(), plane_elems(g) * std::size_t(sl.nz + 2));
      // The slab's plane 1 is the global plane z_begin: ghost plane 0 is the one below it.
      EXPECT_EQ(local[plane_offset(g, 1)], field[plane_offset(g, sl.z_begin)]);
      gather_slab(back, g, sl, local);
    }
    EXPECT_EQ(back, field);
  }
}

// A rank's slab of the initial state built alone (Problem::initial_slab, the MPI ranks' per-slab build) is the
// whole state's slab, ghost planes included, bit for bit: every projection case (walls, a moving lid, periodic z,
// buildings, the cube) and the standing wave, both precisions, uneven slabs and slabs of one plane (whose ghost
// planes are the z walls' planes 1 and nz, which the walls' rules write).
template <class T>
void expect_slabs_are_the_whole_states(const std::string& solver, const CaseOptions& o) {
  const std::unique_ptr<Problem> p = SolverRegistry::instance().get(solver).make_problem(o);
  ASSERT_TRUE(p->builds_slabs()) << o.name;
  const HostState<T> whole = p->initial_state(Precision<T>{});
  const Grid& g = p->grid();
  for (int ranks : {2, 3, 5, g.nz}) {
    for (const Slab& sl : decompose_z(g, ranks, p->periodic_z())) {
      const HostState<T> mine = p->initial_slab(Precision<T>{}, sl);
      EXPECT_EQ(mine.grid.nz, sl.nz);
      ASSERT_EQ(mine.fields.size(), whole.fields.size()) << o.name;
      for (std::size_t f = 0; f < whole.fields.size(); ++f) {
        const auto& [name, values] = whole.fields[f];
        EXPECT_EQ(mine.fields[f].first, name);
        const std::vector<T> expected = scatter_slab(values, g, sl);
        ASSERT_EQ(mine.fields[f].second.size(), expected.size()) << o.name << " " << name;
        for (std::size_t m = 0; m < expected.size(); ++m)  // bitwise: the run must load what the scatter sent
          ASSERT_EQ(std::memcmp(&mine.fields[f].second[m], &expected[m], sizeof(T)), 0)
              << o.name << " " << name << ", " << ranks << " ranks, rank " << sl.rank << ", padded index " << m << ": "
              << mine.fields[f].second[m] << " built alone, " << expected[m] << " in the whole state";
      }
    }
  }
}

TEST(Decomposition, SlabsOfTheInitialStateBuiltAloneAreTheWholeStatesSlabs) {
  std::vector<CaseOptions> cases = {{.name = "cavity", .nx = 12, .ny = 4, .nz = 12},
                                    {.name = "cavity", .nx = 9, .ny = 9, .nz = 9, .params = {"span=wall"}},
                                    {.name = "channel", .nx = 8, .ny = 4, .nz = 10},
                                    {.name = "taylor_green", .nx = 8, .ny = 4, .nz = 9},
                                    {.name = "urban", .nx = 24, .ny = 8, .nz = 20},
                                    {.name = "cube", .nx = 16, .ny = 8, .nz = 12}};
  for (const CaseOptions& o : cases) {
    expect_slabs_are_the_whole_states<float>("projection", o);
    expect_slabs_are_the_whole_states<double>("projection", o);
  }
  const CaseOptions wave{.name = "standing_wave", .nx = 16, .ny = 1, .nz = 12};
  expect_slabs_are_the_whole_states<float>("wave", wave);
  expect_slabs_are_the_whole_states<double>("wave", wave);
}

// A case whose state is not a function of the point (a random stream over the whole array, a mesh) says so, and
// its slab build is refused rather than made up.
TEST(Decomposition, ACaseThatBuildsTheWholeGridOnlyRefusesASlab) {
  CaseOptions o;
  o.name = "poisson_random";
  o.nx = 8, o.ny = 8, o.nz = 8;
  const std::unique_ptr<Problem> p = SolverRegistry::instance().of_case("poisson_random").make_problem(o);
  EXPECT_FALSE(p->builds_slabs());
  EXPECT_THROW(p->initial_slab(Precision<double>{}, decompose_z(p->grid(), 2, false)[0]), std::logic_error);
}

// Y-slabs: the rows the tridiag family's split solves cut, every z plane, one ghost row each side; a
// round trip through scatter and gather gives the field back (interior rows from their owner, the
// wall ghost rows from the first and last rank).
TEST(Decomposition, YSlabsCutTheRowsAsTheSplitSolvesAndRoundTrip) {
  const Grid g = grid(3, 11, 4);
  std::vector<double> field(g.padded_points());
  for (std::size_t i = 0; i < field.size(); ++i) field[i] = double(i) + 0.5;
  const std::vector<Slab> s = decompose_y(g, 3);
  std::vector<double> back(field.size(), -1);
  int next = 1;
  for (const Slab& sl : s) {
    EXPECT_EQ(sl.y_begin, next);
    EXPECT_EQ(sl.y_begin - 1, int(sl.rank * 11 / 3));  // pdd_block_start(11, 3, r)
    EXPECT_EQ(sl.nz, g.nz);
    next = sl.y_begin + sl.ny;
    const Grid l = slab_grid(g, sl);
    EXPECT_EQ(l.ny, sl.ny);
    EXPECT_NEAR(l.dy(), g.dy(), 1e-15);
    const std::vector<double> local = scatter_slab(field, g, sl);
    ASSERT_EQ(local.size(), l.padded_points());
    for (int k = 0; k <= g.nz + 1; ++k)  // local row j is global row y_begin - 1 + j (ghosts included)
      for (int j = 0; j <= sl.ny + 1; ++j)
        for (int i = 0; i <= g.nx + 1; ++i)
          ASSERT_EQ(local[std::size_t(l.idx(i, j, k))], field[std::size_t(g.idx(i, sl.y_begin - 1 + j, k))]) << i << " " << j << " " << k;
    gather_slab(back, g, sl, local);
  }
  EXPECT_EQ(next, g.ny + 1);
  EXPECT_EQ(back, field);
  EXPECT_EQ(s[0].lo_rank, -1);
  EXPECT_EQ(s[1].lo_rank, 0);
  EXPECT_EQ(s[2].hi_rank, -1);
  EXPECT_THROW(decompose_y(g, 4, 3), std::runtime_error);
}

// What a solver's stage and exchange do, in order, for an exchange that overlaps and one that does
// not (the GPU halo variants that overlap are tested on the GPU; this pins the order on any machine).
class RecordingHalo final : public HaloExchange<double> {
 public:
  RecordingHalo(bool overlaps, std::vector<std::string>& log) : overlaps_(overlaps), log_(log) {}
  void exchange(const std::vector<double*>&) override { log_.push_back("exchange"); }
  bool overlaps() const override { return overlaps_; }
  void start(const std::vector<double*>&) override { log_.push_back("start"); }
  void finish() override { log_.push_back("finish"); }

 private:
  bool overlaps_;
  std::vector<std::string>& log_;
};

std::vector<std::string> stage_and_exchange(HaloExchange<double>* halo, int nz, std::vector<std::string>& log) {
  auto section = [&](const char* name) {
    return [&log, name](const auto& work) { log.push_back(std::string("[") + name), work(), log.push_back("]"); };
  };
  compute_and_exchange(
      halo, nz, {}, [&](ZRange zr) { log.push_back(std::to_string(zr.k_begin) + ".." + std::to_string(zr.k_end)); },
      section("stage"), section("halo"));
  return log;
}

TEST(Halo, OverlappedExchangeSendsTheEdgePlanesBeforeTheInterior) {
  std::vector<std::string> log;
  RecordingHalo overlapping(true, log);
  EXPECT_EQ(stage_and_exchange(&overlapping, 6, log),
            (std::vector<std::string>{"[stage", "1..2", "6..7", "start", "2..6", "]", "[halo", "finish", "]"}));
  log.clear();
  RecordingHalo blocking(false, log);
  EXPECT_EQ(stage_and_exchange(&blocking, 6, log),
            (std::vector<std::string>{"[stage", "1..7", "]", "[halo", "exchange", "]"}));
  log.clear();
  EXPECT_EQ(stage_and_exchange(nullptr, 6, log), (std::vector<std::string>{"[stage", "1..7", "]"}));
  log.clear();  // too few planes to split: the stage whole, then the exchange waited for
  RecordingHalo thin(true, log);
  EXPECT_EQ(stage_and_exchange(&thin, 2, log),
            (std::vector<std::string>{"[stage", "1..3", "]", "[halo", "exchange", "]"}));
}

TEST(Decomposition, NeighbourFacesAreLeftToTheExchange) {
  BoundarySpec spec;  // walls everywhere
  const std::vector<Slab> s = decompose_z(grid(4, 4, 6), 3, false);
  const BoundarySpec mid = slab_bc(spec, s[1]), first = slab_bc(spec, s[0]);
  EXPECT_EQ(mid.face[2][0].type, FaceType::neighbour);
  EXPECT_EQ(mid.face[2][1].type, FaceType::neighbour);
  EXPECT_EQ(first.face[2][0].type, FaceType::wall);
  EXPECT_EQ(first.face[2][1].type, FaceType::neighbour);

  // The ghost rules must not touch a neighbour side: its ghost plane and the face value w(nz).
  const Grid g = grid(2, 2, 3);
  std::vector<double> u(g.padded_points(), 7.0), v = u, w = u;
  double* vel[3] = {u.data(), v.data(), w.data()};
  const BoundaryRules<double> r = BoundaryRules<double>::make(first);
  const double* const start[3] = {nullptr, nullptr, nullptr};  // read by a convective outflow only
  velocity_bc_line(vel, start, g, r, 2, 1, 1);
  EXPECT_EQ(w[g.idx(1, 1, 3)], 7.0);  // top face of rank 0's last cell: an interior face
  EXPECT_EQ(w[g.idx(1, 1, 4)], 7.0);  // ghost plane above: from the neighbour
  EXPECT_EQ(w[g.idx(1, 1, 0)], 0.0);  // bottom wall
  EXPECT_EQ(u[g.idx(1, 1, 0)], -7.0);
}

TEST(ThreadComm, SumsInRankOrderAndPropagatesFailure) {
  auto group = std::make_shared<ThreadGroup>(3);
  std::vector<double> sums(3);
  std::vector<std::thread> t;
  for (int r = 0; r < 3; ++r)
    t.emplace_back([&, r] {
      ThreadComm c(group, r);
      sums[std::size_t(r)] = c.allreduce_sum(r == 0 ? 1e16 : 1.0);
    });
  for (auto& th : t) th.join();
  for (double s : sums) EXPECT_EQ(s, (1e16 + 1.0) + 1.0);  // the same bits on every rank

  // One rank fails: the others leave their barrier with PeerFailed instead of waiting for ever.
  auto g2 = std::make_shared<ThreadGroup>(3);
  std::atomic<int> peer_failed{0};
  t.clear();
  for (int r = 0; r < 3; ++r)
    t.emplace_back([&, r] {
      ThreadComm c(g2, r);
      if (r == 1) return c.abort("rank 1 ran out of memory");
      try {
        c.barrier();
      } catch (const PeerFailed& e) {
        EXPECT_NE(std::string(e.what()).find("rank 1 ran out of memory"), std::string::npos);
        ++peer_failed;
      }
    });
  for (auto& th : t) th.join();
  EXPECT_EQ(peer_failed.load(), 2);
}

// Point-to-point messages: ranks 0-2 pass messages of different sizes around a ring, twice (a pair's
// messages arrive in the order sent), while rank 3 takes no part: it waits for the other three to finish
// and aborts them if they have not after 20 s, so an exchange that waited on every rank fails here instead
// of hanging. A receive of the wrong size throws; a receive whose sender failed throws PeerFailed.
TEST(ThreadComm, NeighbourExchangeWaitsOnlyOnTheRanksItJoins) {
  auto group = std::make_shared<ThreadGroup>(4);
  std::vector<std::vector<int>> got(3);
  std::atomic<int> done{0};
  std::vector<std::thread> t;
  for (int r = 0; r < 3; ++r)
    t.emplace_back([&, r] {
      ThreadComm c(group, r);
      const int next = (r + 1) % 3, prev = (r + 2) % 3;
      for (int round = 0; round < 2; ++round) {
        const std::vector<int> out(std::size_t(r + 1 + round), 10 * r + round);  // r + 1 + round values
        std::vector<int> in(std::size_t(prev + 1 + round));
        c.neighbour_exchange({{next, out.data(), out.size() * sizeof(int)}}, {{prev, in.data(), in.size() * sizeof(int)}});
        got[std::size_t(r)].insert(got[std::size_t(r)].end(), in.begin(), in.end());
      }
      ++done;
    });
  t.emplace_back([&] {
    ThreadComm c(group, 3);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (done.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (done.load() < 3) c.abort("ranks 0-2 waited on rank 3, which sends them nothing");
  });
  for (auto& th : t) th.join();
  ASSERT_EQ(done.load(), 3);
  for (int r = 0; r < 3; ++r) {
    const int prev = (r + 2) % 3;
    std::vector<int> expected(std::size_t(prev + 1), 10 * prev);
    expected.insert(expected.end(), std::size_t(prev + 2), 10 * prev + 1);
    EXPECT_EQ(got[std::size_t(r)], expected) << "rank " << r;
  }

  auto g2 = std::make_shared<ThreadGroup>(3);
  ThreadComm c0(g2, 0), c1(g2, 1), c2(g2, 2);
  const double x[2] = {1, 2};
  double y[3] = {};
  c0.neighbour_exchange({{1, x, sizeof x}}, {});
  EXPECT_THROW(c1.neighbour_exchange({}, {{0, y, sizeof y}}), std::logic_error);
  std::thread waiting([&] { EXPECT_THROW(c1.neighbour_exchange({}, {{2, y, sizeof y}}), PeerFailed); });
  c2.abort("rank 2 failed before sending");
  waiting.join();

  SingleComm one;
  one.neighbour_exchange({{0, x, sizeof x}}, {{0, y, sizeof x}});
  EXPECT_EQ(y[1], 2.0);
}

RunOptions decomposed(const std::string& case_name, int nx, int ny, int nz, int ranks) {
  RunOptions o;
  o.case_options.name = case_name;
  o.case_options.nx = nx, o.case_options.ny = ny, o.case_options.nz = nz;
  o.steps = 6;
  o.warmup = 2;
  o.ranks = ranks;
  o.progress = false;
  return o;
}

void expect_matches_one_rank(const nlohmann::json& r, double max_rel) {
  const auto& ref = r["checks"]["reference"];
  ASSERT_TRUE(ref["performed"].get<bool>()) << ref.dump();
  EXPECT_TRUE(ref["pass"].get<bool>()) << ref.dump();
  for (auto& [name, f] : ref["fields"].items()) EXPECT_LE(f["max_rel_diff"].get<double>(), max_rel) << name;
}

// The threads driver and halo/shared_memory_copy: the decomposed run does exactly the undecomposed
// run's arithmetic, so with a fixed Jacobi count the fields agree to the bit.
TEST(ThreadsDriver, CavityOnThreeUnevenRanksIsBitwiseTheOneRankRun) {
  const nlohmann::json r = run(decomposed("cavity", 24, 4, 24, 3));
  EXPECT_EQ(r["run"]["decomposition"]["ranks"], 3);
  EXPECT_EQ(r["run"]["decomposition"]["halo"]["variant"], "halo/shared_memory_copy");
  EXPECT_EQ(r["run"]["decomposition"]["slabs"][0]["nz"], 8);
  expect_matches_one_rank(r, 0.0);
  for (const char* h : {"halo_predictor", "halo_pressure", "halo_correction"})
    EXPECT_TRUE(r["timing"]["halo"].contains(h)) << h;
  EXPECT_EQ(r["timing"]["halo"]["halo_pressure"]["calls_per_step"].get<double>(), 20.0);
  // Each rank's phases up to the gather (run/phases.hpp), rank 0's to the end.
  ASSERT_EQ(r["run"]["phase_seconds_per_rank"].size(), 3u);
  for (const nlohmann::json& mine : r["run"]["phase_seconds_per_rank"]) {
    for (const char* phase : {"initial_state", "solver_setup", "load", "warmup", "timed_steps", "save", "release"})
      EXPECT_TRUE(mine.contains(phase)) << phase;
    EXPECT_FALSE(mine.contains("gather"));
  }
  EXPECT_TRUE(r["run"]["phase_seconds"].contains("reference_check"));
}

TEST(ThreadsDriver, PeriodicTaylorGreenWithAdamsBashforthOnFourRanks) {
  RunOptions o = decomposed("taylor_green", 12, 12, 12, 4);
  o.solver.scheme = TimeScheme::adams_bashforth2;
  expect_matches_one_rank(run(o), 0.0);
  o.ranks = 2;  // two ranks, periodic: both neighbours are the same rank
  expect_matches_one_rank(run(o), 0.0);
}

TEST(ThreadsDriver, ToleranceModeSumsResidualsOverRanks) {
  RunOptions o = decomposed("channel", 8, 8, 16, 2);
  o.precision = "float";
  o.solver.jacobi_tol = 1e-3;
  o.solver.jacobi_iterations = 300;
  const nlohmann::json r = run(o);
  expect_matches_one_rank(r, 2e-4);
  EXPECT_LT(r["checks"]["jacobi_last_iterations"].get<int>(), 300);
}

TEST(ThreadsDriver, BadChoicesNameTheProblem) {
  auto error_of = [](RunOptions o) -> std::string {
    try {
      run(o);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "";
  };
  RunOptions o = decomposed("cavity", 8, 4, 8, 2);
  o.halo = "p2p_sync";  // a GPU variant: refused for host arrays, or unknown in a build without CUDA
  const std::string why = device::built_with_cuda() ? "halo variants that fit: shared_memory_copy" : "unknown halo variant 'halo/p2p_sync'";
  EXPECT_NE(error_of(o).find(why), std::string::npos) << error_of(o);
  o.halo = "nosuch";
  EXPECT_NE(error_of(o).find("unknown halo variant 'halo/nosuch'"), std::string::npos) << error_of(o);
  o.halo = "shared_memory_copy:fast";
  EXPECT_NE(error_of(o).find("unknown tuning 'fast'"), std::string::npos) << error_of(o);
  o = decomposed("cavity", 8, 4, 8, 9);
  EXPECT_NE(error_of(o).find("cannot split 8 z planes over 9 ranks"), std::string::npos) << error_of(o);
  o = decomposed("cavity", 8, 4, 8, 1);
  o.halo = "shared_memory_copy";
  EXPECT_NE(error_of(o).find("--halo needs several ranks"), std::string::npos) << error_of(o);
}

TEST(HaloRegistry, EveryVariantIsComplete) {
  EXPECT_NE(HaloRegistry::instance().find("shared_memory_copy"), nullptr);
  for (const HaloVariant& v : HaloRegistry::instance().all()) {
    EXPECT_NE(v.make_float, nullptr) << v.id();
    EXPECT_NE(v.make_double, nullptr) << v.id();
    EXPECT_TRUE(v.driver == "threads" || v.driver == "mpi" || v.driver == "any") << v.id();
    EXPECT_TRUE(v.tags.count("halo") && v.tags.count("sync")) << v.id();
  }
}

}  // namespace
}  // namespace nsb
