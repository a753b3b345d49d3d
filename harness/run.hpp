// A run: case + grid + precision + recipe + steps -> timings, checks, metadata, one JSON result.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "projection/cases.hpp"
#include "projection/solver.hpp"

namespace nsb {

struct RunOptions {
  CaseOptions case_options;
  std::string precision = "double";  // "float" | "double"
  std::string backend = "cpu_serial";  // cpu_serial | cpu_omp | cuda
  std::string recipe;                  // empty: the backend's default recipe
  std::vector<std::string> stage_overrides;
  SolverOptions solver;
  int steps = 100;            // timed steps (a fixed count), or the cap with until_steady
  int warmup = 5;             // untimed steps first (excluded from statistics)
  bool until_steady = false;  // run until the velocity change per unit time falls below steady_tol
  double steady_tol = 1e-5;   // RMS(u^{n+1} - u^n) / (dt U) threshold
  int steady_check_every = 50;
  bool check = true;          // compare with the CPU reference after the run (GPU backends)
  int ranks = 1;              // threads driver: z-slabs, one host thread (and GPU) each
  std::string halo;           // halo variant NAME[:TUNING] for several ranks ("" = the driver's default)
  std::string launch = "stream";  // "stream": every kernel launched each step; "graph": CUDA-graph replay
  std::string json_path;      // write the result here ("" = don't)
  std::string command_line;
  bool progress = true;       // progress lines on stderr for long runs
  bool profile = false;       // CUPTI trace and counter passes after the timed steps (profile.hpp)
  int profile_steps = 5;      // steps of the trace pass (the counter pass takes one)
  bool nvtx = true;           // NVTX ranges per step, stage call and halo exchange (off: to show their cost)
};

// Runs and returns the JSON result (also written to json_path); under mpirun, rank 0 returns it and
// the other ranks return null. Throws std::exception with a
// message naming the problem for bad options, unknown variants, missing GPU or memory.
nlohmann::json run(const RunOptions& o);

// Prints the human summary of a result.
void print_summary(const nlohmann::json& result);

// Machine and build metadata for results (also used by the micro-benchmarks).
nlohmann::json machine_metadata(int threads_used);
nlohmann::json build_metadata();
std::string now_utc();  // "2026-11-22T04:30:00Z", for result files
// Writes a result file (indented JSON); throws naming the path when it cannot.
void write_json(const std::string& path, const nlohmann::json& j);

}  // namespace nsb
