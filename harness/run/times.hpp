// Raw timings of one rank, gathered to rank 0 and combined into the slowest rank's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "timer.hpp"

namespace nsb {

// Every call of every section, their sums per step, and the step times.
struct RankTimes {
  std::map<int, std::vector<double>> per_call;
  std::map<int, std::vector<double>> per_step;
  std::vector<double> step;
};

// chunk: steps per step sample (a graph replay covers several).
inline RankTimes collect_times(const std::vector<Sample>& samples, int chunk) {
  RankTimes t;
  std::map<int, std::map<int, double>> sums;
  for (const Sample& s : samples) {
    if (s.section == kStepSection) {
      t.step.push_back(s.seconds / chunk);
      continue;
    }
    t.per_call[s.section].push_back(s.seconds);
    sums[s.section][s.step] += s.seconds;
  }
  for (auto& [section, by_step] : sums)
    for (auto& [step, sec] : by_step) t.per_step[section].push_back(sec);
  return t;
}

inline nlohmann::json times_json(const RankTimes& t) {
  nlohmann::json j = {{"step", t.step}, {"per_call", nlohmann::json::object()}, {"per_step", nlohmann::json::object()}};
  for (auto& [k, v] : t.per_call) j["per_call"][std::to_string(k)] = v;
  for (auto& [k, v] : t.per_step) j["per_step"][std::to_string(k)] = v;
  return j;
}

inline RankTimes times_from_json(const nlohmann::json& j) {
  RankTimes t;
  t.step = j["step"].get<std::vector<double>>();
  for (auto& [k, v] : j["per_call"].items()) t.per_call[std::stoi(k)] = v.get<std::vector<double>>();
  for (auto& [k, v] : j["per_step"].items()) t.per_step[std::stoi(k)] = v.get<std::vector<double>>();
  return t;
}

// A decomposed step is as slow as its slowest rank: element by element, the maximum over the ranks.
inline RankTimes slowest_rank(const std::vector<RankTimes>& ranks) {
  auto max_of = [](std::vector<double>& into, const std::vector<double>& v) {
    if (into.empty()) into = v;
    into.resize(std::min(into.size(), v.size()));
    for (std::size_t i = 0; i < into.size(); ++i) into[i] = std::max(into[i], v[i]);
  };
  RankTimes out;
  for (const RankTimes& r : ranks) {
    max_of(out.step, r.step);
    for (auto& [k, v] : r.per_call) max_of(out.per_call[k], v);
    for (auto& [k, v] : r.per_step) max_of(out.per_step[k], v);
  }
  return out;
}

}  // namespace nsb
