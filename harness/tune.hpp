// `nsbench tune`: the fastest verified recipe of a solver for this machine, case, grid and precision.
//
// The search, in three phases within a time budget:
//  1. Stages. Every variant x tuning of each of the solver's stages, on the backend, is timed on its own at the
//     run's grid and precision (the `nsbench stages` machinery, time_stage_call) and checked against the CPU
//     reference on verify's odd grids (verify_candidate, as `nsbench verify` checks it). A tuning that cannot
//     launch at the grid (too much shared memory, a block too large: the launch names why) is skipped with that
//     reason; one that fails its check keeps its verdict and is never chosen. Each stage keeps its top_k.
//  2. Whole steps. The fastest passing choice of every stage is timed as whole steps (nsb::run, in this process)
//     with every combination of the solver-level options: the launch mode (stream, and graph on a GPU with one
//     rank and a fixed iteration count), the halo variant (several ranks), the Poisson method (only with a
//     tolerance, --jacobi-tol: at a fixed count the methods do different work, so their times do not compare).
//     Then a descent over the stages a step calls, the most time a step first: each stage's runners-up (top_k)
//     replace its choice one at a time, and a swap is kept where the step is faster beyond the noise (the larger
//     of the two IQRs).
//  3. Confirmation. The chosen recipe's whole step (with the reference check of a run) against every named
//     recipe of the solver and backend, same grid, steps and process. A named recipe faster beyond the noise
//     becomes the tuned one (its configuration): the tuned recipe is never slower than a named one.
// It writes recipe.json, candidates.json and candidates.md into the cache (tune_cache.hpp).
#pragma once

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "solver.hpp"

namespace nsb {

struct TuneOptions {
  CaseOptions case_options;
  std::string solver_name;  // where the case's name alone does not pick it
  std::string precision = "float";
  std::string backend = "cuda";
  int ranks = 1;
  double budget_s = 170;     // wall seconds the three phases aim at (the confirmation always runs)
  std::string cache_dir;     // "" : default_tune_cache()
  int samples = 10;          // timed calls per stage candidate
  int stage_warmup = 2;      // untimed calls per stage candidate
  int steps = 20, warmup = 3;  // timed and untimed whole steps per recipe timed
  int top_k = 3;             // candidates per stage the whole-step descent tries
  SolverOptions solver;      // iteration count or tolerance, threads: as the runs will use them
  bool check = true;         // the reference check of the chosen recipe's run
  std::string command_line;
};

// One timed candidate: a stage's variant:tuning, or a whole-step configuration.
struct TuneCandidate {
  std::string phase;    // "stage", "step" or "named"
  std::string what;     // the stage's name, or "step"
  std::string label;    // "jacobi_shared_zloop:bx16_by16_sz2", a configuration's summary, a recipe's name
  std::string verdict;  // "pass", "fail" (its check), "skipped" (not timed: cannot launch, budget), "error"
  std::string reason;   // why, where not "pass"
  double median_s = NAN, iqr_s = NAN;
  double max_rel_diff = NAN, tolerance = NAN;  // a stage's check
  nlohmann::json config = nlohmann::json::object();  // a step's: stages, poisson, halo, launch
};

// The passing candidates (verdict "pass" and a finite median), fastest first, at most k of them: indices
// into c. A candidate that failed its check, was skipped or errs is never among them.
std::vector<std::size_t> ranked_passing(const std::vector<TuneCandidate>& c, std::size_t k);

// Whether a is faster than b beyond the noise: b's median exceeds a's by more than the larger of their IQRs.
bool faster_beyond_noise(const TuneCandidate& a, const TuneCandidate& b);

// Runs the search and writes its files; returns the outcome in the form of a result file (schema nsbench.tune/1:
// candidates.json's fields and recipe_file, table_file, recipe, tuned, checks; `tune --json` adds machine and build).
// Throws std::runtime_error naming the problem for bad options (unknown case, backend, grid).
nlohmann::json tune(const TuneOptions& o);

}  // namespace nsb
