// The timed part of a run on one rank: warm-up, the optional CUDA-graph recording, the timed steps
// (with the steady-state monitor and progress lines), then the untimed final checks, the state and
// the profiling passes, each a phase of the run's clock (run/phases.hpp). Solver-generic: it drives the
// Solver interface only.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "device.hpp"
#include "run.hpp"
#include "run/phases.hpp"
#include "run/profile_passes.hpp"
#include "run/times.hpp"

namespace nsb {

template <class T>
struct TimedOutcome {
  RankTimes times;
  HostState<T> end_state;  // this rank's slab
  int timed_steps = 0;
  double wall_seconds = 0, final_time = 0, last_change = NAN;
  bool steady = false;
  std::string stop_reason = "fixed step count";
  nlohmann::json final_checks, profile, halo_description;
};

// snapshot: called untimed every o.output_every timed steps with the state (one-rank runs).
template <class T>
TimedOutcome<T> timed_steps(Solver<T>& solver, const RunOptions& o, Communicator& comm, bool gpu, int device,
                            const std::vector<std::string>& section_names, PhaseClock& phases,
                            const std::function<void(const HostState<T>&)>& snapshot = {}) {
  TimedOutcome<T> out;
  if (o.until_steady && !solver.monitors_steady_state())
    throw std::runtime_error("--until-steady: this solver has no steady-state monitor (its runs take a fixed --steps)");
  const bool root = comm.rank() == 0;
  const bool graph = o.launch == "graph";
  const int chunk = graph ? solver.steps_per_graph() : 1;  // steps per timed sample
  std::unique_ptr<SectionTimer> timer;
  if (gpu) timer = std::make_unique<GpuTimer>(solver.stream());
  else timer = std::make_unique<CpuTimer>();
  solver.set_timer(timer.get());
  out.halo_description = solver.halo_description();

  // Warm-up: module load, first touch, clocks; not recorded. Graph mode needs one plain step first, so
  // that the recorded steps are not the first (Adams-Bashforth's first step is Euler).
  timer->enabled = false;
  for (int s = 0; s < std::max(o.warmup, graph ? 1 : 0); ++s) solver.step();
  std::unique_ptr<void, void (*)(void*)> graph_exec(nullptr, device::graph_destroy);  // freed on any exit
  if (graph) {
    // steps_per_graph() steps bring every swapped pointer back to where it was, so one recording
    // replays for ever. Recording runs nothing: the step counters are wound back after it.
    device::capture_begin(solver.stream());
    for (int s = 0; s < chunk; ++s) solver.step();
    graph_exec.reset(device::capture_end(solver.stream()));
    solver.replayed(-chunk);
  }
  solver.sync();
  comm.barrier();  // every rank starts the timed steps together
  phases.done("warmup");
  timer->enabled = true;

  const auto wall0 = std::chrono::steady_clock::now();
  auto last_report = wall0;
  const int check_every = std::max(1, o.steady_check_every / chunk);
  for (int sample = 0; out.timed_steps < o.steps; ++sample) {
    if (graph) {
      timer->set_step(out.timed_steps);
      timer->begin(kStepSection);
      device::graph_launch(graph_exec.get(), solver.stream());
      timer->end(kStepSection);
      solver.replayed(chunk);
    } else {
      solver.step();
    }
    out.timed_steps += chunk;
    if (snapshot && o.output_every > 0 && out.timed_steps % o.output_every < chunk) {
      timer->enabled = false;  // writing files is not part of the scheme's cost
      snapshot(solver.save());
      timer->enabled = true;
    }
    if (o.until_steady && (sample + 1) % check_every == 0) {
      timer->enabled = false;  // the monitor is not part of the scheme's cost
      out.last_change = solver.steady_change();
      timer->enabled = true;
      if (std::isnan(out.last_change) || std::isinf(out.last_change)) {  // blew up: no use going on
        out.stop_reason = "stopped at step " + std::to_string(out.timed_steps) + ": the state is not finite";
        break;
      }
      if (out.last_change < o.steady_tol) {
        out.steady = true;
        out.stop_reason = "steady: change per unit time below --steady-tol";
        break;
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (root && o.progress && std::chrono::duration<double>(now - last_report).count() > 5) {
      last_report = now;
      const double el = std::chrono::duration<double>(now - wall0).count();
      std::fprintf(stderr, "  step %d/%d  t = %.4g  elapsed %.0f s, at most %.0f s left%s\n", out.timed_steps,
                   o.steps, solver.time(), el, el / out.timed_steps * (o.steps - out.timed_steps),
                   std::isnan(out.last_change) ? "" : ("  change " + std::to_string(out.last_change)).c_str());
    }
  }
  if (o.until_steady && !out.steady && std::isfinite(out.last_change)) out.stop_reason = "step cap reached before steady state (raise --steps)";
  solver.sync();
  comm.barrier();
  out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  out.times = collect_times(timer->samples(), chunk);
  timer->enabled = false;
  solver.set_timer(nullptr);
  phases.done("timed_steps");
  out.final_checks = solver.final_checks();
  phases.done("final_checks");
  out.final_time = solver.time();
  out.end_state = solver.save();
  phases.done("save");
  // The profiling passes come after everything measured or checked above (see profile.hpp).
  if (o.profile) {
    out.profile = profile_passes(solver, o.profile_steps, device, section_names);
    phases.done("profile");
  }
  return out;
}

}  // namespace nsb
