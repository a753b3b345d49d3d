"""Report section of the Poisson family's study (studies/poisson/poisson_time_to_tolerance.yaml): per method,
precision and size, the time to reduce the residual by the study's factor, the time of one fine-grid Jacobi
sweep measured in the same run (so the ratio is in sweep equivalents, a number that does not depend on the
GPU), the residual against wall time as a log plot, and the projection solver's whole step with each method.

The numbers come from the poisson solver's result: timing.step (one solve from a zero guess to the
tolerance), checks.poisson_iterations / poisson_relative_residual (the last timed solve),
checks.residual_history (one more solve, recorded: iteration, seconds, relative residual) and
checks.jacobi_sweep_seconds.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_plots as plots  # noqa: E402
from common import fmt  # noqa: E402
from report_page import verdict  # noqa: E402


def _grid(r):
    g = r["run"]["grid"]
    return f"{g['nx']}x{g['ny']}x{g['nz']}"


def _points(grid):
    nx, ny, nz = (int(x) for x in grid.split("x"))
    return nx * ny * nz


def _group(results, prefix):
    """The results of the groups whose name starts with prefix ('solve': solve_double and solve_float)."""
    return [r for r in results.values() if str(r.get("study", {}).get("group", "")).startswith(prefix)]


def solve_rows(results, prefix="solve"):
    """One row per solve run of the groups named prefix...: (grid, precision, method, tolerance, iterations,
    reached residual, seconds, sweep seconds, sweep equivalents, reached?, validation RMS error, verdict), sorted."""
    rows = []
    for r in _group(results, prefix):
        run, checks = r["run"], r.get("checks", {})
        tol = run.get("jacobi", {}).get("tolerance", 0)
        seconds = r["timing"]["step"]["median"]
        sweep = checks.get("jacobi_sweep_seconds")
        reached = checks.get("poisson_relative_residual")
        rows.append({"grid": _grid(r), "precision": run["precision"], "method": run.get("poisson_method", "?"),
                     "tolerance": tol, "iterations": checks.get("poisson_iterations"), "residual": reached,
                     "seconds": seconds, "sweep": sweep, "equivalents": seconds / sweep if sweep else None,
                     "reached": reached is not None and tol > 0 and reached <= tol,
                     "error": (checks.get("validation") or {}).get("rms_error"), "verdict": verdict(r),
                     "history": checks.get("residual_history")})
    return sorted(rows, key=lambda x: (x["precision"], _points(x["grid"]), x["method"]))


def residual_plot(out, rows, grid, precision):
    fig, ax = plots.figure(7.5, 4.2)
    drawn = 0
    for k, row in enumerate(r for r in rows if r["grid"] == grid and r["precision"] == precision):
        h = row["history"]
        if not h or not h.get("seconds"):  # a method that records no history (mg, fft): its end point, marked
            if row["residual"] is not None and row["seconds"] and row["residual"] > 0:
                ax.semilogy([row["seconds"]], [row["residual"]], plots.MARKERS[k % len(plots.MARKERS)], markersize=9,
                            color=plots.COLOURS[k % 10], label=f"{row['method']} (end point only: no history)")
                drawn += 1
            continue
        ax.semilogy(h["seconds"], h["relative_residual"], "-", marker=plots.MARKERS[k % len(plots.MARKERS)],
                    markevery=max(1, len(h["seconds"]) // 8), color=plots.COLOURS[k % 10], label=row["method"])
        drawn += 1
    name = f"poisson_residual_{grid}_{precision}.png"
    plots.finish(ax, "wall time of the solve, s (checks included)", "RMS residual / RMS right-hand side",
                 f"Residual against time, {grid}, {precision}, same right-hand side for every method")
    plots.save(fig, out, name)
    return name if drawn else None


def poisson_time_to_tolerance(s, study, results, paper, out, all_results):
    """Time to tolerance per method and size, in seconds and in fine-grid Jacobi-sweep equivalents, the
    residual against wall time, and the projection's whole step with each method."""
    rows = solve_rows(results)
    if not rows:
        s.p("No solve rows on this machine yet.")
    _solve_table(s, rows)
    s.p("Sweep equivalents = solve time / the time of one Jacobi sweep of the same grid measured in the same run "
        "(poisson/jacobi_sweep): the issue's targets are multigrid <= 100 and FFT <= 20 at 256^3 double. A method "
        "that did not reach the tolerance within its iteration cap shows the residual it reached instead.")
    for grid, precision in sorted({(x["grid"], x["precision"]) for x in rows}, key=lambda g: (g[1], _points(g[0]))):
        name = residual_plot(out, rows, grid, precision)
        if name:
            s.fig(name, f"Residual against wall time, {grid} {precision}")
    proj = _group(results, "projection")
    if proj:
        prow = sorted(proj, key=lambda r: (r["run"]["precision"], _points(_grid(r)), r["run"].get("poisson_method", "")))
        s.table(["grid", "precision", "method", "divergence tolerance", "ms/step", "last iterations", "RMS div", "check"],
                [[_grid(r), r["run"]["precision"], r["run"].get("poisson_method"), fmt(r["run"].get("jacobi", {}).get("tolerance")),
                  fmt(r["timing"]["step"]["median"] * 1e3), r.get("checks", {}).get("jacobi_last_iterations"),
                  fmt(r.get("checks", {}).get("divergence_rms")), verdict(r)] for r in prow])
    mg = solve_rows(results, "mg_settings") + solve_rows(results, "mg_omega")
    if mg:
        s.p("Multigrid's method options (`--poisson METHOD:OPTIONS`: preN/postN smoothing sweeps before/after the "
            "coarse correction, wNNN the red-black smoother's over-relaxation omega = NNN/100; default pre2_post2_w100) "
            "on the same problem: on a GPU their time in sweep equivalents, on a CPU (cpu_omp) their cycle counts, "
            "which are the GPU's (the same arithmetic).")
        _solve_table(s, mg)
    ghia_section(s, _group(results, "ghia"))


def _solve_table(s, rows):
    s.table(["grid", "precision", "method", "tolerance", "iterations", "residual reached", "solve s", "Jacobi sweep ms",
             "sweep equivalents", "reached", "RMS error vs exact", "check"],
            [[x["grid"], x["precision"], x["method"], fmt(x["tolerance"]), x["iterations"], fmt(x["residual"]),
              fmt(x["seconds"]), fmt(x["sweep"] * 1e3 if x["sweep"] else None), fmt(x["equivalents"]),
              "yes" if x["reached"] else "NO (iteration cap)", fmt(x["error"]), x["verdict"]] for x in rows])


def ghia_rows(results):
    """One row per cavity run of the ghia groups: Ghia's errors (checks.validation, in units of the lid speed)
    and the largest difference of its centre-line profiles (u on x = 1/2, w on z = 1/2, at Ghia's points)
    to those of the Jacobi run of the same Reynolds number, grid, precision and backend."""
    def key(r):
        run = r["run"]
        return (run.get("re"), _grid(r), run["precision"], run["backend"])

    def profile(r):
        v = r.get("checks", {}).get("validation") or {}
        return [p[2] for p in v.get("u_profile", []) + v.get("w_profile", [])]

    results = [r for r in results if "run" in r]  # runs skipped on this machine have none
    jacobi = {key(r): profile(r) for r in results if r["run"].get("poisson_method") == "jacobi"}
    rows = []
    for r in results:
        v, ref, mine = r.get("checks", {}).get("validation") or {}, jacobi.get(key(r)), profile(r)
        diff = max(abs(a - b) for a, b in zip(mine, ref)) if ref and mine and len(ref) == len(mine) else None
        rows.append({"re": r["run"].get("re"), "grid": _grid(r), "precision": r["run"]["precision"],
                     "backend": r["run"]["backend"], "method": r["run"].get("poisson_method", "?"),
                     "tolerance": r["run"].get("jacobi", {}).get("tolerance"), "steps": r["run"].get("timed_steps"),
                     "steady": (r["run"].get("stop_reason") or "").startswith("steady"),
                     "rms": v.get("rms_error"), "max": v.get("max_error"), "vs_jacobi": diff,
                     "div": r.get("checks", {}).get("divergence_rms"), "verdict": verdict(r)})
    return sorted(rows, key=lambda x: (x["re"] or 0, _points(x["grid"]), x["backend"], x["method"]))


def ghia_section(s, results):
    """The cavity with every method at a tight tolerance: Ghia's errors and the difference to Jacobi."""
    if not results:
        return
    rows = ghia_rows(results)
    s.table(["Re", "grid", "backend", "precision", "method", "tolerance", "steps", "steady", "Ghia RMS error",
             "Ghia max error", "max |profile - Jacobi's|", "RMS div", "check"],
            [[fmt(x["re"]), x["grid"], x["backend"], x["precision"], x["method"], fmt(x["tolerance"]), x["steps"],
              "yes" if x["steady"] else "NO", fmt(x["rms"]), fmt(x["max"]), fmt(x["vs_jacobi"]), fmt(x["div"]),
              x["verdict"]] for x in rows])
    s.p("The lid-driven cavity run to steady state with each Poisson method solving to the same tight tolerance. "
        "Ghia's errors (in units of the lid speed, at Ghia's centre-line points) are the grid's: every method "
        "should give the same ones, and its profiles should differ from Jacobi's by no more than the tolerance allows.")


BUILDERS = {"poisson_time_to_tolerance": poisson_time_to_tolerance}
