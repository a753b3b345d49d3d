// A run: case + grid + precision + solver + recipe + ranks + steps -> timings, checks, metadata, one
// JSON result (docs/results-schema.md). The executor behind it (harness/run/) drives any registered
// solver through the Solver interface (solver.hpp): the timed loop (run/timed_loop.hpp), the ranks and
// drivers (run/ranks.cpp), the checks and the result (run/result.*), the summary (run/summary.cpp) and
// the profiling passes (run/profile_passes.*).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/result.hpp"
#include "solver.hpp"

namespace nsb {

struct RunOptions {
  CaseOptions case_options;            // case_options.name picks the solver (the solver that has that case)
  std::string solver_name;             // or this solver, whose case case_options.name is (cases shared by name)
  std::string precision = "double";    // "float" | "double"
  std::string backend = "cpu_serial";  // cpu_serial | cpu_omp | cuda
  std::string recipe;                  // empty: the solver's first recipe of the backend
  // `--recipe tuned`: the recipe `nsbench tune` cached for this run (tune_cache.hpp), and its file; it
  // replaces the named look-up, and the result records both.
  std::optional<Recipe> tuned_recipe;
  std::string recipe_file;
  std::vector<std::string> stage_overrides;
  SolverOptions solver;
  int steps = 100;            // timed steps (a fixed count), or the cap with until_steady
  int warmup = 5;             // untimed steps first (excluded from statistics)
  bool until_steady = false;  // run until the solver's change per unit time falls below steady_tol
  double steady_tol = 1e-5;   // relative change per unit time threshold
  int steady_check_every = 50;
  bool check = true;          // compare with the CPU reference after the run (GPU backends)
  int ranks = 1;              // threads driver: z-slabs, one host thread (and GPU) each
  std::string halo;           // halo variant NAME[:TUNING] for several ranks ("" = the driver's default)
  std::string launch = "stream";  // "stream": every kernel launched each step; "graph": CUDA-graph replay
  std::string json_path;      // write the result here ("" = don't)
  bool overwrite = false;       // --force: json_path may replace an existing file
  std::string output_dir;     // write the final state for people (VTK, CSV) into this folder ("" = don't)
  int output_every = 0;       // also every N timed steps (one rank; untimed), 0 = the final state only
  std::string command_line;
  bool progress = true;       // progress lines on stderr for long runs
  bool profile = false;       // CUPTI trace and counter passes after the timed steps (profile.hpp)
  int profile_steps = 5;      // steps of the trace pass (the counter pass takes one)
  bool nvtx = true;           // NVTX ranges per step, stage call and halo exchange (off: to show their cost)
};

// Runs and returns the JSON result (also written to json_path); under mpirun, rank 0 returns it and
// the other ranks return null. Throws std::exception with a message naming the problem for bad
// options, unknown cases, variants, missing GPU or memory.
nlohmann::json run(const RunOptions& o);

// Prints the human summary of a result.
void print_summary(const nlohmann::json& result);

}  // namespace nsb
