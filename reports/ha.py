"""Report sections of Ha, Park & You (studies/ha/): the batched tridiagonal family against the copy bandwidth.

tridiag_bandwidth: every variant's best tuning per (grid, precision, stage, workload), its modelled GB/s
(5 words an unknown: a, b, c, d read, x written) and its share of this GPU's copy bandwidth, and the
issue's target: the best solver of a 512^3-point batch at >= 80% of the copy bandwidth, float and double.
"""
import report_plots as plots
from common import fmt, variant_name
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
