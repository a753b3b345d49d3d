// Host wall-clock time of the phases of a run, the timed steps and everything around them: the problem
// and its initial state on the host, device allocation and upload, warm-up, final checks, downloads,
// the result. A large run spends most of its wall time outside its timed steps (run.wall_seconds counts
// only those); these say where. Solver-generic: the run driver marks the phases, the solver knows none.
//
// One clock per rank: done(name) ends the phase that began at the previous mark (or at the clock's
// start), so the phases follow each other without gaps and their sum is the run's wall time from the
// start of the clock. A phase marked twice adds up. With progress lines on, a phase longer than
// kPhaseLineSeconds is printed on stderr as it ends (long runs say what they are doing; small runs stay quiet).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace nsb {

constexpr double kPhaseLineSeconds = 1.0;

class PhaseClock {
 public:
  explicit PhaseClock(bool progress_lines = false) : lines_(progress_lines), mark_(std::chrono::steady_clock::now()) {}

  // The phase since the last mark ends now.
  void done(const std::string& name) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - mark_).count();
    mark_ = now;
    bool found = false;
    for (auto& [phase, seconds] : phases_)
      if (phase == name) seconds += s, found = true;
    if (!found) phases_.emplace_back(name, s);
    if (lines_ && s > kPhaseLineSeconds) std::fprintf(stderr, "  phase %s: %.1f s\n", name.c_str(), s);
  }
  // Progress lines on or off from here (a rank other than 0 keeps quiet: rank 0 speaks for the run).
  void set_lines(bool on) { lines_ = on; }

  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }
  double total() const {
    double t = 0;
    for (const auto& p : phases_) t += p.second;
    return t;
  }
  // {name: seconds} (a JSON object's keys are sorted: the order is order_json's).
  nlohmann::json seconds_json() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, s] : phases_) j[name] = s;
    return j;
  }
  nlohmann::json order_json() const {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& p : phases_) j.push_back(p.first);
    return j;
  }

 private:
  bool lines_;
  std::chrono::steady_clock::time_point mark_;
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace nsb
