"""Report sections of Ha, Park & You (studies/ha2018/): the batched tridiagonal family against the copy bandwidth,
and the fractional-step solver's seconds per step against grid size (Table 1 / Fig. 6).

tridiag_bandwidth: every variant's best tuning per (grid, precision, stage, workload), its modelled GB/s
(5 words an unknown: a, b, c, d read, x written) and its share of this GPU's copy bandwidth, and the
issue's target: the best solver of a 512^3-point batch at >= 80% of the copy bandwidth, float and double.
"""
import report_plots as plots
from common import fmt, variant_name
from report_page import verdict
from stage_table import best_rows

TARGET_FRACTION = 0.80


def _rows(results):
    """(grid, precision, stage, workload, variant) -> best row over tunings, with the copy bandwidth."""
    out = {}
    for r in results.values():
        if "rows" not in r or "grid" not in r:
            continue
        g = r["grid"]
        grid = f"{g['nx']}x{g['ny']}x{g['nz']}"
        copy = r["machine"]["gpu"]["copy_bandwidth"]["bytes_per_second"]
        for (stage, variant, scheme), row in best_rows(r).items():
            if row.get("solver", "tridiag") != "tridiag" and not str(variant).startswith("tridiag/"):
                continue
            key = (grid, r["precision"], stage, scheme or "", variant)
            if key not in out or row["median_s"] < out[key]["median_s"]:
                out[key] = dict(row, copy_bandwidth=copy, grid=grid, precision=r["precision"])
    return out


def _unknowns(grid):
    nx, ny, nz = (int(v) for v in grid.split("x"))
    return nx * ny * nz


def tridiag_bandwidth(s, study, results, paper, out, all_results):
    rows = _rows(results)
    if not rows:
        s.p("No tridiagonal rows in these results.")
        return
    table = []
    for (grid, prec, stage, workload, variant), r in sorted(rows.items()):
        n = _unknowns(grid)
        table.append([grid, prec, stage + (f" {workload}" if workload else ""), variant_name(variant), r["tuning"],
                      fmt(r["median_s"] * 1e3), fmt(r["median_s"] / n * 1e9), fmt(r["bytes_per_second"] / 1e9),
                      fmt(100 * r["fraction_of_copy_bandwidth"])])
    s.table(["grid (systems: nx*nz, unknowns: ny)", "precision", "stage", "variant", "best tuning", "ms a batch",
             "ns an unknown", "GB/s (model)", "% of copy"], table)

    # The target: the best solver of the 512^3-point batch, each precision.
    verdicts = []
    for prec in ("float", "double"):
        cands = [r for (grid, p, _, _, _), r in rows.items() if grid == "512x512x512" and p == prec]
        if not cands:
            verdicts.append([prec, "-", "-", "not run"])
            continue
        best = max(cands, key=lambda r: r["fraction_of_copy_bandwidth"])
        frac = best["fraction_of_copy_bandwidth"]
        verdicts.append([prec, f"{best['stage']}/{variant_name(best['variant'])}:{best['tuning']}", fmt(100 * frac),
                         "reached" if frac >= TARGET_FRACTION else f"not reached (target {100 * TARGET_FRACTION:.0f}%)"])
    s.table(["precision", "best solver of the 512^3-point batch", "% of copy", "target >= 80%"], verdicts)
    s.p("The model counts 5 words an unknown. Thomas a thread a system keeps c' in global memory (9 words moved), "
        "the cyclic solver also its Sherman-Morrison column, cuSPARSE's interleaved solver works on copies of the "
        "diagonals: their shortfall against the model is that traffic. The block-per-system solvers move exactly "
        "the model's words.")
    if paper:
        s.p("The paper times no tridiagonal solver on its own; the batches it solves (for scale):")
        s.table(list(paper[0].keys()), [list(p.values()) for p in paper])

    for prec in ("float", "double"):
        sel = [(k, r) for k, r in sorted(rows.items()) if k[0] == "512x512x512" and k[1] == prec]
        if not sel:
            continue
        fig, ax = plots.figure(8.0, 3.5)
        labels = [f"{k[2]}/{variant_name(k[4])}" for k, _ in sel]
        ax.bar(range(len(sel)), [100 * r["fraction_of_copy_bandwidth"] for _, r in sel])
        ax.axhline(100 * TARGET_FRACTION, color="k", linestyle="--", linewidth=1, label="target 80%")
        ax.set_xticks(range(len(sel)), labels, fontsize=7, rotation=30, ha="right")
        plots.finish(ax, "solver", "% of copy bandwidth (model bytes)", f"512^3-point batch, {prec}", log_x=False)
        name = f"tridiag_bandwidth_{prec}.png"
        plots.save(fig, out, name)
        s.fig(name, f"Share of the copy bandwidth of every tridiagonal solver on the 512^3-point batch ({prec})")


BUILDERS = {"tridiag_bandwidth": tridiag_bandwidth}


# ---------------------------------------------------------------------------------------------------------
# Table 1 / Fig. 6: the fractional-step solver's seconds per step against grid size (fracstep, V0 on one GPU).

FRACSTEP_SECTIONS = ["rhs", "adi_x", "adi_y", "adi_z", "divergence", "poisson", "correct"]


def run_form(r):
    """A run's configuration as the reports name it: its recipe and, for V2, its split solves' form and, on GPU
    ranks that talked by NCCL, that."""
    run = r.get("run") or {}
    form = run.get("recipe", "?")
    if run.get("variant", "V0") != "V0":
        form += ", " + run.get("split_factors", "per_line") + " factors"
        if run.get("gpu_messages") == "nccl":
            form += ", NCCL"
    return form


def _fracstep_rows(results, ranks=1, recipe=None):
    """grid -> the fastest fracstep result of that grid (of this recipe, if given): ranks 1, V0 on one GPU; ranks P,
    V2 on P real y-slab ranks, a GPU each (measured; V2-acc and V2-ppt are other algorithms, V2 emulated on virtual
    ranks no p = 1 time, ranks that share a GPU no p-GPU time)."""
    out = {}
    for r in results.values():
        run = r.get("run") or {}
        decomposition = run.get("decomposition", {})
        if run.get("solver") != "fracstep" or "timing" not in r or decomposition.get("ranks", 1) != ranks:
            continue
        if run.get("variant", "V0") != ("V0" if ranks == 1 else "V2") or (recipe and run.get("recipe") != recipe):
            continue
        if ranks > 1 and (decomposition.get("oversubscribed") or run.get("backend") != "cuda"):
            continue
        g = run["grid"]
        grid = f"{g['nx']}x{g['ny']}x{g['nz']}"
        if grid not in out or r["timing"]["step"]["median"] < out[grid]["timing"]["step"]["median"]:
            out[grid] = r
    return out


def _section_per_step(r, name):
    """Median seconds a step spends in a section (a stage or one of the solver's own sections), or None."""
    t = r["timing"]
    entry = (t.get("stages") or {}).get(name) or (t.get("sections") or {}).get(name)
    return entry["per_step"]["median"] if entry and "per_step" in entry else None


def fracstep_step_time(s, study, results, paper, out, all_results):
    rows, rows2 = _fracstep_rows(results), _fracstep_rows(results, 2)
    paper_by_grid = {p["grid"]: p for p in paper or []}
    cells = {g: int(g.split("x")[0]) * int(g.split("x")[1]) * int(g.split("x")[2])
             for g in set(rows) | set(rows2) | set(paper_by_grid)}
    order = sorted(cells, key=lambda g: (cells[g], g))
    table, previous = [], None
    for g in order:
        r, p = rows.get(g), paper_by_grid.get(g)
        t = r["timing"]["step"]["median"] if r else None
        tp = float(p["wall_clock_s_per_step"]) if p else None
        slope = None
        if t is not None and previous is not None:
            slope = (t - previous[1]) / ((cells[g] - previous[0]) / 1e6)
        if t is not None:
            previous = (cells[g], t)
        r2 = rows2.get(g)
        t2 = r2["timing"]["step"]["median"] if r2 else None
        # E(2) against V0 of the p = 2 run's own recipe (the same kernels on both sides), not the fastest V0
        same = _fracstep_rows(results, 1, r2["run"].get("recipe")).get(g) if r2 else None
        t1 = same["timing"]["step"]["median"] if same else None
        forms = " / ".join(run_form(x) if x else "-" for x in (r, r2))
        table.append([g, fmt(cells[g] / 1e6), fmt(t), fmt(t / cells[g] / 3 * 1e9 if t else None), fmt(slope),
                      fmt(tp), fmt(tp / cells[g] / 3 * 1e9 if tp else None),
                      fmt(4 * tp / cells[g] / 3 * 1e9 if tp else None), fmt(t2),
                      fmt(2 * t2 / cells[g] / 3 * 1e9 if t2 else None), fmt(t1 / (2 * t2) if t1 and t2 else None),
                      forms, (verdict(r) if r else "not run") + (" / " + verdict(r2) if r2 else "")])
    s.table(["grid (cells)", "M cells", "here: s/step (1 GPU)", "here: ns/cell/sub-step", "here: slope s per M cells",
             "paper: s/step (4 x P100)", "paper: ns/cell/sub-step", "paper: GPU-ns/cell/sub-step (x 4 GPUs)",
             "here: s/step (2 GPUs, V2, measured)", "here: GPU-ns/cell/sub-step (x 2 GPUs)", "E(2)",
             "runs used: 1 GPU / 2 GPUs (recipe, the fastest of each)", "check"], table)
    s.p("Here one GPU runs the whole grid (V0); the paper's numbers are four P100s on y-slabs (V2). So the "
        "comparable number is GPU-nanoseconds per cell per sub-step: the paper's ns/cell/sub-step times its 4 GPUs "
        "against this GPU's ns/cell/sub-step. The P100 has about 0.73 TB/s of HBM bandwidth [X, notes Sec. 6.5]; "
        "compare the shape (linear growth, the slope jumps the paper sees at sizes with a factor 3) more than "
        "the absolute values. The check column is the run's own verdict (finite state; validation: none for the "
        "synthetic case; the CPU reference is skipped at these sizes). p = 2 is MEASURED: V2 on two real y-slab ranks, "
        "a GPU each (ghost rows and the split solves' messages between them); E(2) = T(1 GPU) / (2 T(2 GPUs)) against the "
        "V0 run of the same recipe on the grid (the p = 1 column is the fastest of any recipe); a grid too large for one "
        "GPU has a p = 2 time alone.")
    if not rows:
        s.p("No fracstep results here (GPU runs only; none on this machine).")
        return

    shares = []
    for g in order:
        r = rows.get(g)
        if not r:
            continue
        step = r["timing"]["step"]["median"]
        per = [_section_per_step(r, name) for name in FRACSTEP_SECTIONS]
        shares.append([g] + [fmt(100 * v / step) if v is not None else "-" for v in per])
    s.p("Share of the step per component (%), notes Sec. 6.3 (poisson = the paper's FFT and TDMA-C together):")
    s.table(["grid"] + FRACSTEP_SECTIONS, shares)

    fig, ax = plots.figure(7.5, 4.0)
    here = [(cells[g], rows[g]["timing"]["step"]["median"]) for g in order if g in rows]
    ax.plot([c / 1e6 for c, _ in here], [t for _, t in here], "-o", label="here, V0, 1 GPU")
    here2 = [(cells[g], rows2[g]["timing"]["step"]["median"]) for g in order if g in rows2]
    if here2:
        ax.plot([c / 1e6 for c, _ in here2], [t for _, t in here2], "-^", label="here, V2, 2 GPUs (measured)")
    there = [(cells[g], float(paper_by_grid[g]["wall_clock_s_per_step"])) for g in order if g in paper_by_grid]
    ax.plot([c / 1e6 for c, _ in there], [t for _, t in there], "--s", label="paper, V2, 4 x P100")
    plots.finish(ax, "M cells", "seconds per step (3 sub-steps)", "Table 1 / Fig. 6", log_x=False)
    plots.save(fig, out, "fracstep_table1.png")
    s.fig("fracstep_table1.png", "Seconds per time step against grid size: this GPU (V0) and the paper's 4 P100s")


BUILDERS["fracstep_step_time"] = fracstep_step_time
