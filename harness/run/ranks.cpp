// The ranks of a run and their drivers (one rank; threads: one host thread and GPU per rank; MPI: one
// process per rank), and the entry point that checks the options and picks the solver and recipe.
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <stdexcept>
#if __has_include(<malloc.h>)
#include <malloc.h>  // mallopt (glibc)
#endif

#include "host_memory.hpp"
#include "mpi_driver.hpp"
#include "nvtx.hpp"
#include "run/phases.hpp"
#include "run/rank_run.hpp"
#include "slab_assigner.hpp"

namespace nsb {

using json = nlohmann::json;

namespace {

// The halo variant a decomposed run uses: --halo NAME[:TUNING], or the default for the driver and
// backend. Throws naming the variants that would fit when the choice cannot run here.
const HaloVariant* choose_halo(const std::string& choice, const std::string& driver, Backend b, Tuning& tuning) {
  const bool gpu = b == Backend::cuda;
  std::string name = choice.substr(0, choice.find(':'));
  const std::string tname = choice.find(':') == std::string::npos ? "" : choice.substr(choice.find(':') + 1);
  if (name.empty()) name = driver == "mpi" ? (gpu ? "mpi_host_staged" : "mpi_sendrecv") : (gpu ? "p2p_sync" : "shared_memory_copy");
  const HaloVariant& v = HaloRegistry::instance().get(name);
  const bool fits_backend = (v.backend == Backend::cuda) == gpu;
  if ((v.driver != driver && v.driver != "any") || !fits_backend) {
    std::string fitting;
    for (const HaloVariant& h : HaloRegistry::instance().all())
      if ((h.driver == driver || h.driver == "any") && (h.backend == Backend::cuda) == gpu) fitting += " " + h.name;
    throw std::runtime_error(v.id() + " runs " + (v.backend == Backend::cuda ? "GPU" : "host") + " arrays under the " +
                             v.driver + " driver; this run has " + (gpu ? "GPU" : "host") + " arrays under the " +
                             driver + " driver" + (driver == "threads" ? " (--ranks N)" : " (mpirun)") +
                             "; halo variants that fit:" + (fitting.empty() ? std::string(" none in this build") : fitting));
  }
  if (tname.empty()) {
    tuning = v.tunings.front();
  } else if (const Tuning* t = v.find_tuning(tname)) {
    tuning = *t;
  } else {
    std::string known;
    for (const Tuning& t2 : v.tunings) known += " " + t2.name;
    throw std::runtime_error("unknown tuning '" + tname + "' for " + v.id() + "; known:" + known);
  }
  return &v;
}

// The slabs of a decomposition of the problem's grid over `ranks`.
std::vector<Slab> slabs_of(const Problem& p, int ranks) {
  if (const auto* own = dynamic_cast<const SlabAssigner*>(&p)) return own->assign_slabs(ranks);
  return decompose_z(p.grid(), ranks, p.periodic_z());
}

// The halo variant of a decomposed run, or none where the case's solver exchanges between ranks itself.
const HaloVariant* halo_of(const RunSetup& s, const std::string& driver, Tuning& tuning) {
  if (dynamic_cast<const SlabAssigner*>(&s.problem)) {
    if (!s.options.halo.empty())
      throw std::runtime_error("--halo: the " + s.solver.name + " solver exchanges between its ranks itself");
    return nullptr;
  }
  return choose_halo(s.options.halo, driver, s.recipe.backend, tuning);
}

std::string grid_text(const Grid& g) {
  return "grid " + std::to_string(g.nx) + "x" + std::to_string(g.ny) + "x" + std::to_string(g.nz);
}

// A CPU run's arrays live in this process's memory: a grid too large is named before anything is allocated, not
// killed by the kernel. An MPI process holds its own slab's; the threads driver's process every rank's.
template <class T>
void require_host_memory_of_ranks(const RunSetup& s, const std::vector<Slab>& slabs, Communicator* world) {
  std::uint64_t bytes = 0;
  for (const Slab& slab : slabs)
    if (!world || slab.rank == world->rank())
      bytes += s.problem.device_bytes(Precision<T>{}, slab_grid(s.problem.grid(), slab), s.solver_options);
  require_host_memory(bytes, grid_text(s.problem.grid()),
                      "the " + s.solver.name + " solver's fields and scratch" +
                          (world ? std::string(" of one rank") : slabs.size() > 1 ? " of every rank" : "") +
                          ", before the initial state and the checks' copies");
}

// The bytes the one-rank reference of grid g needs in rank 0's process: the solver's fields and scratch (on its GPU,
// or on the host for CPU ranks); on the host also the gathered final state and the reference's own (fields: the
// state's field count), and where the ranks built their slabs, the whole initial state, which rank 0 builds for the
// check (otherwise it is already in the memory measured).
template <class T>
std::uint64_t one_rank_reference_bytes(const RunSetup& s, const GridCells& c, std::size_t fields) {
  Grid g = s.problem.grid();
  g.nx = c.nx, g.ny = c.ny, g.nz = c.nz;
  const std::uint64_t solver = s.problem.device_bytes(Precision<T>{}, g, s.solver_options);
  if (s.recipe.backend == Backend::cuda) return solver;
  const std::uint64_t states = s.initial_state == InitialStatePath::per_slab ? 3 : 2;
  return solver + states * std::uint64_t(fields) * g.padded_points() * sizeof(T);
}

// The down-scaled twin of the plan (plan.twin_cells): the case made again on that grid, its slabs over the ranks.
// Where the case cannot be made so (it refuses the grid, or makes another one than asked for), why_no_twin says why,
// and the check says it was not performed (every rank makes the same attempt and reaches the same answer).
void make_twin(const RunSetup& s, int ranks, ReferencePlan& plan) {
  if (plan.twin_cells.nx == 0) {
    plan.why_no_twin = "halving the grid down to the rule's floors still does not fit";
    return;
  }
  try {
    CaseOptions c = s.options.case_options;
    c.nx = plan.twin_cells.nx, c.ny = plan.twin_cells.ny, c.nz = plan.twin_cells.nz;
    std::shared_ptr<const Problem> twin = s.solver.make_problem(c);
    const Grid& g = twin->grid();
    if (GridCells{g.nx, g.ny, g.nz} != plan.twin_cells)
      throw std::runtime_error("asked for --grid " + cells_text(plan.twin_cells) + ", the case made grid " +
                               cells_text({g.nx, g.ny, g.nz}));
    twin->check_options(s.options.solver);
    plan.twin_slabs = slabs_of(*twin, ranks);
    plan.twin = std::move(twin);
  } catch (const std::exception& e) {
    plan.why_no_twin = e.what();
  }
}

// A decomposed, checked run's reference plan (run/reference_plan.hpp), before any solver exists: rank 0, whose
// process runs the one-rank reference, measures its memory (after building its initial state: the whole grid's, or
// its slab where the ranks build their own) and decides; under MPI it sends the twin's grid to every rank, which all
// run the twin.
template <class T>
ReferencePlan plan_reference(const RunSetup& s, const std::vector<Slab>& slabs, const HostState<T>& start,
                             Communicator* world) {
  ReferencePlan plan;
  if (!s.options.check || slabs.size() < 2) return plan;
  std::int32_t decided[4] = {0, 0, 0, 0};  // down-scaled, the twin's nx, ny, nz (0: no grid fits)
  // Every rank reads it: a bad NSB_REFERENCE_MEMORY_MIB stops every rank alike, none is left waiting for rank 0.
  plan.memory = reference_memory(s.recipe.backend == Backend::cuda);
  if (!world || world->rank() == 0) {
    const std::size_t fields = start.fields.size();
    const Grid& g = s.problem.grid();
    plan.one_rank_bytes = one_rank_reference_bytes<T>(s, {g.nx, g.ny, g.nz}, fields);
    plan.down_scaled = reference_needs_twin(plan.one_rank_bytes, plan.memory);
    if (plan.down_scaled) {
      const int axis = slabs[0].ny > 0 ? 1 : 2;  // y-slabs or z-slabs
      const auto fits = [&](const GridCells& t) { return one_rank_reference_bytes<T>(s, t, fields) <= plan.memory.bytes; };
      const std::optional<GridCells> c = down_scaled_cells({g.nx, g.ny, g.nz}, axis, int(slabs.size()), fits);
      if (c) plan.twin_cells = *c, plan.twin_one_rank_bytes = one_rank_reference_bytes<T>(s, *c, fields);
    }
    decided[0] = plan.down_scaled, decided[1] = plan.twin_cells.nx, decided[2] = plan.twin_cells.ny;
    decided[3] = plan.twin_cells.nz;
  }
  if (world) world->broadcast(decided, sizeof decided, 0);
  plan.down_scaled = decided[0] != 0;
  plan.twin_cells = {decided[1], decided[2], decided[3]};
  if (plan.down_scaled) make_twin(s, int(slabs.size()), plan);
  return plan;
}

// How the ranks come by their initial state (run/rank_run.hpp InitialStatePath): an MPI rank builds its own slab
// where the case can (Problem::builds_slabs), else rank 0 builds the whole state and sends each its slab; the
// threads driver's ranks share one whole state. NSB_INITIAL_STATE=whole_grid takes rank 0's whole build where a
// slab build is possible (to compare the two: tests/mpi_initial_state.cmake); every rank reads it alike.
InitialStatePath initial_state_path(const Problem& p, Communicator* world, int ranks) {
  const char* forced = std::getenv("NSB_INITIAL_STATE");
  const std::string choice = forced ? forced : "";
  if (!choice.empty() && choice != "whole_grid" && choice != "per_slab")
    throw std::runtime_error("NSB_INITIAL_STATE=" + choice + ": expected whole_grid or per_slab");
  if (ranks == 1) return InitialStatePath::whole_grid;
  if (!world) return InitialStatePath::whole_grid_shared;
  if (choice == "per_slab" && !p.builds_slabs())
    throw std::runtime_error("NSB_INITIAL_STATE=per_slab: this case builds its initial state for the whole grid only");
  return p.builds_slabs() && choice != "whole_grid" ? InitialStatePath::per_slab : InitialStatePath::whole_grid_on_rank_0;
}

// phases: the run's clock so far (its set-up); each rank carries a copy on.
template <class T>
json run_ranks(const RunSetup& unplanned, PhaseClock phases) {
  RunSetup s = unplanned;
  const bool gpu = s.recipe.backend == Backend::cuda;
  const int gpus = gpu ? device::count() : 0;
  Communicator* world = mpi::world();
  const int ranks = world ? world->size() : s.options.ranks;
  const std::vector<Slab> slabs = slabs_of(s.problem, ranks);
  if (gpu) {  // before the initial state is built on the host: a grid too large fails at once
    const Grid g = slab_grid(s.problem.grid(), slabs[0]);
    device::set_device(world ? mpi::local_rank() % gpus : 0);
    device::require_free(s.problem.device_bytes(Precision<T>{}, g, s.solver_options), grid_text(g),
                         "the " + s.solver.name + " solver's fields and scratch of one rank");
    phases.done("device_check");
  } else {
    require_host_memory_of_ranks<T>(s, slabs, world);
    phases.done("host_memory_check");
  }
  // Per slab: each MPI rank's own slab, freed once loaded. Else the whole initial state, in one process: rank 0's
  // under the MPI driver, which sends every other rank its slab (scatter_from_root); the threads driver's ranks
  // share it. Rank 0 frees its fields once loaded (run_rank).
  s.initial_state = initial_state_path(s.problem, world, ranks);
  HostState<T> start = s.initial_state == InitialStatePath::per_slab
                           ? s.problem.initial_slab(Precision<T>{}, slabs[std::size_t(world->rank())])
                       : !world || world->rank() == 0 ? s.problem.initial_state(Precision<T>{})
                                                      : HostState<T>{s.problem.grid(), {}, 0, 0};
  phases.done("initial_state");
  s.reference = plan_reference<T>(s, slabs, start, world);
  RankContext shared;
  shared.slabs = slabs;

  if (world) {  // one MPI process per rank, GPUs bound by local rank
    RankContext ctx = shared;
    ctx.comm = world;
    ctx.rank = world->rank();
    if (ranks > 1) ctx.halo = halo_of(s, "mpi", ctx.tuning);
    if (gpu) {
      ctx.device = mpi::local_rank() % gpus;
      device::set_device(ctx.device);
    }
    phases.set_lines(s.options.progress && ctx.rank == 0);
    try {
      return run_rank<T>(s, ctx, start, phases);
    } catch (const std::exception& e) {
      world->abort("rank " + std::to_string(world->rank()) + ": " + e.what());  // does not return
      throw;
    }
  }

  if (ranks == 1) {
    SingleComm single;
    RankContext ctx = shared;
    ctx.comm = &single;
    ctx.device = gpu ? 0 : -1;
    if (gpu) device::set_device(0);
    return run_rank<T>(s, ctx, start, phases);
  }

  // One process, one host thread per rank (the thesis's one POSIX thread per GPU).
  shared.halo = halo_of(s, "threads", shared.tuning);
  auto group = std::make_shared<ThreadGroup>(ranks);
  json result;
  std::string error;
  std::mutex error_mutex;
#pragma omp parallel num_threads(ranks)
  {
    const int r = omp_get_thread_num();
    ThreadComm comm(group, r);
    try {
      if (omp_get_num_threads() != ranks)
        throw std::runtime_error("OpenMP gave " + std::to_string(omp_get_num_threads()) + " threads for " +
                                 std::to_string(ranks) + " ranks (check OMP_THREAD_LIMIT)");
      RankContext ctx = shared;
      ctx.comm = &comm;
      ctx.rank = r;
      if (gpu) ctx.device = r % gpus, device::set_device(ctx.device);
      PhaseClock mine = phases;
      mine.set_lines(s.options.progress && r == 0);
      json j = run_rank<T>(s, ctx, start, mine);
      if (r == 0) result = std::move(j);
    } catch (const PeerFailed&) {  // another rank's error is the one to report
    } catch (const std::exception& e) {
      const std::string what = dynamic_cast<const std::bad_alloc*>(&e) ? "out of host memory (std::bad_alloc)" : e.what();
      {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.empty()) error = "rank " + std::to_string(r) + ": " + what;
      }
      group->abort(what);
    }
  }
  if (!error.empty()) throw std::runtime_error(error);
  return result;
}

// Options that no solver can use, refused before anything runs: a number that is not finite, or
// outside what it means, is named (never silently replaced by a default).
void check_numbers(const RunOptions& o) {
  const CaseOptions& c = o.case_options;
  for (auto [flag, value] : {std::pair{"--re", c.re}, {"--dt", c.dt}, {"--safety", c.safety}, {"--gamma", c.gamma},
                             {"--jacobi-tol", o.solver.jacobi_tol}, {"--steady-tol", o.steady_tol}})
    if (!std::isfinite(value))
      throw std::runtime_error(std::string(flag) + " must be a finite number (got " + std::to_string(value) + ")");
  if (c.dt < 0) throw std::runtime_error("--dt must not be negative (0: the stable time step)");
  // A field's rows are int-indexed with one ghost each side (Grid::NX() = nx + 2): counted in 64 bits here.
  constexpr std::int64_t kMaxCells = std::numeric_limits<int>::max() - 2;
  for (auto [axis, n] : {std::pair{"nx", c.nx}, {"ny", c.ny}, {"nz", c.nz}})
    if (std::int64_t(n) > kMaxCells)
      throw std::runtime_error("--grid: " + std::string(axis) + " = " + std::to_string(n) + " is more cells than an "
                               "index can address (at most " + std::to_string(kMaxCells) + ")");
  if (o.solver.jacobi_tol < 0) throw std::runtime_error("--jacobi-tol must not be negative (0: a fixed count)");
  if (!(o.steady_tol > 0)) throw std::runtime_error("--steady-tol must be positive");
  if (o.solver.threads < 0) throw std::runtime_error("--threads must not be negative (0: every core)");
  if (o.steady_check_every < 1) throw std::runtime_error("steady_check_every must be at least 1");
}

void check_run_options(const RunOptions& o, Backend b, int ranks) {
  if (o.precision != "float" && o.precision != "double")
    throw std::runtime_error("unknown precision '" + o.precision + "'; known: float double");
  if (o.steps < 1) throw std::runtime_error("--steps must be at least 1");
  if (o.warmup < 0) throw std::runtime_error("--warmup must not be negative");
  if (o.ranks < 1) throw std::runtime_error("--ranks must be at least 1");
  if (o.ranks > 1 && mpi::world())
    throw std::runtime_error("--ranks is for the threads driver; under mpirun the rank count is mpirun's -np");
  if (!o.halo.empty() && ranks == 1)
    throw std::runtime_error("--halo needs several ranks: --ranks N (threads) or mpirun -np N");
  if (o.launch != "stream" && o.launch != "graph")
    throw std::runtime_error("unknown --launch '" + o.launch + "'; known: stream graph");
  if (o.launch == "graph" && b != Backend::cuda) throw std::runtime_error("--launch graph needs --backend cuda");
  if (o.launch == "graph" && o.solver.jacobi_tol > 0)
    throw std::runtime_error("--launch graph needs a fixed Jacobi count: the tolerance mode reads the residual "
                             "back to the host, which a graph cannot record");
  if (o.launch == "graph" && ranks > 1)
    throw std::runtime_error("--launch graph runs one rank: halo exchanges synchronise with other ranks on the host");
  if (b == Backend::cuda && device::count() == 0)
    throw std::runtime_error("--backend cuda: " + device::unavailable_reason());
  if (o.profile && (b != Backend::cuda || ranks > 1 || o.launch != "stream"))
    throw std::runtime_error("--profile needs --backend cuda, one rank and --launch stream (the passes tag kernels "
                             "with the stage that launched them on this process's GPU)");
  if (o.profile && o.profile_steps < 1) throw std::runtime_error("--profile-steps must be at least 1");
  if (o.output_every < 0) throw std::runtime_error("--output-every must not be negative");
  if (o.output_every > 0 && o.output_dir.empty()) throw std::runtime_error("--output-every needs --output DIR");
  if (o.output_every > 0 && ranks > 1)
    throw std::runtime_error("--output-every writes the state of one rank's run; a decomposed run writes its final "
                             "state only (--output)");
}

// A GPU run's host arrays are staging only (the initial state, a solver's zero fields on their way up, the
// downloads and the checks; never timed), and on a large grid each is GBs, allocated and freed several times
// a run. glibc maps an array that large with mmap and unmaps it when freed, so each new one is first touched
// page by page again: seconds a field (run.phase_seconds: load, final_checks, save). With mmap off and no
// trimming (mallopt(3)) a freed array stays in the heap and the next one of its size reuses its pages. The
// sizes repeat, so the peak is unchanged. One arena for every thread: glibc's arenas of other threads (the
// threads driver's ranks) would map large arrays still; a GPU run's host threads allocate little in a step, so
// they do not queue on its lock. A process-wide setting that stays: a CPU run after a GPU run in the same process
// (a test binary) keeps it; nsbench makes one run a process, so its CPU runs keep glibc's defaults.
void keep_freed_host_memory() {
#if defined(__GLIBC__) && defined(M_MMAP_MAX)
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

}  // namespace

json run(const RunOptions& o) {
  PhaseClock phases(o.progress && (!mpi::world() || mpi::world()->rank() == 0));  // rank 0 speaks for the run
  check_numbers(o);
  const SolverDef& solver = SolverRegistry::instance().of_run(o.solver_name, o.case_options.name);
  const std::unique_ptr<Problem> problem = solver.make_problem(o.case_options);
  const Backend b = parse_backend(o.backend);
  const int ranks = mpi::world() ? mpi::world()->size() : o.ranks;
  check_run_options(o, b, ranks);
  problem->check_options(o.solver);
  if (b == Backend::cuda) keep_freed_host_memory();
  nvtx_enabled() = o.nvtx;
  const Recipe& base = o.tuned_recipe ? *o.tuned_recipe
                       : o.recipe.empty() ? default_recipe(solver.name, b) : find_recipe(solver.name, o.recipe);
  // --stage poisson/<stage>=... picks a kernel of the Poisson family's method, not of the recipe.
  SolverOptions so = o.solver;
  std::vector<std::string> recipe_overrides;
  for (const std::string& s : o.stage_overrides) {
    const auto eq = s.find('=');
    if (s.rfind("poisson/", 0) == 0 && eq != std::string::npos) so.poisson_kernels[s.substr(0, eq)] = s.substr(eq + 1);
    else recipe_overrides.push_back(s);
  }
  for (const auto& [stage, choice] : base.family_kernels) {  // the recipe's; a --stage above wins
    if (stage.rfind("poisson/", 0) != 0)
      throw std::runtime_error("recipe '" + base.name + "': stage '" + stage + "' is neither a stage of the " +
                               solver.name + " solver nor a kernel of its Poisson method (poisson/<stage>)");
    so.poisson_kernels.emplace(stage, choice);
  }
  ResolvedRecipe rr = resolve(base, recipe_overrides);
  const bool cpu_pair = rr.backend != Backend::cuda && b != Backend::cuda;
  if (rr.backend != b && !cpu_pair)
    throw std::runtime_error("recipe '" + base.name + "' runs on " + backend_name(rr.backend) + ", not on --backend " +
                             o.backend);
  if (cpu_pair) rr.backend = b;  // cpu-serial stages under --backend cpu_omp run threaded and vice versa
  so.threads = rr.backend == Backend::cpu_omp ? (so.threads > 0 ? so.threads : omp_get_max_threads()) : 1;
  const RunSetup setup{o, solver, *problem, rr, so, {}};
  phases.done("set_up");
  return o.precision == "float" ? run_ranks<float>(setup, phases) : run_ranks<double>(setup, phases);
}

}  // namespace nsb
