"""Report sections of Liu, Wu, Kao & Sheu 2019 (the IMLE solver): Fig. 6 (each stage on one CPU thread vs
all threads) and Fig. 7 (each stage's speedup over one CPU thread, one GPU), from `nsbench stages` results
(CPU rows: --backend cpu_serial / cpu_omp). The paper prints no numbers for either figure; its claims are
in studies/liu2019/paper/fig6.csv and fig7.csv and stand beside the measured numbers.

A stage's time: MLS is one call (every cell, u, v and w); CC-CCD is reported as the three Dirichlet axes
summed (one velocity component's Laplacian, the diffusion step does three) and the three Neumann axes
summed (the pressure gradient of the correction).

Fig. 8 (and Fig. 7's 1-2 GPU columns from the whole solver): `nsbench run --solver imle` results on one and two
GPUs (two z-slabs); 3 and 4 GPUs are modelled through the two measured points, t(P) = a + b / P, and labelled."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import report_plots as plots  # noqa: E402
from common import fmt, variant_name  # noqa: E402

PAPER_KERNEL = {"ccd": "line_thread_1d", "mls": "two_phase_global"}  # the paper's GPU kernels (Secs. 3.2, 3.3)
PARTS = [("CC-CCD u (x+y+z, Dirichlet)", "ccd", ["x_dirichlet", "y_dirichlet", "z_dirichlet"]),
         ("CC-CCD p (x+y+z, Neumann)", "ccd", ["x_neumann", "y_neumann", "z_neumann"]),
         ("MLS", "mls", [""])]
PAPER_SUBROUTINE = {"ccd": "CC-CCD", "mls": "MLS"}


def full_form(r):
    return (r.get("study") or {}).get("mode") == "full"


def by_form(results):
    """The results, the quick form first, then the full form (more samples and steps), each oldest first: where
    two results time the same thing, the later one in this order is the one to show."""
    return sorted(results.values(), key=lambda r: (full_form(r), r.get("timestamp", "")))


def imle_rows(results):
    """Every timed imle row, with its result's grid, backend, threads and GPU record; a grid and backend timed in
    the full form keep only the full form's rows."""
    def grid_of(r):
        return f"{r['grid']['nx']}x{r['grid']['ny']}x{r['grid']['nz']}"
    stages = [r for r in results.values() if common.is_schema(r, "stages")]
    in_full = {(grid_of(r), r.get("backend", "cuda")) for r in stages if full_form(r)}
    out = []
    for r in stages:
        if not full_form(r) and (grid_of(r), r.get("backend", "cuda")) in in_full:
            continue
        g = r["grid"]
        for row in r.get("rows", []):
            if "median_s" in row and row.get("solver") == "imle":
                out.append(dict(row, _grid=f"{g['nx']}x{g['ny']}x{g['nz']}", _backend=r.get("backend", "cuda"),
                                _threads=r.get("threads"), _gpu=(r.get("machine") or {}).get("gpu") or {},
                                _precision=r.get("precision")))
    return out


def best_by_variant(rows, stage, workloads):
    """{variant name: (seconds, {workload: best row})}: each workload's fastest tuning, summed over the workloads;
    variants missing a workload are left out."""
    best = {}
    for row in rows:
        if row["stage"] != stage or row.get("scheme", "") not in workloads:
            continue
        per = best.setdefault(variant_name(row["variant"]), {})
        w = row.get("scheme", "")
        if w not in per or row["median_s"] < per[w]["median_s"]:
            per[w] = row
    return {v: (sum(r["median_s"] for r in per.values()), per) for v, per in best.items() if len(per) == len(workloads)}


def cpu_seconds(rows, grid, backend, stage, workloads):
    sel = [r for r in rows if r["_grid"] == grid and r["_backend"] == backend]
    return best_by_variant(sel, stage, workloads).get(backend, (None, None))[0]


def claim(paper, subroutine, key="subroutine"):
    return next((p.get("claim", "") for p in paper if p.get(key) == subroutine), "")


def liu_cpu_threads(s, study, results, paper, out, all_results):
    rows = imle_rows(results)
    grids = sorted({r["_grid"] for r in rows if r["_backend"] != "cuda"}, key=lambda g: int(g.split("x")[0]))
    threads = max((r["_threads"] or 0 for r in rows if r["_backend"] == "cpu_omp"), default=0)
    table, bars = [], {}
    for grid in grids:
        for label, stage, workloads in PARTS:
            one = cpu_seconds(rows, grid, "cpu_serial", stage, workloads)
            many = cpu_seconds(rows, grid, "cpu_omp", stage, workloads)
            speedup = one / many if one and many else None
            table.append([grid, label, fmt(one * 1e3 if one else None), fmt(many * 1e3 if many else None),
                          fmt(speedup), threads or "-", claim(paper, PAPER_SUBROUTINE[stage])])
            if speedup:
                bars.setdefault(label, []).append((grid, speedup))
    s.table(["grid (cells)", "stage", "1 thread ms", f"{threads or 'all'} threads ms", "speedup", "ideal",
             "paper (12 threads, text only)"], table)
    s.p(f"Paper, all stages: {claim(paper, 'all')}. CG is the Poisson family's and is not in this study yet.")
    if bars:
        fig, ax = plots.figure(6.5, 3.2)
        labels = list(bars)
        for k, label in enumerate(labels):
            ax.bar([i + 0.25 * (k - 1) for i in range(len(bars[label]))], [v for _, v in bars[label]], 0.25, label=label)
        ax.set_xticks(range(len(grids)), grids)
        if threads:
            ax.axhline(threads, color="k", lw=0.8, ls="--", label=f"ideal ({threads} threads)")
        plots.finish(ax, "grid (cells)", "speedup over 1 thread", "Fig. 6 here: CPU threads per IMLE stage", log_x=False)
        plots.save(fig, out, "liu2019_fig6.png")
        s.fig("liu2019_fig6.png", "Speedup of all OpenMP threads over one thread, per stage (double precision)")


def fp64_peak(gpu):
    return common.peak_flops(gpu).get("double")


# The solver runs of Fig. 7's GPU columns: (ranks, halo variant).
SOLVER_GPUS = [(1, ""), (2, "host_staged_async")]
MODEL_NOTE = ("3 and 4 GPUs are modelled, not measured: t(P) = a + b / P through the measured 1- and 2-GPU times "
              "(a = 2 t2 - t1 does not divide over GPUs: gathers, host reductions, halos). Where 2 GPUs are slower "
              "than 1 (b = 2 (t1 - t2) < 0) the fit would extrapolate that slowdown, so it is not used: the cell says so.")


def modelled(t1, t2, p):
    """The time on p GPUs of the line a + b / p through (1, t1) and (2, t2); None without both."""
    if not t1 or not t2:
        return None
    return max((2 * t2 - t1) + 2 * (t1 - t2) / p, 1e-30)


def modelled_cell(t1, t2, p, show):
    """A 3- or 4-GPU cell: show(modelled time) marked as modelled, or why there is no model (b < 0: 2 GPUs slower)."""
    if t1 and t2 and t2 >= t1:
        return f"not modelled: b < 0 (2 GPUs {fmt(t2 / t1)}x the 1-GPU time)"
    text = show(modelled(t1, t2, p))
    return text if text == "-" else f"{text} (modelled)"


def solver_stage_seconds(run, stage):
    """A PARTS row's seconds inside a solver run: MLS a step, CC-CCD three of its twelve calls a step."""
    if not run:
        return None
    t = run[1].get(stage)
    return t * 3 / 12 if t and stage == "ccd" else t


def liu_stage_speedup(s, study, results, paper, out, all_results):
    rows = imle_rows(results)
    runs = imle_runs(results)
    chosen_kernels = sorted({poisson_choice(r) for r in results.values()
                             if common.is_schema(r, "run") and r.get("run", {}).get("solver") == "imle"} - {""})
    cpu_grids = sorted({r["_grid"] for r in rows if r["_backend"] != "cuda"})
    table = []
    for grid in cpu_grids:
        gpu_rows = [r for r in rows if r["_grid"] == grid and r["_backend"] == "cuda"]
        for label, stage, workloads in PARTS:
            one = cpu_seconds(rows, grid, "cpu_serial", stage, workloads)
            many = cpu_seconds(rows, grid, "cpu_omp", stage, workloads)
            gpu = best_by_variant(gpu_rows, stage, workloads)
            paper_t = gpu.get(PAPER_KERNEL[stage], (None,))[0]
            best_v = min(gpu, key=lambda v: gpu[v][0]) if gpu else None

            def over_one(t):
                return fmt(one / t) if one and t else "-"
            solver = [solver_stage_seconds(runs.get((grid, "cuda", "paper", p, halo)), stage) for p, halo in SOLVER_GPUS]
            table.append([grid, label, fmt(one * 1e3 if one else None), over_one(many),
                          over_one(paper_t), f"{over_one(gpu[best_v][0])} ({best_v})" if best_v else "-",
                          *[over_one(t) for t in solver], *[modelled_cell(*solver, p, over_one) for p in (3, 4)]])
        cpu = [run_of(runs, grid, b) for b in ("cpu_serial", "cpu_omp")]
        if cpu[0]:  # CG: the solver's pressure section on one thread, all threads, 1-2 GPUs
            cg_one = cpu[0][1].get("pressure")

            def over_cg(t):
                return fmt(cg_one / t) if cg_one and t else "-"
            cg = [solver_stage_seconds(runs.get((grid, "cuda", "paper", p, halo)), "pressure") for p, halo in SOLVER_GPUS]
            table.append([grid, "CG (100 iterations, in the solver)", fmt(cg_one * 1e3 if cg_one else None),
                          over_cg(cpu[1][1].get("pressure")) if cpu[1] else "-", "-", "-",
                          *[over_cg(t) for t in cg], *[modelled_cell(*cg, p, over_cg) for p in (3, 4)]])
            for choice in chosen_kernels:  # the same CG with other Poisson kernels (--stage poisson/...), labelled
                alt = imle_runs(results, choice)
                t = [solver_stage_seconds(alt.get((grid, "cuda", "paper", p, halo)), "pressure") for p, halo in SOLVER_GPUS]
                if any(t):
                    table.append([grid, f"CG (100 iterations, in the solver) with {choice}", "-", "-", "-", "-",
                                  *[over_cg(x) for x in t], "-", "-"])
    s.table(["grid (cells)", "stage", "1 thread ms", "all threads", "1 GPU, paper kernel", "1 GPU, fastest variant",
             "1 GPU in the solver", "2 GPUs in the solver", "3 GPUs (modelled)", "4 GPUs (modelled)"], table)
    s.p("In the solver: the cavity run with the paper recipe (100 CG iterations a step), each stage's time a call "
        "inside the step (CC-CCD: the mean of its 12 calls, 3 a row; on 2 GPUs its z calls gather the other rank's "
        "planes, by peer copies where the GPUs reach each other, else through the host: each result's "
        "run.decomposition.halo.details says which); 2 GPUs: two z-slabs, halo/host_staged_async. A CG row \"with "
        "poisson/...\" is a run of the same solver whose CG ran those Poisson kernels (--stage; separate_cublas: "
        "every iteration's dot products by cuBLAS, the paper's), over the same one-thread CG. " + MODEL_NOTE)
    s.p("Paper (text only): " + "; ".join(f"{p['subroutine']} {p['config']}: {p['claim']}" for p in paper))
    # The targets: each stage's best variant at the largest GPU grid, against the copy bandwidth (CC-CCD) and
    # the FP64 peak (MLS: 6500 flops against 72 bytes a cell, arithmetic-bound on any GPU).
    gpu_rows = [r for r in rows if r["_backend"] == "cuda"]
    if not gpu_rows:
        return
    big = max({r["_grid"] for r in gpu_rows}, key=lambda g: int(g.split("x")[0]))
    target = []
    for r in sorted((r for r in gpu_rows if r["_grid"] == big), key=lambda r: (r["stage"], r.get("scheme", ""), r["median_s"])):
        key = (r["stage"], r.get("scheme", ""), variant_name(r["variant"]))
        if any(t[0] == key for t in target):
            continue  # the best tuning only
        peak = fp64_peak(r["_gpu"]) if r.get("_precision") == "double" else None
        target.append((key, [r["stage"], r.get("scheme", "") or "-", variant_name(r["variant"]), r["tuning"],
                             fmt(r["median_s"] * 1e3), fmt(r["bytes_per_second"] * 1e-9),
                             fmt(100 * r["fraction_of_copy_bandwidth"]) if r.get("fraction_of_copy_bandwidth") else "-",
                             fmt(r["flops_per_second"] * 1e-9),
                             fmt(100 * r["flops_per_second"] / peak) if peak else "-"]))
    s.p(f"Targets at {big} (issue 22: CC-CCD and MLS at >= 70% of the copy bandwidth by their byte models, or, where "
        "a stage is arithmetic-bound, its fraction of the FP64 peak): each variant's best tuning.")
    s.table(["stage", "workload", "variant", "tuning", "ms", "GB/s (model)", "% of copy", "GFLOP/s", "% of FP64 peak"],
            [t[1] for t in target])


def poisson_choice(r):
    """A run's --stage poisson/... choices, "stage=variant" joined by ", " ("" for the method's defaults)."""
    kernels = (r.get("run") or {}).get("poisson_kernels") or {}
    return ", ".join(f"{k}={v}" for k, v in sorted(kernels.items()))


def imle_results(results, poisson=""):
    """{(grid, backend, recipe, ranks, halo variant name or ""): result} of the imle run results whose pressure solve
    ran the Poisson kernels `poisson` (poisson_choice; "": the defaults, the figures' runs); the full form's, else
    the newest, run of a key wins."""
    out = {}
    for r in by_form(results):
        if not common.is_schema(r, "run") or r.get("run", {}).get("solver") != "imle" or poisson_choice(r) != poisson:
            continue
        g = r["run"]["grid"]
        d = r["run"].get("decomposition") or {}
        ranks = int(d.get("ranks", 1))
        halo = variant_name(d["halo"]["variant"]) if ranks > 1 and d.get("halo") else ""
        out[(f"{g['nx']}x{g['ny']}x{g['nz']}", r["run"]["backend"], r["run"]["recipe"], ranks, halo)] = r
    return out


def imle_runs(results, poisson=""):
    """{key of imle_results: (step median seconds, {section: per-step median seconds})}."""
    out = {}
    for key, r in imle_results(results, poisson).items():
        t = r["timing"]
        timed = {**t.get("stages", {}), **t.get("sections", {}), **(t.get("halo") or {})}  # halo: the exchange's own timer
        parts = {k: v["per_step"]["median"] for k, v in timed.items() if isinstance(v, dict) and "per_step" in v}
        out[key] = (t["step"]["median"], parts)
    return out


def run_of(runs, grid, backend):
    """The one-rank run of a grid on a backend, whatever its recipe's name."""
    return next((v for k, v in runs.items() if k[0] == grid and k[1] == backend and k[3] == 1), None)


def cpu_run(runs, grid):
    """The all-threads CPU run of a grid."""
    return run_of(runs, grid, "cpu_omp")


def liu_solver_speedup(s, study, results, paper, out, all_results):
    runs, found = imle_runs(results), imle_results(results)
    cpu_all = {k[0]: r for k, r in found.items() if k[1] == "cpu_omp" and k[3] == 1}
    cpu_one = {k[0]: r for k, r in found.items() if k[1] == "cpu_serial" and k[3] == 1}
    cores = next((r["run"]["threads"] for r in cpu_all.values()), None)
    table = []
    for grid in sorted({k[0] for k in runs}, key=lambda g: int(g.split("x")[0])):
        nc = grid.split("x")[0]
        claim_1 = next((p["speedup_vs_12thread_cpu"] for p in paper if p.get("nc") == nc and p.get("gpus") == "1"), "-")
        for recipe in ("paper", "fused"):
            gpu = runs.get((grid, "cuda", recipe, 1, ""))
            if not gpu:
                continue
            share = (gpu[1].get("mls", 0) + gpu[1].get("pressure", 0)) / gpu[0] if gpu[0] else None
            table.append([grid, recipe, *common.speedup_cells(found[(grid, "cuda", recipe, 1, "")], cpu_one.get(grid),
                                                              cpu_all.get(grid)),
                          claim_1, fmt(100 * share) if share else "-"])
    s.p("One GPU against the CPU reference on one core (cpu_serial, the group cpu_one) and on all threads (cpu_omp, "
        "the paper's baseline: its 12 OpenMP threads); Fig. 6's section has one thread against all, by stage.")
    s.table(["grid (cells)", "GPU recipe", *common.speedup_headers(cores),
             "paper: 1 GPU over 12 CPU threads, as the paper measured", "MLS + CG % of GPU step"], table)
    s.p(common.SPEEDUP_NOTE)
    s.p("Paper: " + "; ".join(f"{p['gpus']} GPU(s) at {p['grid_points']}: {p['speedup_vs_12thread_cpu']}x" for p in paper)
        + ". Fixed 100 CG iterations a step on both sides.")
    liu_gpus(s, runs, paper)


def liu_gpus(s, runs, paper):
    """Fig. 8's 2-GPU columns (two z-slabs, the paper's host-staged halo with and without overlap), 3-4 modelled."""
    table = []
    for grid in sorted({k[0] for k in runs if k[3] == 2}, key=lambda g: int(g.split("x")[0])):
        cpu = cpu_run(runs, grid)
        nc = grid.split("x")[0]
        claims = {p.get("gpus"): p["speedup_vs_12thread_cpu"] for p in paper if p.get("nc") == nc}
        for recipe in ("paper", "fused"):
            one = runs.get((grid, "cuda", recipe, 1, ""))
            on, off = (runs.get((grid, "cuda", recipe, 2, h)) for h in ("host_staged_async", "host_staged_sync"))
            if not (on or off):
                continue

            def speedup(t):
                return fmt(cpu[0] / t) if cpu and t else "-"
            t1, t2 = one[0] if one else None, on[0] if on else None
            table.append([grid, recipe, fmt(t1 * 1e3) if t1 else "-", fmt(t2 * 1e3) if t2 else "-",
                          fmt(off[0] * 1e3) if off else "-",
                          fmt(100 * (off[0] - t2) / off[0]) if off and t2 else "-",
                          fmt(100 * on[1].get("halo", 0) / t2) if t2 else "-", speedup(t2), claims.get("2", "-"),
                          modelled_cell(t1, t2, 3, speedup), claims.get("3", "-"), modelled_cell(t1, t2, 4, speedup),
                          claims.get("4", "-")])
    if not table:
        return
    s.p("Two GPUs (measured: two z-slabs, --ranks 2) with the paper's host-staged halo, overlap on (host_staged_async: "
        "the u* exchange under the interior's move and MLS) and off (host_staged_sync); speedups over all CPU threads. "
        + MODEL_NOTE)
    s.table(["grid (cells)", "GPU recipe", "1 GPU ms/step", "2 GPUs ms/step (overlap on)", "overlap off ms/step",
             "overlap gain %", "halo % of step (on)", "2 GPUs speedup", "paper 2 GPUs", "3 GPUs (modelled)",
             "paper 3", "4 GPUs (modelled)", "paper 4"], table)


BUILDERS = {"liu_cpu_threads": liu_cpu_threads, "liu_stage_speedup": liu_stage_speedup,
            "liu_solver_speedup": liu_solver_speedup}
