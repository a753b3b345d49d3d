// nsbench command line: run a case with a recipe, list variants, verify variants.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <new>

#include "bandwidth.hpp"
#include "cpu_bandwidth.hpp"
#include "device.hpp"
#include "list.hpp"
#include "mpi_driver.hpp"
#include "option_choices.hpp"
#include "run.hpp"
#include "run/result.hpp"
#include "stage_bench.hpp"
#include "tune.hpp"
#include "tune_cache.hpp"
#include "verify.hpp"

namespace {

std::string join_args(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

bool parse_grid(const std::string& s, nsb::CaseOptions& c) {
  int nx, ny, nz;
  char x1, x2;
  std::istringstream in(s);
  if (!(in >> nx >> x1 >> ny >> x2 >> nz) || x1 != 'x' || x2 != 'x' || !in.eof()) return false;
  c.nx = nx, c.ny = ny, c.nz = nz;
  return true;
}

int verify_command(const nsb::VerifyOptions& o) {
  const bool have_gpu = nsb::device::count() > 0;
  if (!have_gpu && !o.include_cpu) {
    if (o.allow_no_gpu) {  // (a build without CUDA registers no GPU variant: its filters name none)
      std::printf("verify: SKIPPED GPU variants (--allow-no-gpu): %s\n", nsb::device::unavailable_reason().c_str());
      return 0;
    }
    std::fprintf(stderr, "nsbench verify: no usable GPU (%s): nothing verified (--allow-no-gpu where that is "
                 "expected, --cpu to check the CPU variants)\n", nsb::device::unavailable_reason().c_str());
    return 1;
  }
  nsb::check_variant_filters(o.solver, o.stage, o.variant, "");  // a typo is an error, not "0 passed, 0 failed"
  nsb::VerifyOptions opt = o;
  opt.gpu = have_gpu;
  if (!have_gpu) std::printf("verify: no GPU (%s); checking CPU variants only\n", nsb::device::unavailable_reason().c_str());
  int failed = 0, total = 0;
  for (const nsb::VerifyResult& r : nsb::verify_variants(opt)) {
    ++total;
    failed += !r.pass;
    std::printf("%-4s %-38s %-18s %-6s %-8s %-4s max rel diff %.2e (tol %.1e)%s%s%s\n", r.pass ? "ok" : "FAIL",
                r.id.c_str(), r.tuning.c_str(), r.precision.c_str(), r.grid.c_str(), r.scheme.c_str(), r.max_rel_diff,
                r.tolerance, r.deterministic_checked ? (r.bitwise_repeatable ? " bitwise-repeatable" : " NOT-repeatable") : "",
                r.message.empty() ? "" : "  ", r.message.c_str());
  }
  std::printf("verify: %d passed, %d failed\n", total - failed, failed);
  if (total == 0) {
    std::fprintf(stderr, "nsbench verify: no variant matched the filters on this machine's backends: nothing verified\n");
    return 1;
  }
  return failed ? 1 : 0;
}

// `nsbench run`: its options, and what the command line's words become.
struct RunCli {
  nsb::RunOptions ro;
  std::string grid = "64x4x64", scheme = "euler", nvtx = "on";
  bool no_check = false, quiet = false, force = false;
  std::string tune_cache = nsb::default_tune_cache();  // where --recipe tuned looks
  nsb::ExplicitRunOptions explicit_options;           // which of a tuned recipe's options the command line set
};

// The case and its physics: which solver runs, on what grid, with what parameters.
void add_case_options(CLI::App* run, RunCli& c) {
  nsb::RunOptions& ro = c.ro;
  ro.case_options.name = "cavity";
  std::string cases;
  for (const nsb::SolverDef& d : nsb::SolverRegistry::instance().all())
    for (const std::string& name : d.cases) cases += (cases.empty() ? "" : " | ") + name + " (" + d.name + ")";
  run->add_option("--case", ro.case_options.name, "the case, and so the solver: " + cases)->capture_default_str();
  run->add_option("--solver", ro.solver_name,
                  "the solver, where the case's name alone does not pick it (imle's cavity and taylor_green)");
  run->add_option("--grid", c.grid, "interior cells NXxNYxNZ (cavity: lid on the top z plane, span in y; the wave: NXx1xNY)")
      ->capture_default_str();
  run->add_option("--re", ro.case_options.re, "Reynolds number")->capture_default_str();
  run->add_option("--dt", ro.case_options.dt, "time step (default: --safety x the stable explicit step)");
  run->add_option("--safety", ro.case_options.safety, "fraction of the stable time step")->capture_default_str();
  run->add_option("--case-param", ro.case_options.params,
                  "a case's own setting KEY=VALUE, repeatable (urban: seed, city, profile, z0, cs, turbulence, outflow; cube: cs, turbulence, outflow; imle on ranks: ccd_z, rank_sums = auto|host|peer)");
  run->add_option("--gamma", ro.case_options.gamma, "upwind blend weight of advection (thesis GAMMA)")
      ->capture_default_str();
  run->add_option("--scheme", c.scheme, "euler | ab2 (Adams-Bashforth 2)")->capture_default_str();
}

// How it is solved: backend, recipe and stage variants, steps, the Poisson method, ranks and halo.
void add_solve_options(CLI::App* run, RunCli& c) {
  nsb::RunOptions& ro = c.ro;
  run->add_option("--backend", ro.backend, "cpu_serial | cpu_omp | cuda")->capture_default_str();
  run->add_option("--threads", ro.solver.threads, "OpenMP threads for cpu_omp (0: all cores)");
  run->add_option("--precision", ro.precision, "float | double")->capture_default_str();
  run->add_option("--recipe", ro.recipe,
                  "named choice of variants of the case's solver (nsbench list shows them); default: the "
                  "solver's first recipe of the backend (projection: cpu-serial, cpu-omp, thibault-optimal). "
                  "'tuned': the recipe nsbench tune cached for this machine, solver, backend, precision and grid "
                  "class (stages, and its --poisson, --halo, --launch where these are not given: an option given "
                  "on the command line wins); without one the run refuses and prints the tune command to run");
  run->add_option("--tune-cache", c.tune_cache, "where --recipe tuned looks (nsbench tune --cache)")
      ->capture_default_str();
  run->add_option("--stage", ro.stage_overrides, "override one stage: STAGE=VARIANT[:TUNING] (repeatable)");
  run->add_option("--steps", ro.steps, "timed steps, or the step cap with --until-steady")->capture_default_str();
  run->add_option("--warmup", ro.warmup, "untimed steps before timing")->capture_default_str();
  run->add_flag("--until-steady", ro.until_steady, "stop when RMS(u^{n+1}-u^n)/(dt U) < --steady-tol");
  run->add_option("--steady-tol", ro.steady_tol, "steady-state threshold")->capture_default_str();
  run->add_option("--iterations,--jacobi-iterations", ro.solver.jacobi_iterations,
                  "iterations of the Poisson method per step (Jacobi or SOR sweeps, CG steps, multigrid cycles; "
                  "thesis: 20 Jacobi sweeps), or the cap with --jacobi-tol (--jacobi-iterations: the old name)")
      ->capture_default_str();
  run->add_option("--jacobi-tol", ro.solver.jacobi_tol,
                  "iterate until RMS residual <= tol * RMS(div/dt) (0: fixed count)")
      ->capture_default_str();
  run->add_option("--check-every", ro.solver.check_every,
                  "iterations between residual checks in tolerance mode; 0: the method's default (10 for jacobi, "
                  "rbsor, cg, pcg; every cycle for multigrid)")
      ->capture_default_str();
  run->add_option("--poisson", ro.solver.poisson_method,
                  "method of the Poisson solve (the Poisson family, harness/solvers/poisson/): " +
                      nsb::option_choices_text("poisson") +
                      "; a method's options after ':' (multigrid: pre<N>_post<N>_w<omega x 100>, e.g. mg_graph:pre2_post1_w115)"
                      "; its stages' kernels: --stage poisson/STAGE=VARIANT[:TUNING] (nsbench list --stage STAGE)")
      ->capture_default_str();
  run->add_option("--launch", ro.launch,
                  "stream: launch every kernel each step (per-stage timing); graph: replay a CUDA graph of two "
                  "steps (whole-step timing only; shows what launch overhead costs)")
      ->capture_default_str();
  run->add_option("--ranks", ro.ranks,
                  "split the grid into this many z-slabs, one host thread (and GPU, round robin) each; under "
                  "mpirun the rank count is -np instead")
      ->capture_default_str();
  run->add_option("--halo", ro.halo,
                  "halo exchange variant NAME[:TUNING] between ranks (nsbench list --stage halo); default: "
                  "p2p_sync (GPU, threads), mpi_host_staged (GPU, MPI), shared_memory_copy / mpi_sendrecv (CPU)");
}

// What is checked, written and traced.
void add_output_options(CLI::App* run, RunCli& c) {
  nsb::RunOptions& ro = c.ro;
  run->add_flag("--no-check", c.no_check,
                "skip the correctness check: against the CPU reference (one GPU) or the same recipe on one rank "
                "(several ranks; where the whole grid would not fit one rank, a down-scaled twin of the run against "
                "its own one-rank run, said in the result; NSB_REFERENCE_MEMORY_MIB=N sets the memory that decides)");
  run->add_option("--json", ro.json_path,
                  "write the full result (schema nsbench.run/2) to this file; checked before the run, written "
                  "atomically, never over an existing file unless --force");
  run->add_flag("--force", c.force, "let --json replace an existing file");
  run->add_option("--output", ro.output_dir,
                  "write the final state for people into this folder (created if missing): final.vti (VTK image "
                  "data for ParaView: cell-centred velocity, speed, pressure; the wave: its fields), and for the "
                  "cavity final_centre_lines.csv (u on x = 1/2, w on z = 1/2, any Re)");
  run->add_option("--output-every", ro.output_every, "also write the state every N timed steps (untimed; one rank)");
  run->add_flag("--quiet", c.quiet, "no progress lines");
  run->add_flag("--profile", ro.profile,
                "after the timed steps (never during them): a CUPTI kernel trace over --profile-steps steps (kernel "
                "time per stage call vs the event-timed call) and hardware counters over one step (DRAM bytes vs "
                "the byte model, L2 hit rate, occupancy, global requests/sectors); stored under 'profile' in the "
                "JSON. Where counters are refused, the reason is recorded and the trace kept.");
  run->add_option("--profile-steps", ro.profile_steps, "steps of the trace pass")->capture_default_str();
  run->add_option("--nvtx", c.nvtx,
                  "on: NVTX ranges (domain nsbench) per step, stage call (variant id) and halo exchange, for "
                  "Nsight tools; off: none (to measure what they cost)")
      ->capture_default_str();
}

CLI::App* add_run_command(CLI::App& app, RunCli& c) {
  auto* run = app.add_subcommand("run", "run a case and print (and optionally write) the timed result");
  add_case_options(run, c);
  add_solve_options(run, c);
  add_output_options(run, c);
  return run;
}

int run_command(RunCli& c, int argc, char** argv) {
  nsb::RunOptions& ro = c.ro;
  if (!parse_grid(c.grid, ro.case_options))
    throw std::runtime_error("bad --grid '" + c.grid + "': expected NXxNYxNZ, e.g. 128x4x128");
  if (c.scheme == "euler") ro.solver.scheme = nsb::TimeScheme::euler;
  else if (c.scheme == "ab2") ro.solver.scheme = nsb::TimeScheme::adams_bashforth2;
  else throw std::runtime_error("unknown --scheme '" + c.scheme + "'; known: euler ab2");
  ro.check = !c.no_check;
  if (c.nvtx != "on" && c.nvtx != "off") throw std::runtime_error("unknown --nvtx '" + c.nvtx + "'; known: on off");
  ro.nvtx = c.nvtx == "on";
  ro.progress = !c.quiet;
  ro.command_line = join_args(argc, argv);
  ro.overwrite = c.force;
  if (ro.recipe == "tuned") nsb::use_tuned_recipe(ro, c.tune_cache, c.explicit_options);
  else nsb::use_named_recipe_options(ro, c.explicit_options);  // a recipe is the whole configuration
  nsb::check_result_path(ro.json_path, c.force);  // before the run: a bad path must not cost its output
  if (!ro.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(ro.output_dir, ec);
    if (ec || !std::filesystem::is_directory(ro.output_dir))
      throw std::runtime_error("--output " + ro.output_dir + ": cannot create that folder (" + ec.message() + ")");
  }
  if (!nsb::mpi::built_with_mpi() && std::getenv("OMPI_COMM_WORLD_SIZE") &&
      std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1")
    throw std::runtime_error("started by mpirun, but this nsbench was built without MPI: the processes would "
                             "run independent copies (install libopenmpi-dev and rebuild, or use --ranks N)");
  const auto result = nsb::run(ro);
  if (result.is_null()) return 0;  // an MPI rank other than 0: rank 0 reports
  nsb::print_summary(result);
  if (!ro.json_path.empty()) std::printf("  result written to %s\n", ro.json_path.c_str());
  if (result.value("status", "") == "failed") {
    std::fprintf(stderr, "nsbench: run FAILED: %s\n", result["failure"].get<std::string>().c_str());
    return 3;
  }
  const auto& ref = result["checks"]["reference"];
  return ref["performed"].get<bool>() && !ref["pass"].get<bool>() ? 2 : 0;
}

// `nsbench list`: what is there (stages, variants, tunings, recipes), as text or JSON.
struct ListCli {
  std::string stage, tag;
  bool json = false;
};

CLI::App* add_list_command(CLI::App& app, ListCli& c) {
  auto* list = app.add_subcommand("list", "list stages, variants with tags and tunings, recipes, flop counts");
  list->add_option("--stage", c.stage, "only this stage");
  list->add_option("--tag", c.tag, "only variants with this tag, KEY=VALUE (memory=shared, cta=1d, ...)");
  list->add_flag("--json", c.json, "everything as JSON (schema nsbench.list/2), for tools");
  return list;
}

int list_command(const ListCli& c) {
  if (c.json) std::printf("%s\n", nsb::list_json().dump(1).c_str());
  else nsb::print_list(c.stage, c.tag);
  return 0;
}

CLI::App* add_verify_command(CLI::App& app, nsb::VerifyOptions& vo) {
  auto* verify = app.add_subcommand("verify", "check every GPU variant x tuning against the CPU reference");
  verify->add_option("--solver", vo.solver, "only this solver's stages");
  verify->add_option("--stage", vo.stage, "only this stage (NAME or SOLVER/NAME)");
  verify->add_option("--variant", vo.variant, "only this variant name");
  verify->add_flag("--cpu", vo.include_cpu, "also check cpu_omp against cpu_serial");
  verify->add_flag("--allow-no-gpu", vo.allow_no_gpu,
                   "exit 0 without a usable GPU (CI without a GPU); otherwise no GPU is an error (exit 1)");
  return verify;
}

// `nsbench stages`: every stage variant x tuning timed on its own.
struct StagesCli {
  nsb::StageBenchOptions so;
  std::string grid = "256x256x256";
  bool force = false;
};

CLI::App* add_stages_command(CLI::App& app, StagesCli& c) {
  nsb::StageBenchOptions& so = c.so;
  auto* stages = app.add_subcommand("stages", "time every GPU stage variant x tuning on its own (random fields)");
  stages->add_option("--grid", c.grid, "interior cells NXxNYxNZ")->capture_default_str();
  stages->add_option("--precision", so.precision, "float | double")->capture_default_str();
  stages->add_option("--solver", so.solver, "only this solver's stages");
  stages->add_option("--stage", so.stages, "only this stage (NAME or SOLVER/NAME); repeat it for several stages");
  stages->add_option("--variant", so.variants, "only this variant name; repeat it for several variants");
  stages->add_option("--tuning", so.tuning, "only this tuning (e.g. for a profiler run of one kernel)");
  stages->add_option("--samples", so.samples, "timed calls per variant x tuning")->capture_default_str();
  stages->add_option("--warmup", so.warmup, "untimed calls first")->capture_default_str();
  stages->add_option("--backend", so.backend, "cuda (GPU variants) | cpu_serial | cpu_omp (CPU variants, steady_clock)")
      ->capture_default_str();
  stages->add_option("--threads", so.threads, "OpenMP threads of cpu_omp variants (0 = OpenMP's default)")
      ->capture_default_str();
  stages->add_option("--json", so.json_path, "write every row with raw samples (schema nsbench.stages/2)");
  stages->add_flag("--force", c.force, "let --json replace an existing file");
  return stages;
}

int stages_command(StagesCli& c, int argc, char** argv) {
  nsb::StageBenchOptions& so = c.so;
  if (so.backend != "cuda") nsb::pin_threads_unless_told(argv);
  nsb::CaseOptions tmp;  // the grid only
  if (!parse_grid(c.grid, tmp)) throw std::runtime_error("bad --grid '" + c.grid + "'");
  so.grid = nsb::Grid{tmp.nx, tmp.ny, tmp.nz, double(tmp.nx), double(tmp.ny), double(tmp.nz)};
  so.command_line = join_args(argc, argv);
  so.overwrite = c.force;
  nsb::check_result_path(so.json_path, c.force);
  nsb::bench_stages(so);
  return 0;
}

// `nsbench bandwidth`: the machine's copy rates, GPU transfers and the CPU's STREAM.
struct BandwidthCli {
  nsb::BandwidthOptions bo;
  std::size_t max_mib = 256;
  bool force = false;
};

CLI::App* add_bandwidth_command(CLI::App& app, BandwidthCli& c) {
  auto* bandwidth = app.add_subcommand(
      "bandwidth", "host<->device (pageable, pinned), device<->device and peer-to-peer bandwidth over message sizes, "
                   "and small-message latency (thesis Table A.1; the scaling model's link numbers); the CPU's "
                   "STREAM copy and triad and its FP64 rate on one core and on all cores (machine.cpu.bandwidth)");
  bandwidth->add_option("--samples", c.bo.samples, "timed transfers per size")->capture_default_str();
  bandwidth->add_option("--max-mib", c.max_mib, "largest message, MiB (sizes go up by 4x from 8 bytes)")
      ->capture_default_str();
  bandwidth->add_option("--json", c.bo.json_path, "write every size with raw samples (schema nsbench.bandwidth/1)");
  bandwidth->add_flag("--force", c.force, "let --json replace an existing file");
  return bandwidth;
}

int bandwidth_command(BandwidthCli& c, int argc, char** argv) {
  nsb::pin_threads_unless_told(argv);
  c.bo.max_bytes = c.max_mib << 20;
  c.bo.command_line = join_args(argc, argv);
  c.bo.overwrite = c.force;
  nsb::check_result_path(c.bo.json_path, c.force);
  nsb::measure_bandwidth(c.bo);
  if (!c.bo.json_path.empty()) std::printf("result written to %s\n", c.bo.json_path.c_str());
  return 0;
}

// `nsbench tune`: the fastest verified recipe for this machine, case, grid and precision (tune.hpp).
struct TuneCli {
  nsb::TuneOptions to;
  std::string grid = "256x256x256";
  std::string json_path;
  bool no_check = false, force = false;
};

CLI::App* add_tune_command(CLI::App& app, TuneCli& c) {
  nsb::TuneOptions& to = c.to;
  to.case_options.name = "cavity";
  auto* tune = app.add_subcommand(
      "tune",
      "find the fastest verified recipe for this machine, case, grid and precision, and cache it for "
      "`nsbench run --recipe tuned`.\n"
      "Example:\n"
      "  nsbench tune --case cavity --grid 256x256x256 --precision float --budget 170\n"
      "  nsbench run --recipe tuned --backend cuda --case cavity --grid 256x256x256 --precision float\n"
      "What is searched: (1) every variant x tuning of each of the solver's stages, timed on its own at this grid "
      "(as `nsbench stages`) and checked against the CPU reference (as `nsbench verify`); one that cannot launch here "
      "is skipped with the reason, one that fails its check is never chosen; (2) whole steps of the stages' "
      "winners with each launch mode (stream, graph), halo variant (--ranks > 1) and, with --jacobi-tol, Poisson "
      "method, then each stage's runners-up (--top-k) one at a time; (3) the choice, with the run's reference "
      "check, against every named recipe, same steps, same process: a named recipe faster beyond the noise (the "
      "larger IQR) is taken instead, so the tuned recipe is never slower than a named one.\n"
      "Where it writes: the cache (--cache), in a folder per machine (GPU or CPU model), driver, solver, backend, "
      "precision, grid class (each axis rounded up to a power of two) and ranks: recipe.json (the recipes.json "
      "form), candidates.json and candidates.md (every candidate's median, IQR, verdict and reason). Progress on "
      "stderr, the outcome on stdout.");
  tune->add_option("--case", to.case_options.name, "the case, and so the solver (as nsbench run --case)")->capture_default_str();
  tune->add_option("--solver", to.solver_name, "the solver, where the case's name alone does not pick it");
  tune->add_option("--grid", c.grid, "interior cells NXxNYxNZ, as the runs will use them")->capture_default_str();
  tune->add_option("--precision", to.precision, "float | double")->capture_default_str();
  tune->add_option("--backend", to.backend, "cuda | cpu_serial | cpu_omp")->capture_default_str();
  tune->add_option("--ranks", to.ranks, "z-slabs, one host thread (and GPU) each, as nsbench run --ranks; > 1 searches the halo variants")
      ->capture_default_str();
  tune->add_option("--budget", to.budget_s, "seconds the search aims at: stages until 40%, whole steps until 80%; "
                   "the confirmation against the named recipes always runs")->capture_default_str();
  tune->add_option("--cache", to.cache_dir, "the cache folder (default: $NSBENCH_TUNE_CACHE, else "
                   "$XDG_CACHE_HOME/nsbench/tune, else ~/.cache/nsbench/tune); nsbench run --tune-cache reads it");
  tune->add_option("--samples", to.samples, "timed calls per stage candidate")->capture_default_str();
  tune->add_option("--steps", to.steps, "timed whole steps per recipe timed")->capture_default_str();
  tune->add_option("--warmup", to.warmup, "untimed whole steps first")->capture_default_str();
  tune->add_option("--top-k", to.top_k, "candidates per stage the whole-step descent tries")->capture_default_str();
  tune->add_option("--iterations", to.solver.jacobi_iterations, "Poisson iterations per step, as the runs will use them")
      ->capture_default_str();
  tune->add_option("--jacobi-tol", to.solver.jacobi_tol, "iterate to this tolerance (as nsbench run); > 0 also "
                   "searches the Poisson methods (at a fixed count they do different work)")->capture_default_str();
  tune->add_option("--threads", to.solver.threads, "OpenMP threads for cpu_omp (0: all cores)");
  tune->add_option("--re", to.case_options.re, "Reynolds number")->capture_default_str();
  tune->add_option("--case-param", to.case_options.params, "a case's own setting KEY=VALUE (as nsbench run)");
  tune->add_flag("--no-check", c.no_check, "skip the whole-run reference check of the chosen recipe");
  tune->add_option("--json", c.json_path, "also write the outcome as a result file (schema nsbench.tune/1: the key, "
                   "the recipe, every candidate with the confirmation's tuned and named rows, machine and build), as "
                   "a study's run does; checked before the search, never over an existing file unless --force");
  tune->add_flag("--force", c.force, "let --json replace an existing file");
  return tune;
}

int tune_command(TuneCli& c, int argc, char** argv) {
  if (!parse_grid(c.grid, c.to.case_options))
    throw std::runtime_error("bad --grid '" + c.grid + "': expected NXxNYxNZ, e.g. 256x256x256");
  c.to.check = !c.no_check;
  c.to.command_line = join_args(argc, argv);
  nsb::check_result_path(c.json_path, c.force);  // before the search: a bad path must not cost its minutes
  nlohmann::json outcome = nsb::tune(c.to);  // already in the result's form (schema nsbench.tune/1)
  if (!c.json_path.empty()) {
    outcome["machine"] = nsb::machine_metadata(c.to.solver.threads);
    outcome["build"] = nsb::build_metadata();
    nsb::write_json(c.json_path, outcome, c.force);
    std::printf("result written to %s\n", c.json_path.c_str());
  }
  return 0;
}

// nsbench --help's header: what the tool is, examples, and the exit codes of every command.
const char* const kAbout =
    "nsbench: benchmark and study harness for GPU incompressible Navier-Stokes solvers.\n"
    "Each solver (projection: Thibault's cavity solver; wave: his 2D wave equation; nsbench list shows\n"
    "them all) is a time loop over stages; every stage has several implementations ('variants'), named\n"
    "solver/stage/variant:tuning; a recipe picks one per stage, and --case picks the solver.\n\n"
    "Examples:\n"
    "  nsbench run --case cavity --grid 64x4x64 --re 100 --until-steady --steps 40000\n"
    "  nsbench run --backend cuda --recipe thibault-optimal --grid 256x32x256 --steps 200\n"
    "  nsbench run --backend cuda --recipe thibault-global --stage pressure=jacobi_shared_zloop:bx16_by8_sz2\n"
    "  nsbench run --backend cuda --grid 512x512x512 --ranks 2 --halo p2p_async_overlap   (2 GPUs, threads)\n"
    "  mpirun -np 2 nsbench run --backend cuda --grid 512x512x512 --halo nccl              (2 GPUs, MPI)\n"
    "  nsbench list --stage pressure        nsbench verify\n"
    "  nsbench tune --case cavity --grid 256x256x256 --precision float --budget 170   (then --recipe tuned)\n\n"
    "Exit codes: 0 done (and checked); 1 bad input or an error, named on stderr (nothing run, or the\n"
    "run could not finish); 2 `run`: the check against the reference FAILED (the result is written);\n"
    "3 `run`: the run FAILED, it blew up: its state is not finite (NaN/Inf), or its speed grew past 100x the\n"
    "case's velocity scale (the result is written, marked failed); 4 `run --recipe tuned`: this machine has no\n"
    "tuned recipe for the run's grid class (nothing run; the message names the `nsbench tune` command that makes\n"
    "it); `verify`: 1 when a variant fails or none matched.";

}  // namespace

int run_main(int argc, char** argv);

int main(int argc, char** argv) {
  nsb::mpi::init(&argc, &argv);  // only when started by mpirun
  const int rc = run_main(argc, argv);
  nsb::mpi::finalize();
  return rc;
}

int run_main(int argc, char** argv) {
  CLI::App app{kAbout};
  app.require_subcommand(1);

  RunCli run_cli;
  ListCli list_cli;
  nsb::VerifyOptions verify_options;
  StagesCli stages_cli;
  BandwidthCli bandwidth_cli;
  TuneCli tune_cli;
  auto* run = add_run_command(app, run_cli);
  auto* list = add_list_command(app, list_cli);
  auto* verify = add_verify_command(app, verify_options);
  auto* stages = add_stages_command(app, stages_cli);
  auto* bandwidth = add_bandwidth_command(app, bandwidth_cli);
  auto* tune = add_tune_command(app, tune_cli);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*run) {
      run_cli.explicit_options = {run->count("--poisson") > 0, run->count("--halo") > 0, run->count("--launch") > 0};
      return run_command(run_cli, argc, argv);
    }
    if (*tune) return tune_command(tune_cli, argc, argv);
    if (*list) return list_command(list_cli);
    if (*stages) return stages_command(stages_cli, argc, argv);
    if (*verify) return verify_command(verify_options);
    if (*bandwidth) return bandwidth_command(bandwidth_cli, argc, argv);
  } catch (const nsb::MissingTunedRecipe& e) {
    std::fprintf(stderr, "nsbench: not run: %s\n", e.what());
    return 4;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "nsbench: error: out of host memory (std::bad_alloc): the run needs more memory than this "
                 "machine or its memory limit gives (a smaller --grid, or float, needs less)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nsbench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
