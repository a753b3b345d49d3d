// A test helper: a problem's solver on several ranks, one host thread each (what the threads driver
// does, without its timing), the slabs gathered back into the whole grid.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "comm.hpp"
#include "decomposition.hpp"
#include "rank_context.hpp"
#include "recipe.hpp"
#include "solver.hpp"

namespace nsb::test {

// Hooks of run_on_thread_ranks (each optional): `context` completes a rank's context (its halo variant, its
// GPU), `before` sees its solver before the state is loaded (a timer), `after` after its steps (counts,
// final checks). Each is called on the rank's own thread.
template <class T>
struct RankHooks {
  std::function<void(RankContext&)> context;
  std::function<void(int rank, Solver<T>&)> before, after;
};

// A problem's solver on slabs.size() ranks, one host thread each (ThreadComm): rank r starts from its slab
// of `start`, runs `steps` steps of the recipe, and the slabs are gathered back into the whole grid (its
// step and time rank 0's; a field the solvers do not save stays as it starts). A rank's exception aborts the group and fails the test with its message.
template <class T>
HostState<T> run_on_thread_ranks(const Problem& p, const HostState<T>& start, const std::vector<Slab>& slabs,
                                 const ResolvedRecipe& recipe, int steps, const SolverOptions& o = {},
                                 const RankHooks<T>& hooks = {}) {
  const int ranks = int(slabs.size());
  auto group = std::make_shared<ThreadGroup>(ranks);
  std::vector<HostState<T>> ends(slabs.size());
  std::vector<std::string> errors(slabs.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      try {
        ThreadComm comm(group, r);
        RankContext ctx;
        ctx.comm = &comm, ctx.slabs = slabs, ctx.rank = r;
        if (hooks.context) hooks.context(ctx);
        const Slab& slab = slabs[std::size_t(r)];
        HostState<T> mine{slab_grid(p.grid(), slab), {}, start.step, start.time};
        for (const auto& [name, values] : start.fields) mine.fields.emplace_back(name, scatter_slab(values, start.grid, slab));
        const std::unique_ptr<Solver<T>> s = p.make_solver(Precision<T>{}, recipe, o, &ctx);
        if (hooks.before) hooks.before(r, *s);
        s->load(mine);
        for (int i = 0; i < steps; ++i) s->step();
        if (hooks.after) hooks.after(r, *s);
        ends[std::size_t(r)] = s->save();
      } catch (const std::exception& e) {
        errors[std::size_t(r)] = e.what();
        group->abort(e.what());
      }
    });
  for (std::thread& t : threads) t.join();
  bool failed = false;
  for (const std::string& e : errors) EXPECT_EQ(e, ""), failed = failed || !e.empty();
  if (failed) return start;  // the test has failed; a failed rank's slab is not there to gather
  HostState<T> whole = start;
  whole.step = ends[0].step, whole.time = ends[0].time;
  for (auto& [name, values] : whole.fields)
    if (ends[0].has(name))  // the state a solver saves (a start may hold more: urban's solid mask)
      for (int r = 0; r < ranks; ++r) gather_slab(values, start.grid, slabs[std::size_t(r)], ends[std::size_t(r)].field(name));
  return whole;
}

}  // namespace nsb::test
