// The human summary of a run result (what `nsbench run` prints), from the result JSON alone.
#include <cstdio>
#include <string>

#include "placement.hpp"
#include "run.hpp"

namespace nsb {

using json = nlohmann::json;

namespace {

void print_profile(const json& p) {
  for (const char* pass : {"trace", "counters"})
    if (!p[pass]["performed"].get<bool>())
      std::printf("  profile: %s pass not made: %s\n", pass, p[pass]["reason"].get<std::string>().c_str());
  std::printf("  profile (event time from the timing pass, kernel time from the CUPTI trace, DRAM bytes from the counters):\n");
  std::printf("  %-12s %11s %11s %7s %11s %11s %8s %7s %6s\n", "stage", "event us", "kernels us", "gap", "model MB",
              "DRAM MB", "DRAM/mod", "L2 hit", "occup");
  for (auto& [name, s] : p["stages"].items()) {
    auto num = [&](const char* key, double scale, const char* fmt) {
      if (!s.contains(key)) return std::string("-");
      char b[32];
      std::snprintf(b, sizeof b, fmt, s[key].get<double>() * scale);
      return std::string(b);
    };
    std::printf("  %-12s %11s %11s %7s %11s %11s %8s %7s %6s\n", name.c_str(),
                num("event_median_s", 1e6, "%.2f").c_str(), num("kernel_median_s", 1e6, "%.2f").c_str(),
                num("gap_fraction", 100, "%.1f%%").c_str(), num("model_bytes", 1e-6, "%.2f").c_str(),
                num("dram_bytes", 1e-6, "%.2f").c_str(), num("dram_over_model", 1, "%.3f").c_str(),
                num("lts__t_sector_hit_rate.pct", 1, "%.1f%%").c_str(),
                num("sm__warps_active.avg.pct_of_peak_sustained_active", 1, "%.0f%%").c_str());
  }
  std::string in_l2;
  for (auto& [name, s] : p["stages"].items())
    if (s.value("stayed_in_l2", false)) in_l2 += " " + name;
  if (!in_l2.empty())
    std::printf("  profile: the data of%s stayed in the L2 (DRAM bytes under a tenth of the model: the grid fits the "
                "cache; a larger grid measures the model)\n", in_l2.c_str());
}

// The case, the method and the step count.
void print_header(const json& r) {
  const json& run = r["run"];
  const json& g = run["grid"];
  std::printf("nsbench run: case %s, grid %dx%dx%d, %s, backend %s (%s launches), recipe %s, threads %d\n",
              run["case"].get<std::string>().c_str(), g["nx"].get<int>(), g["ny"].get<int>(), g["nz"].get<int>(),
              run["precision"].get<std::string>().c_str(), run["backend"].get<std::string>().c_str(),
              run["launch"].get<std::string>().c_str(), run["recipe"].get<std::string>().c_str(),
              run["threads"].get<int>());
  std::printf("  ");
  for (const char* key : {"re", "nu", "dt", "gamma", "c", "rho"})
    if (run.contains(key)) std::printf("%s %.4g, ", key, run[key].get<double>());
  std::printf("%s", run["scheme"].get<std::string>().c_str());
  if (r["checks"].contains("jacobi_last_iterations"))
    std::printf(", Jacobi %d sweeps/step%s", r["checks"]["jacobi_last_iterations"].get<int>(),
                run["jacobi"]["tolerance"].get<double>() > 0 ? " (to tolerance)" : "");
  std::printf("; %d timed steps after %d warm-up (%s), t = %.4g\n", run["timed_steps"].get<int>(),
              run["warmup_steps"].get<int>(), run["stop_reason"].get<std::string>().c_str(),
              run["final_time"].get<double>());
}

// The step time and each stage's time per call against the copy bandwidth.
void print_timing(const json& r) {
  const json& t = r["timing"];
  std::printf("  time per step: median %.4g ms (IQR %.3g ms, min %.4g ms, %zu samples), %.3g GFLOPS\n",
              t["step"]["median"].get<double>() * 1e3, t["step"]["iqr"].get<double>() * 1e3,
              t["step"]["min"].get<double>() * 1e3, t["step"]["count"].get<std::size_t>(), t["gflops"].get<double>());
  std::printf("  %-12s %-48s %12s %8s %10s %9s\n", "stage", "variant:tuning", "median/call", "calls", "GB/s",
              "of copy");
  for (const json& stage : t["stage_order"]) {
    const std::string name = stage.get<std::string>();
    const json& s = t["stages"][name];
    if (!s.contains("per_call")) continue;
    const std::string vt = s["variant"].get<std::string>() + ":" + s["tuning"].get<std::string>();
    const json& a = s["achieved"];
    char frac[16] = "-";
    if (a.contains("fraction_of_copy_bandwidth"))
      std::snprintf(frac, sizeof frac, "%.1f%%", 100 * a["fraction_of_copy_bandwidth"].get<double>());
    std::printf("  %-12s %-48s %9.4g us %8.1f %10.1f %9s\n", name.c_str(), vt.c_str(),
                s["per_call"]["median"].get<double>() * 1e6, s["calls_per_step"].get<double>(),
                a["bytes_per_second"].get<double>() * 1e-9, frac);
  }
}

// A decomposed run's slabs, where each runs, and its halo exchange.
void print_decomposition(const json& d, const json& t) {
  const std::string axis = d.value("axis", "z");  // each slab's planes (z) or rows (y)
  const char* owned = axis == "y" ? "ny" : "nz";
  const int hosts = d.value("hosts", 1);
  const std::string on_hosts = hosts > 1 ? ", " + std::to_string(hosts) + " hosts" : "";
  std::printf("  %d ranks (%s driver%s%s), %s-slabs:", d["ranks"].get<int>(), d["driver"].get<std::string>().c_str(),
              on_hosts.c_str(), d["oversubscribed"].get<bool>() ? ", OVERSUBSCRIBED: ranks share a GPU" : "",
              axis.c_str());
  std::vector<RankPlacement> placements;  // device indices repeat per host and under per-rank binding
  for (const json& s : d["slabs"])
    placements.push_back({s.value("host", ""), s["device"].get<int>(), s.value("gpu", "")});
  const std::vector<std::string> gpus = gpu_labels(placements);
  for (std::size_t r = 0; r < gpus.size(); ++r)
    if (!gpus[r].empty()) std::printf(" %d@%s", d["slabs"][r][owned].get<int>(), gpus[r].c_str());
    else std::printf(" %d", d["slabs"][r][owned].get<int>());
  if (d.contains("initial_state")) std::printf("; initial state %s", d["initial_state"].get<std::string>().c_str());
  if (!d.contains("halo")) std::printf("\n  no halo variant: the solver exchanges between its ranks itself\n");
  else std::printf("\n  halo %s:%s, %.1f%% of the step (%s)\n", d["halo"]["variant"].get<std::string>().c_str(),
              d["halo"]["tuning"].get<std::string>().c_str(), 100 * t["halo"]["share_of_step"].get<double>(),
              t["halo"]["timing"].get<std::string>().c_str());
  for (auto& [h, x] : t["halo"].items()) {
    if (!x.is_object()) continue;  // the totals beside the sections
    std::printf("  %-16s median/call %9.4g us %8.1f calls %10.1f GB/s (%.3g MB sent per call by the busiest rank)\n", h.c_str(),
                x["per_call"]["median"].get<double>() * 1e6, x["calls_per_step"].get<double>(),
                x["bytes_per_second"].get<double>() * 1e-9, x["bytes_sent_per_call"].get<double>() * 1e-6);
  }
}

// The physics validation and the solver's own convergence checks.
void print_validation(const json& r) {
  const json& v = r["checks"]["validation"];
  if (v.contains("mass_imbalance"))  // urban, cube: balances and invariants, no solution to compare with
    std::printf("  validation (%s): mass imbalance %.3g (outflow vs inflow flux), divergence over the fluid max %.3g "
                "RMS %.3g, wall-normal speed max %.3g, speed inside buildings max %.3g\n",
                v["kind"].get<std::string>().c_str(), v["mass_imbalance"].get<double>(),
                v["divergence_fluid_max"].get<double>(), v["divergence_fluid_rms"].get<double>(),
                v["wall_normal_max"].get<double>(), v["solid_interior_max"].get<double>());
  else if (v["kind"] != "none")
    std::printf("  validation (%s): max error %.4g, RMS error %.4g%s\n",
                v["kind"].get<std::string>().c_str(), v["max_error"].get<double>(), v["rms_error"].get<double>(),
                v["kind"] == "ghia" && !v["steady_state"].get<bool>() ? "; NOT at steady state (use --until-steady)"
                                                                        : "");
  else
    std::printf("  validation: none (%s)\n", v["detail"].get<std::string>().c_str());
  if (v["kind"] == "taylor_green")
    std::printf("  kinetic energy E/E0 = %.6g, exact exp(-4 nu t) = %.6g\n", v["energy_ratio"].get<double>(),
                v["energy_ratio_exact"].get<double>());
  if (r["checks"].value("poisson_converged", true) == false)
    std::printf("  Poisson solve not converged: relative residual %.3g above the tolerance %g after %d iterations "
                "(the cap, --iterations)\n", r["checks"]["poisson_last_relative_residual"].get<double>(),
                r["checks"]["poisson_tolerance"].get<double>(), r["checks"]["poisson_last_iterations"].get<int>());
  else if (r["checks"].contains("poisson_converged"))
    std::printf("  Poisson solve converged: relative residual %.3g within the tolerance %g (%d iterations)\n",
                r["checks"]["poisson_last_relative_residual"].get<double>(), r["checks"]["poisson_tolerance"].get<double>(),
                r["checks"]["poisson_last_iterations"].get<int>());
  if (r["checks"].contains("divergence_rms"))
    std::printf("  RMS divergence after projection: %.3g\n", r["checks"]["divergence_rms"].get<double>());
}

// Rank 0's wall clock by phase (results made before the phases were timed have none).
void print_phases(const json& run) {
  double total = 0;
  std::printf("  wall clock by phase (s):");
  for (const json& name : run["phase_order"]) {
    const double sec = run["phase_seconds"][name.get<std::string>()].get<double>();
    total += sec;
    std::printf(" %s %.3g,", name.get<std::string>().c_str(), sec);
  }
  std::printf(" in all %.3g\n", total);
}

// The reference check's line; a down-scaled twin's check says so first: its numbers are the twin's, not the run's
// grid's.
void print_reference(const json& ref) {
  if (ref["performed"].get<bool>()) {
    double worst = 0;
    for (auto& [n, f] : ref["fields"].items()) worst = std::max(worst, f["max_rel_diff"].get<double>());
    const std::string twin = ref.contains("down_scaled_grid")
                                 ? "down-scaled twin " + ref["down_scaled_grid"].get<std::string>() + ": " : "";
    std::printf("  reference check: %s (%sworst max relative difference %.3g, tolerance %.1g, %d steps)\n",
                ref["pass"].get<bool>() ? "PASS" : "FAIL", twin.c_str(), worst, ref["tolerance_max_rel"].get<double>(),
                ref["steps"].get<int>());
  } else if (ref.contains("down_scaled")) {  // a twin was called for and none could be made: never silent
    std::printf("  reference check: not performed (%s)\n", ref["reason"].get<std::string>().c_str());
  }
}

}  // namespace

void print_summary(const json& r) {
  print_header(r);
  print_timing(r);
  if (r["run"]["decomposition"]["ranks"].get<int>() > 1) print_decomposition(r["run"]["decomposition"], r["timing"]);
  print_validation(r);
  if (r.contains("profile")) print_profile(r["profile"]);
  if (r.contains("output"))
    for (const json& f : r["output"]) std::printf("  wrote %s\n", f.get<std::string>().c_str());
  if (r["run"].contains("phase_order")) print_phases(r["run"]);
  if (r["checks"].contains("bounded") && r["checks"]["bounded"].value("performed", false))
    std::printf("  bounded: max |velocity| %.3g, bound %.3g (%g x the velocity scale %g)\n",
                r["checks"]["bounded"]["max_abs_velocity"].get<double>(), r["checks"]["bounded"]["bound"].get<double>(),
                r["checks"]["bounded"]["factor"].get<double>(), r["checks"]["bounded"]["velocity_scale"].get<double>());
  if (r.value("status", "") == "failed") std::printf("  RUN FAILED: %s\n", r["failure"].get<std::string>().c_str());
  print_reference(r["checks"]["reference"]);
}

}  // namespace nsb
