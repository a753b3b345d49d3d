"""The study report: paper vs this machine, from recorded result files only.

    scripts/py reports/study_report.py [--results DIR] [--machine ID] [--studies studies] [--out DIR]

By default it reads your own runs, results/local/<study>/<machine-id>/ (what scripts/run-study writes),
for this machine, and writes results/local/report/<machine-id>/ (report.md, index.html and PNG plots).
The reference results shipped in the repository are read only when asked for:

    scripts/py reports/study_report.py --results results --machine nvidia-h200-x2   # -> results/report/nvidia-h200-x2/

For every study it writes a section (tables with the paper's numbers beside ours, plots) and the list
of its runs: when, from which commit, the correctness verdict, or why a run was skipped, failed or
could not be read. The page begins with when, where and from what it was made. Every number comes
from a result file.
"""
import argparse
import csv
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import cpu_shares  # noqa: E402
import ha2018  # noqa: E402
import ha2018_scaling  # noqa: E402
import liu2019  # noqa: E402
import report_page  # noqa: E402
import report_plots as plots  # noqa: E402
import scaling_model  # noqa: E402
import studylib  # noqa: E402
import urban  # noqa: E402
from common import fmt, variant_id, variant_name  # noqa: E402
from report_page import Section, verdict  # noqa: E402
from stage_table import best_rows  # noqa: E402
import validation_report  # noqa: E402
import kemal2015  # noqa: E402
import gohari2012  # noqa: E402
import history  # noqa: E402
import poisson_report  # noqa: E402
import stage_targets  # noqa: E402
import tuned_report  # noqa: E402
import reproduction  # noqa: E402


def read_csv(study):
    paper = study.get("paper") or {}
    if "csv" not in paper:
        return []
    with open(os.path.join(study["_dir"], paper["csv"])) as f:
        return list(csv.DictReader(f))


def step_ms(r):
    return r["timing"]["step"]["median"] * 1e3


def grid_of(r):
    g = r["run"]["grid"] if "run" in r else r["grid"]
    return f"{g['nx']}x{g['ny']}x{g['nz']}"


def points(grid):
    nx, ny, nz = (int(x) for x in grid.split("x"))
    return nx * ny * nz


def by_group(results, group):
    return {rid: r for rid, r in results.items() if r.get("study", {}).get("group") == group}


def gpu_record(results):
    """The GPU record of the first result that has one ({} without a GPU)."""
    return next((r["machine"]["gpu"] for r in results.values() if (r.get("machine") or {}).get("gpu")), {})


def stage_ms(r, stage):
    """Median time of a stage per step in ms (0 for a stage not timed per step, e.g. an untimed reduce)."""
    return r["timing"]["stages"].get(stage, {}).get("per_step", {}).get("median", 0) * 1e3


def ms_per_point(r):
    return r["timing"]["step"]["median"] / points(grid_of(r))


# ---------------------------------------------------------------- builders, one per report kind

def cpu_gflops(s, study, results, paper, out, all_results):
    rows = []
    paper_by_size = {p["size"]: p for p in paper}
    for rid, r in sorted(results.items(), key=lambda kv: (points(grid_of(kv[1])), kv[1]["run"]["backend"])):
        g = grid_of(r)
        p = paper_by_size.get(g, {})
        ours = r["timing"]["gflops"]
        core2 = float(p["gflops_core2duo_3.0GHz"]) if p else None
        rows.append([g, r["run"]["backend"], r["run"]["threads"], fmt(step_ms(r)), fmt(ours),
                     fmt(core2), fmt(float(p["gflops_opteron_2.4GHz"]) if p else None),
                     fmt(ours / core2 if core2 else None)])
    s.table(["grid", "backend", "threads", "ms/step", "GFLOPS here", "paper Core 2 Duo", "paper Opteron",
             "here / Core 2 Duo"], rows)
    counts = flops_per_point(next(iter(results.values())))
    if counts:
        s.p("nsbench's flops per grid point and stage call, from the runs' work models (modelled flops / points): "
            + ", ".join(f"{stage} {fmt(n)}" for stage, n in counts) + ".")


def flops_per_point(r):
    """[(stage, modelled flops per point of one call)] in step order, from a run result's stage models."""
    out = []
    for stage in r["timing"]["stage_order"]:
        model = r["timing"]["stages"].get(stage, {}).get("model") or {}
        if model.get("points"):
            out.append((common.stage_name(stage), model["flops"] / model["points"]))
    return out


def _stage_rows(results):
    rows = []
    for r in results.values():
        for row in r.get("rows", []):
            if "median_s" in row:
                rows.append(dict(row, _precision=r.get("precision"), _grid=grid_of(r)))
    return rows


def stage_order_of_rows(results):
    """Stages in the order `nsbench stages` wrote their rows (the solver's step order)."""
    order = []
    for r in results.values():
        for row in r.get("rows", []):
            if row["stage"] not in order:
                order.append(row["stage"])
    return order


def stage_compare(s, study, results, paper, out, all_results):
    rows = _stage_rows(results)
    pairs = [("momentum", variant_id("momentum/global_2d_zloop"), variant_id("momentum/shared_zloop")),
             ("pressure", variant_id("pressure/jacobi_global_2d_zloop"), variant_id("pressure/jacobi_shared_zloop"))]
    paper_by_kernel = {p["kernel"]: p for p in paper}
    table, labels, glob, shar, slower = [], [], [], [], []
    for kernel, gv, sv in pairs:
        def pick(v):
            return next((x for x in rows if x["variant"] == v and x["tuning"] == "bx16_by16_sz2"
                         and x.get("scheme", "euler") == "euler"), None)
        g, sh = pick(gv), pick(sv)
        if not g or not sh:
            continue
        p = paper_by_kernel.get(kernel, {})
        ratio = g["median_s"] / sh["median_s"]
        if ratio < 1:
            slower.append(kernel)
        table.append([kernel, fmt(g["median_s"] * 1e6), fmt(sh["median_s"] * 1e6), fmt(ratio),
                      f"{p.get('qualifier', '').split(' (')[0]} {p.get('speedup_shared_over_global', '-')}x".strip(),
                      "agrees" if ratio >= 2 else "disagrees: shared is slower here" if ratio < 1 else "smaller gain"])
        labels.append(kernel), glob.append(g["median_s"] * 1e6), shar.append(sh["median_s"] * 1e6)
    s.table(["kernel", "global us/call", "shared us/call", "shared speedup here", "paper", "verdict"], table)
    gpu = gpu_record(results)
    if slower and gpu:
        l2 = f" and in a {fmt(gpu['l2_bytes'] / 2 ** 20)} MiB L2" if gpu.get("l2_bytes") else ""
        s.p(f"Why shared memory is slower here ({', '.join(slower)}): the C870 had no cache, so staging a tile in "
            f"shared memory saved most global loads; the {gpu['name']} caches global loads in L1{l2}, which catch "
            "much of the stencil's reuse already, so the tile's halo loads and __syncthreads are extra work "
            "(thread blocks of 16x16x2, as in the thesis).")
    if labels:
        fig, ax = plots.figure(5.5, 3.2)
        x = range(len(labels))
        ax.bar([i - 0.2 for i in x], glob, 0.4, label="global memory")
        ax.bar([i + 0.2 for i in x], shar, 0.4, label="shared memory")
        ax.set_xticks(list(x), labels)
        plots.finish(ax, "", "time per call (us)", f"Fig. 4.4 here: {grid_of(next(iter(results.values())))} "
                     f"{next(iter(results.values()))['precision']}, 16x16x2 blocks", log_x=False)
        plots.save(fig, out, "fig4_4.png")
        s.fig("fig4_4.png", "Per-kernel time, global vs shared memory (median of the timed calls)")


def other_ms(r):
    """Step time not inside any timed stage (launch gaps, host work): step median - sum of the stages' medians."""
    return step_ms(r) - sum(stage_ms(r, st) for st in r["timing"]["stage_order"])


def recipe_compare(s, study, results, paper, out, all_results):
    rs = sorted(results.values(), key=lambda r: step_ms(r), reverse=True)
    base = next((r for r in rs if r["run"]["recipe"] == "thibault-global"), None)
    s.table(["recipe", "grid", "ms/step", "stages ms/step", "other ms/step (launch gaps, host)",
             "speedup over thibault-global", "check"],
            [[r["run"]["recipe"], grid_of(r), fmt(step_ms(r)), fmt(step_ms(r) - other_ms(r)), fmt(other_ms(r)),
              fmt(step_ms(base) / step_ms(r) if base else None), verdict(r)] for r in rs])
    opt = next((r for r in rs if r["run"]["recipe"] == "thibault-optimal"), None)
    if paper and base and opt:
        s.p(optimal_vs_global_text(paper[0], base, opt, gpu_record(results)))
    order = rs[0]["timing"]["stage_order"]
    parts = [(common.stage_name(st), [stage_ms(r, st) for r in rs]) for st in order]
    parts = [(name, values) for name, values in parts if any(values)]
    parts.append(("other (launch gaps, host)", [max(0.0, other_ms(r)) for r in rs]))
    plots.stacked_bars(out, "fig4_5.png", [r["run"]["recipe"] for r in rs], parts, "ms per step",
                       "Per-stage time per step (Fig. 4.5 breakdown)")
    s.fig("fig4_5.png", "Per-stage time per step of each recipe, stacked; 'other' is the step time outside every "
                        "timed stage (step median minus the stages' medians), so each bar is the step time")


def optimal_vs_global_text(p, base, opt, gpu):
    """The paper's claim, the measured ratio, and when they disagree, the stages that make the difference."""
    ratio = step_ms(base) / step_ms(opt)
    here = f"Paper: thibault-optimal {p['qualifier'].split(' (')[0]} {p['speedup']}x faster than all-global. " \
           f"Here, on the {gpu.get('name', 'this machine')}: {fmt(ratio)}x"
    if ratio >= 1.5:
        return here + " (agrees)."
    stages_base, stages_opt = base["timing"]["stages"], opt["timing"]["stages"]
    changed = [st for st in opt["timing"]["stage_order"]
               if st in stages_base and stages_opt[st].get("variant") != stages_base[st].get("variant")]
    if not changed:
        return here + ", which disagrees; the two recipes ran the same variants here."
    slower = [st for st in changed if stage_ms(opt, st) > stage_ms(base, st)]
    why = ("the stages where thibault-optimal uses other variants are slower here (see Fig. 4.4)" if slower else
           "the stages where thibault-optimal uses other variants are not slower here")
    detail = "; ".join(f"{common.stage_name(st)}: {variant_name(stages_opt[st]['variant'])} {fmt(stage_ms(opt, st))} ms "
                       f"against {variant_name(stages_base[st]['variant'])} {fmt(stage_ms(base, st))} ms per step"
                       for st in changed)
    return here + f", which disagrees: {why}. {detail}."


def speedup(s, study, results, paper, out, all_results):
    cpu1 = {grid_of(r): r for r in by_group(results, "cpu").values() if r["run"]["backend"] == "cpu_serial"}
    cpun = {grid_of(r): r for r in by_group(results, "cpu").values() if r["run"]["backend"] == "cpu_omp"}
    gpu = [r for r in results.values() if r.get("study", {}).get("group") in ("gpu1", "gpu2")]
    cores = next((r["run"]["threads"] for r in cpun.values()), None)
    s.table(["grid", "1 core ms/step", f"{cores or 'all'} cores ms/step", "all cores / 1 core"],
            [[g, fmt(step_ms(cpu1[g]) if g in cpu1 else None), fmt(step_ms(cpun[g]) if g in cpun else None),
              fmt(step_ms(cpu1[g]) / step_ms(cpun[g]) if g in cpu1 and g in cpun else None)]
             for g in sorted(set(cpu1) | set(cpun), key=points)])
    measured, rows = {}, []  # measured[(grid, GPUs, recipe)] = (speedup vs 1 core, vs all cores)
    for r in sorted(gpu, key=lambda r: (points(grid_of(r)), r["run"]["recipe"])):
        g, ranks = grid_of(r), r["run"].get("decomposition", {}).get("ranks", 1)
        s1 = step_ms(cpu1[g]) / step_ms(r) if g in cpu1 else None
        sn = step_ms(cpun[g]) / step_ms(r) if g in cpun else None
        measured[(g, ranks, r["run"]["recipe"])] = (s1, sn)
        rows.append([g, f"{ranks} GPU{'s' if ranks > 1 else ''}, {r['run']['recipe']}",
                     *common.speedup_cells(r, cpu1.get(g), cpun.get(g)), verdict(r)])
    if not gpu:
        s.p("No GPU rows: no GPU on this machine (the GPU runs are listed as skipped below).")
    s.table(["grid", "GPUs, recipe", *common.speedup_headers(cores), "check"], rows)
    if rows:
        s.p(common.SPEEDUP_NOTE)
    if paper:
        s.table(["paper platform", "GPUs", "grid", "paper speedup vs 1 core", "here vs 1 core (best)",
                 "here vs all cores (best)"],
                [[p["platform"], p["gpus"], p["size"], p["speedup_vs_one_core"],
                  *measured_or_why(measured.get((p["size"], int(p["gpus"]), "best")), int(p["gpus"]), results)]
                 for p in paper])
        cpu_model = next((r["machine"]["cpu"]["model"] for r in list(cpu1.values()) + list(cpun.values())), "?")
        s.p(f"Paper: 33x for one C870 against one 2008 Opteron core (100x for four GPUs). Here the baseline is one "
            f"core and all {cores} cores of this machine's {cpu_model}; the GPU is {gpu_record(results).get('name', 'none')}. "
            "A CPU core is far faster than in 2008 relative to its memory system, and all cores share one memory "
            "bandwidth, so the all-core speedup is the honest one. 'Here' columns: the same grid and GPU count, "
            "recipe best.")
    if measured:
        speedup_plot(out, measured, paper)
        s.fig("fig4_6.png", "GPU speedup over one CPU core and over all cores, by grid size; stars and crosses: "
                            "the paper's speedups over one core")


def measured_or_why(pair, gpus, results):
    """The two measured speedups as text, or why there are none (a GPU count this machine does not have)."""
    if pair:
        return [fmt(v) for v in pair]
    here = gpu_record(results).get("count", 0)
    why = f"not measured ({here} GPU{'s' if here != 1 else ''} here)" if gpus > here else "not measured"
    return [why, why]


def speedup_plot(out, measured, paper):
    fig, ax = plots.figure(8.5, 4.2)
    series = {}
    for (g, ranks, recipe), (s1, sn) in measured.items():
        series.setdefault((ranks, recipe), []).append((points(g), s1, sn))
    for k, ((ranks, recipe), pts) in enumerate(sorted(series.items())):
        pts.sort()
        label = f"{ranks} GPU{'s' if ranks > 1 else ''}, {recipe}"
        colour, marker = plots.COLOURS[k % 10], plots.MARKERS[k % len(plots.MARKERS)]
        if all(p[1] for p in pts):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", marker=marker, color=colour, label=f"{label} vs 1 core")
        if all(p[2] for p in pts):
            ax.plot([p[0] for p in pts], [p[2] for p in pts], "--", marker=marker, color=colour,
                    markerfacecolor="none", label=f"{label} vs all cores")
    for k, p in enumerate(paper):
        ax.plot(plots.dodge(points(p["size"]), k + 1, 1, 1.06), float(p["speedup_vs_one_core"]),
                {"1": "*", "2": "P", "4": "X"}.get(p["gpus"], "*"), markersize=9,
                color="black" if "Opteron" in p["platform"] else "gray",
                label=f"paper: {p['platform']}, {p['gpus']} GPU{'s' if p['gpus'] != '1' else ''} vs 1 core")
    plots.finish(ax, "grid points", "speedup (CPU time / GPU time per step)", "Fig. 4.6/4.7 on this machine",
                 log_y=True)
    plots.save(fig, out, "fig4_6.png")


def halo_label(d):
    """'host_staged_sync:pinned' from a decomposition record."""
    tuning = d["halo"]["tuning"]
    return variant_name(d["halo"]["variant"]) + (":" + tuning if tuning != "default" else "")


def scaling(s, study, results, paper, out, all_results):
    one = {grid_of(r): r for r in by_group(results, "one_gpu").values()}
    rows, eff = [], {}
    for group in ("strong", "weak", "mpi", "large_planes"):
        for rid, r in sorted(by_group(results, group).items()):
            d = r["run"]["decomposition"]
            ranks, g, halo = d["ranks"], grid_of(r), halo_label(d)
            per_gpu = f"{r['run']['grid']['nx']}x{r['run']['grid']['ny']}x{r['run']['grid']['nz'] // ranks}"
            base = one.get(per_gpu if group == "weak" else g)
            # strong: E = T1 / (P TP) on the same grid; weak: E = T1(per-GPU grid) / TP
            e = (step_ms(base) / step_ms(r) / (1 if group == "weak" else ranks)) if base else None
            h = r["timing"]["halo"]
            rows.append([group, g, ranks, d["driver"], halo, fmt(step_ms(r)), fmt(step_ms(base) if base else None),
                         fmt(100 * e if e else None), fmt(100 * h["share_of_step"]),
                         fmt(h.get("halo_pressure", {}).get("bytes_per_second", 0) * 1e-9), verdict(r)])
            if e and group in ("strong", "weak"):
                eff.setdefault((group, halo), []).append((points(g), e))
    s.table(["kind", "grid", "GPUs", "driver", "halo", "ms/step", "1-GPU ms/step", "efficiency %",
             "halo % of step", "pressure halo GB/s (bytes / timed section)", "check"], rows)
    s.p("Efficiency: strong E = T1 / (P TP) on the same grid; weak E = T1(per-GPU grid) / TP. The halo share is the "
        "timed exchange sections (for the overlapped variant: only the exposed wait) over the step time.")
    if paper:
        gpus_here = gpu_record(results).get("count", 0)
        s.table(["paper platform", "GPUs", "paper speedup over 1 GPU", "note",
                 "here: speedup over 1 GPU (largest grid, fastest halo)"],
                [[p["platform"], p["gpus"], p["speedup_over_one_gpu"], p["qualifier"],
                  measured_speedup(results, one, int(p["gpus"]), gpus_here)] for p in paper])
    model = scaling_model.build(results, all_results)
    if model:
        s.p(model["explanation"])
        s.table(model["check_headers"], model["check_rows"])
        s.table(model["table_headers"], model["table_rows"])
        model_plot(out, model, eff)
        s.fig("fig4_8_model.png", "Strong-scaling efficiency: model (lines) and measurements (points, set a little "
                                  "apart so none hides another; all are at 2 GPUs)")
    if eff:
        efficiency_plot(out, eff)
        s.fig("fig4_8.png", "Two-GPU efficiency against the one-GPU run, by size and halo variant (points of one size "
                            "set a little apart)")


def measured_speedup(results, one, gpus, gpus_here):
    """'1.88x (512x512x512, p2p_async_overlap)': T1 / TP of the fastest strong run on `gpus` GPUs at the largest grid."""
    hits = [r for r in by_group(results, "strong").values()
            if r["run"]["decomposition"]["ranks"] == gpus and grid_of(r) in one]
    if not hits:
        return f"not measured ({gpus_here} GPU{'s' if gpus_here != 1 else ''} here)"
    largest = max(points(grid_of(r)) for r in hits)
    best = min((r for r in hits if points(grid_of(r)) == largest), key=step_ms)
    return (f"{fmt(step_ms(one[grid_of(best)]) / step_ms(best))}x "
            f"({grid_of(best)}, {halo_label(best['run']['decomposition'])})")


def model_plot(out, model, eff):
    fig, ax = plots.figure(8.5, 4.2)
    for k, (link, pts) in enumerate(model["curves"].items()):
        ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "-", color=plots.COLOURS[k % 10], label=f"model: {link}")
    measured = sorted((halo, e) for (group, halo), pts in eff.items() if group == "strong"
                      for n, e in pts if n == model["grid_points"])
    for k, (halo, e) in enumerate(measured):
        ax.plot(plots.dodge(2, k, len(measured), 1.06), 100 * e, plots.MARKERS[k % len(plots.MARKERS)], markersize=7,
                color="black", markerfacecolor=plots.COLOURS[(k + 3) % 10], label=f"measured: {halo}")
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 105)
    plots.finish(ax, "GPUs", "strong-scaling efficiency (%)",
                 f"{model['grid']} float: modelled (lines) and measured (points) efficiency", log_x=False)
    plots.save(fig, out, "fig4_8_model.png")


def efficiency_plot(out, eff):
    fig, ax = plots.figure(8.5, 4.0)
    halos = sorted({halo for _, halo in eff})
    for (group, halo), pts in sorted(eff.items()):
        pts.sort()
        k = halos.index(halo)
        ax.plot([plots.dodge(p[0], k, len(halos), 1.05) for p in pts], [100 * p[1] for p in pts],
                "-" if group == "strong" else "--", marker=plots.MARKERS[k % len(plots.MARKERS)],
                color=plots.COLOURS[k % 10], markerfacecolor=plots.COLOURS[k % 10] if group == "strong" else "none",
                label=f"{group}, {halo}")
    plots.finish(ax, "grid points", "2-GPU efficiency (%)",
                 "Fig. 4.8/4.9 on this machine: efficiency vs size per halo variant (strong: filled, weak: open)")
    plots.save(fig, out, "fig4_8.png")


def wave_speedup(s, study, results, paper, out, all_results):
    """Fig. 4.1 / 4.2: one and two GPUs against the serial CPU code by size, the dual-GPU scaling factor
    S2 / S1 and the overhead tau = (2 S1 - S2) / (2 S1) (thesis Eq. 4.1), per recipe and halo variant."""
    serial = {grid_of(r): r for r in by_group(results, "cpu").values()}
    gpu = list(by_group(results, "gpu1").values()) + list(by_group(results, "gpu2").values())
    over_serial = {}  # (grid, recipe, halo or None for one GPU) -> speedup over the serial CPU code
    rows = []
    for r in sorted(gpu, key=lambda r: (points(grid_of(r)), r["run"]["recipe"], r["run"]["decomposition"]["ranks"])):
        g, recipe, d = grid_of(r), r["run"]["recipe"], r["run"]["decomposition"]
        halo = halo_label(d) if d["ranks"] == 2 else None
        s_here = step_ms(serial[g]) / step_ms(r) if g in serial else None
        over_serial[(g, recipe, halo)] = s_here
        s1 = over_serial.get((g, recipe, None)) if halo else None
        tau = (2 * s1 - s_here) / (2 * s1) if s1 and s_here else None
        rows.append([g, recipe, halo or "-", d["ranks"], fmt(step_ms(r)), fmt(step_ms(serial[g]) if g in serial else None),
                     fmt(s_here), fmt(s_here / s1 if tau is not None else None),
                     fmt(100 * tau if tau is not None else None), verdict(r)])
    if not gpu:
        s.p("No GPU rows: no GPU on this machine (the GPU runs are listed as skipped below).")
    s.table(["grid", "recipe", "halo", "GPUs", "ms/step", "serial ms/step", "speedup S over serial", "S2 / S1",
             "tau %", "check"], rows)
    if paper:
        grids = sorted({k[0] for k in over_serial}, key=points)
        s.table(["quantity", "GPUs", "size", "paper", "here: thibault-shared, host-staged pageable", "here: best, p2p",
                 "paper says"],
                [[p["quantity"], p["gpus"], p["size"], p["value"],
                  wave_quantity(p, grids, over_serial, "thibault-shared", "host_staged_sync:pageable"),
                  wave_quantity(p, grids, over_serial, "best", "p2p_sync"), p["qualifier"]] for p in paper])
        s.p("The thesis's serial code and GPUs are 2008's; here the serial baseline is one core of this machine, whose "
            "memory system serves a core far better than in 2008, so the speedups are not expected to match, only "
            "their trend with size (one GPU constant, two GPUs gaining as the ghost rows' share falls).")
    if any(over_serial.values()):
        wave_speedup_plot(out, over_serial)
        s.fig("fig4_1.png", "Wave equation: one and two GPUs against one CPU core, by domain size")


def wave_quantity(p, grids, over_serial, recipe, halo):
    """This machine's value of one of the paper's Fig. 4.1 quantities, at the paper's size ('all': the range)."""
    sizes = {"smallest": grids[:1], "largest": grids[-1:], "all": grids}.get(p["size"])
    if sizes is None:  # a size the thesis names, "8192x8192": the grid 8192x1x8192
        sizes = [g for g in grids if g.replace("x1x", "x") == p["size"]]
    values = []
    for g in sizes:
        s1, s2 = over_serial.get((g, recipe, None)), over_serial.get((g, recipe, halo))
        if p["quantity"] == "speedup_vs_serial":
            values.append(s1 if p["gpus"] == "1" else s2)
        elif s1 and s2:
            values.append(s2 / s1 if p["quantity"] == "dual_over_single" else (2 * s1 - s2) / (2 * s1))
    values = [v for v in values if v is not None]
    if not values:
        return "not measured"
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low} to {high}"


def wave_speedup_plot(out, over_serial):
    fig, ax = plots.figure(8.5, 4.2)
    series = {}
    for (g, recipe, halo), v in over_serial.items():
        if v:
            series.setdefault(f"{recipe}, " + (f"2 GPUs, {halo}" if halo else "1 GPU"), []).append((points(g), v))
    for k, (label, pts) in enumerate(sorted(series.items())):
        pts.sort()
        ax.plot([plots.dodge(p[0], k, len(series)) for p in pts], [p[1] for p in pts], "-" if "1 GPU" in label else "--",
                marker=plots.MARKERS[k % len(plots.MARKERS)], color=plots.COLOURS[k % 10], label=label)
    plots.finish(ax, "grid points", "speedup over the serial CPU code", "Fig. 4.1 on this machine (float)")
    plots.save(fig, out, "fig4_1.png")


def block_shape_times(rows, kernels, shapes):
    """{(kernel label, shape): time per step} and the (label, shape)s where the 16x16 time stands in."""
    times, fallback = {}, set()
    for label, variant, calls in kernels:
        for shape, tuning in shapes.items():
            # Boundary kernels sweep faces (no z walk): their tunings have no _sz part, and not every
            # shape exists for them; a missing one takes the 16x16 time (marked *).
            for t in (tuning, tuning.rsplit("_", 1)[0], "bx16_by16"):
                x = next((r for r in rows if r["variant"] == variant and r["tuning"] == t
                          and r.get("scheme", "euler") == "euler"), None)
                if x:
                    times[(label, shape)] = x["median_s"] * calls
                    if t == "bx16_by16" and shape != "16x16":
                        fallback.add((label, shape))
                    break
    return times, fallback


def block_shapes(s, study, results, paper, out, all_results):
    shapes = {"8x8": "bx8_by8_sz2", "16x8": "bx16_by8_sz2", "16x16": "bx16_by16_sz2"}
    # The thesis's kernels and calls per step (20 Jacobi sweeps, each followed by the pressure BC).
    kernels = [("momentum", variant_id("momentum/global_2d_zloop"), 1), ("momentum_bc", variant_id("velocity_bc/global_2d"), 2),
               ("divergence", variant_id("divergence/global_2d"), 1), ("pressure", variant_id("pressure/jacobi_global_2d_zloop"), 20),
               ("pressure_bc", variant_id("pressure_bc/global_2d"), 20), ("correction", variant_id("correction/global_2d"), 1)]
    times, fallback = block_shape_times(_stage_rows(results), kernels, shapes)
    totals = {sh: sum(t for (k, s2), t in times.items() if s2 == sh) for sh in shapes}
    paper_by = {p["kernel"]: p for p in paper}
    table = []
    for label, variant, calls in kernels:
        row = [label, variant_name(variant)]
        for shape in shapes:
            t = times.get((label, shape))
            star = "*" if (label, shape) in fallback else ""
            row += [fmt(t * 1e6 if t else None) + star, fmt(100 * t / totals[shape] if t and totals[shape] else None)]
        p = paper_by.get(label, {})
        row += [p.get("weight_8x8", "-"), p.get("weight_16x8", "-"), p.get("weight_16x16", "-")]
        table.append(row)
    hdr = ["kernel", "variant"]
    for shape in shapes:
        hdr += [f"{shape} us/step", f"{shape} weight %"]
    s.table(hdr + ["paper weight % 8x8", "paper 16x8", "paper 16x16"], table)
    if fallback:
        s.p("* no such block shape for this boundary kernel; its 16x16 time stands in, so every column's weights "
            "are over the same kernels.")
    if times:
        fig, ax = plots.figure(8.0, 3.5)
        labels = [k for k, _, _ in kernels]
        for n, shape in enumerate(shapes):
            ax.bar([i + (n - 1) * 0.27 for i in range(len(labels))], [times.get((k, shape), 0) * 1e6 for k in labels],
                   0.27, label=f"{shape} threads")
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        plots.finish(ax, "kernel", "time per step (us)", "Table 4.2 here: kernel time per step by block shape",
                     log_x=False)
        plots.save(fig, out, "table4_2.png")
        s.fig("table4_2.png", "Time per step of each kernel (calls per step included) for the thesis's three block shapes")
    best = {variant: r for res in results.values() for (_, variant, scheme), r in best_rows(res).items()
            if scheme == "euler"}
    s.table(["variant", "fastest tuning here", "us/call", "% of copy bandwidth"],
            [[k, v["tuning"], fmt(v["median_s"] * 1e6), fmt(100 * v["fraction_of_copy_bandwidth"])]
             for k, v in sorted(best.items())])


def registers(s, study, results, paper, out, all_results):
    seen = {}
    for r in results.values():
        for name, k in r.get("kernels", {}).items():
            seen[name] = k
        for row in r.get("rows", []):  # a stage benchmark's rows (a stage kind not in any recipe's step)
            for k in row.get("kernels", []):
                seen[f"{row['variant']}:{k['name']}"] = k
    paper_by = {p["kernel"]: p for p in paper}
    # The thesis calls the velocity boundary kernel momentum_bc.
    stage_to_paper = {"velocity_bc": "momentum_bc"}
    rows = []
    for name, k in sorted(seen.items()):
        stage = common.stage_of(name.partition(":")[0])
        kernel = name.partition(":")[2].split("<")[0]
        p = paper_by.get(stage_to_paper.get(stage, stage)) or paper_by.get(kernel, {})
        rows.append([name, k["registers"], k["static_shared_bytes"], k["local_bytes"], p.get("single_gpu", "-"),
                     p.get("multi_gpu", "-")])
    s.table(["kernel (variant:kernel)", "registers here", "static shared bytes", "spill (local) bytes",
             "paper single-GPU", "paper multi-GPU"], rows)


def bandwidth(s, study, results, paper, out, all_results):
    r = next(iter(results.values()))
    rows_by = {}
    for row in r["rows"]:
        rows_by.setdefault(row["transfer"], []).append(row)
    size = 32 << 20 if any(x["bytes"] == 32 << 20 for x in r["rows"]) else max(x["bytes"] for x in r["rows"])

    def near(t):
        return min(rows_by.get(t, []), key=lambda x: abs(x["bytes"] - size), default=None)

    ours = {t: near(t) for t in rows_by}
    table = []
    for p in paper:
        t = p["transfer"].lower()
        pg, pn = ours.get(f"{t}_pageable"), ours.get(f"{t}_pinned")
        factor = 1
        if t == "d2d":  # bandwidthTest counts a device copy's bytes twice (read + write); so do we here
            pg = pn = ours.get("d2d")
            factor = 2
        table.append([p["system"], p["transfer"], p["pageable_MBps"], p["pinned_MBps"],
                      fmt(factor * pg["bytes_per_second"] / 1e6 if pg else None),
                      fmt(factor * pn["bytes_per_second"] / 1e6 if pn else None)])
    s.table(["paper system", "transfer", "paper pageable MB/s", "paper pinned MB/s",
             f"here pageable MB/s ({size >> 20} MiB)", f"here pinned MB/s ({size >> 20} MiB)"], table)
    s.p("D2D rows count bytes read plus bytes written, as the CUDA SDK's bandwidthTest does; the plot counts "
        "each message once (bidirectional: both directions).")
    s.table(["transfer", "latency: 8-byte transfer, us"],
            [[t, fmt(min(v, key=lambda x: x["bytes"])["median_s"] * 1e6)] for t, v in sorted(rows_by.items())])
    fig, ax = plots.figure(8.0, 3.8)
    for k, (t, v) in enumerate(sorted(rows_by.items())):
        v.sort(key=lambda x: x["bytes"])
        ax.plot([x["bytes"] for x in v], [x["bytes_per_second"] * 1e-9 for x in v], "-",
                marker=plots.MARKERS[k % len(plots.MARKERS)], label=t, markersize=3)
    plots.finish(ax, "message size (bytes)", "GB/s", f"Table A.1 on {gpu_record(results).get('name', '?')}", log_y=True)
    plots.save(fig, out, "tableA1.png")
    s.fig("tableA1.png", "Bandwidth by message size (bidirectional counts both directions)")


def roofline(s, study, results, paper, out, all_results):
    gpu = gpu_record(results)
    copy = (gpu.get("copy_bandwidth") or {}).get("bytes_per_second")
    best = {(variant, res["precision"]): dict(r, _grid=grid_of(res)) for res in results.values()
            for (_, variant, scheme), r in best_rows(res).items() if scheme == "euler"}
    s.table(["variant", "precision", "grid", "best tuning", "GB/s", "% of copy", "flop/byte", "GFLOP/s"],
            [[k[0], k[1], v["_grid"], v["tuning"], fmt(v["bytes_per_second"] * 1e-9),
              fmt(100 * v["fraction_of_copy_bandwidth"]), fmt(v["model_flops"] / v["model_bytes"]),
              fmt(v["flops_per_second"] * 1e-9)] for k, v in sorted(best.items())])
    if not copy:
        return
    order = stage_order_of_rows(results)
    pts = [{"stage": v["stage"], "variant": k[0], "precision": k[1], "intensity": v["model_flops"] / v["model_bytes"],
            "gflops": v["flops_per_second"] * 1e-9} for k, v in best.items() if v["model_flops"] > 0]
    peaks = common.peak_flops(gpu)
    plots.roofline(out, "roofline.png", pts, copy, peaks, order)
    zero = sorted({v["stage"] for v in best.values() if v["model_flops"] == 0})
    roofs = (f"the float and double peaks ({', '.join(f'{p} {fmt(f * 1e-12)} TFLOP/s' for p, f in peaks.items())}: "
             f"{gpu['sm_count']} SMs x FMA units per SM of compute capability {gpu['compute_capability']} x 2 x "
             f"{fmt(gpu['sm_clock_khz'] * 1e-6)} GHz)" if peaks else
             f"no compute roof (compute capability {gpu.get('compute_capability', '?')} not in the report's table)")
    s.fig("roofline.png", f"Each variant's best tuning against the memory roof (the measured copy bandwidth of the "
                          f"{gpu.get('name', 'GPU')}) and {roofs}. The variants of one stage share one modelled intensity; they "
                          f"are set 4% apart in x so that none hides another. Stages without flops"
                          f" ({', '.join(zero) or 'none'}) are in the bandwidth chart below.")
    plots.bandwidth_bars(out, "roofline_bandwidth.png",
                         [{"stage": v["stage"], "label": f"{variant_name(k[0])} ({v['stage']}, {k[1]})",
                           "fraction": v["fraction_of_copy_bandwidth"]} for k, v in best.items()], order)
    s.fig("roofline_bandwidth.png", "Every variant's best tuning as a fraction of the copy bandwidth, by stage "
                                    "(the bandwidth roof; the stages without flops too)")


def regression(s, study, results, paper, out, all_results):
    rows = []
    for r in sorted(results.values(), key=lambda r: r.get("study", {}).get("run_id", "")):
        if common.is_schema(r, "stages"):
            rows.append([r["study"]["run_id"], "stage rows", len([x for x in r["rows"] if "median_s" in x]), "-"])
        elif "timing" in r:
            rows.append([r["study"]["run_id"], r["run"]["recipe"], 1, fmt(step_ms(r))])
    s.table(["run", "what", "benchmarks", "ms/step"], rows)
    s.p("The verdicts against the baseline are written by scripts/compare (scripts/gpu-ci's summary), not here.")


BUILDERS = {"cpu_gflops": cpu_gflops, "stage_compare": stage_compare, "recipe_compare": recipe_compare,
            "speedup": speedup, "scaling": scaling, "block_shapes": block_shapes, "registers": registers,
            "bandwidth": bandwidth, "roofline": roofline, "regression": regression, "wave_speedup": wave_speedup}
BUILDERS.update(validation_report.BUILDERS)  # each paper's or topic's module adds its own builders
BUILDERS.update(ha2018.BUILDERS)  # Ha, Park & You (studies/ha2018/)
BUILDERS.update(ha2018_scaling.BUILDERS)  # its p > 1 sections: emulated T(p) with the communication model
BUILDERS.update(liu2019.BUILDERS)  # noqa: E305 (Liu, Wu, Kao & Sheu 2019: the IMLE solver's figures)
BUILDERS.update(kemal2015.BUILDERS)
BUILDERS.update(gohari2012.BUILDERS)
BUILDERS.update(urban.BUILDERS)
BUILDERS.update(poisson_report.BUILDERS)
BUILDERS.update(stage_targets.BUILDERS)  # issue 43's table (studies/targets/)
BUILDERS.update(tuned_report.BUILDERS)  # issue 41's tuned against named recipes (studies/targets/)


# ---------------------------------------------------------------- the report

class NoResults(RuntimeError):
    """No study has a results folder for the machine asked for."""


def machines_with_results(results_root, studies):
    return sorted({m for st in studies for m in (os.listdir(os.path.join(results_root, st["study"]))
                                                  if os.path.isdir(os.path.join(results_root, st["study"])) else [])})


def study_section(st, results, records, machine, out, all_results):
    modes = {r.get("study", {}).get("mode") for r in results.values()} - {None}
    expected = {r["id"] for m in (modes or {"quick"}) for r in studylib.expand(st, m)}
    sec = Section(st["study"], f"{st['title']} ({st['reproduces']})")
    p = st.get("paper") or {}
    sec.p(f"Paper hardware: {p.get('hardware', 'n/a')}. Source: {p.get('source', 'n/a')}. "
          f"This machine: {machine}. Baseline: {st['baseline']}.")
    if st.get("notes"):
        sec.p(st["notes"].strip())
    if results:
        sec.p(f"Form of the study: {', '.join(sorted(modes)) or '?'} (quick runs take fewer steps; per-step times "
              "are what is compared).")
        try:
            BUILDERS[st["report"]](sec, st, results, read_csv(st), out, all_results)
        except Exception as e:  # a report bug must not hide the other studies
            traceback.print_exc()
            sec.p(f"REPORT ERROR in this section: {type(e).__name__}: {e}")
    else:
        sec.p("No results on this machine yet (see the run list below).")
    rows = report_page.run_rows(results, records, expected)
    sec.table(report_page.RUN_HEADERS, report_page.group_not_run(rows))
    return sec, report_page.summary_row(st, rows)


def reproduction_section(results_root, studies_root, out):
    """The per-paper summary that opens the report: each paper's counts over every machine's results under
    results_root, linking its reproduction page (written beside the report folder, in ../reproduction/)."""
    pages = os.path.join(os.path.dirname(os.path.abspath(out)), "reproduction")
    sec = Section("reproduction", "Reproduction, per paper (every machine's results)")
    sec.p("What the results under " + results_root + "/<study>/<machine>/ reproduce, per paper, over every "
          "machine there (not only this one): the counts of its tables and figures by status, computed by "
          "reports/reproduction.py with the thresholds stated on each page. Each paper's page has one row per item.")
    sec.table(reproduction.SUMMARY_HEADERS, reproduction.write_pages(results_root, studies_root, pages, "../reproduction/"))
    return sec


def results_outside_studies(results_root, studies, machine):
    """{folder: {id: result}} of the machine's results in folders of results_root that no study owns (e.g.
    results/cpu-baseline/<machine>/, issue 37's before/after CPU runs): read for the CPU bandwidth shares only."""
    owned = {st["study"] for st in studies} | {"report", "reproduction"}
    out = {}
    for name in sorted(os.listdir(results_root)) if os.path.isdir(results_root) else []:
        folder = os.path.join(results_root, name, machine)
        if name not in owned and os.path.isdir(folder):
            out[name] = studylib.load_results(folder)[0]
    return out


def build_report(results_root, studies_root, machine, out):
    studies = [studylib.load_study(p) for p in studylib.find_studies(studies_root, "all", reported=True)]
    folders = {st["study"]: os.path.join(results_root, st["study"], machine) for st in studies}
    found = sum(1 for f in folders.values() if os.path.isdir(f))
    if not found:
        shipped = machines_with_results(studylib.SHIPPED_RESULTS, studies)
        raise NoResults(f"no results for machine '{machine}' under {results_root}/<study>/ (machines with results "
                        f"there: {', '.join(machines_with_results(results_root, studies)) or 'none'}); run "
                        f"scripts/run-study first, or pick others with --results DIR --machine ID"
                        + (f" (the shipped reference results: --results {studylib.SHIPPED_RESULTS} --machine "
                           f"{' or '.join(shipped)})" if shipped and results_root != studylib.SHIPPED_RESULTS else ""))
    loaded = {name: studylib.load_results(folder) for name, folder in folders.items()}
    for results, records in loaded.values():
        for rec in records.values():
            if "unreadable" in rec:
                print(f"report: unreadable result file {rec['unreadable']}: {rec['reason']} (marked in the report)",
                      file=sys.stderr)
    all_results = {name: results for name, (results, _) in loaded.items()}
    os.makedirs(out, exist_ok=True)
    sections, summary = [reproduction_section(results_root, studies_root, out)], []
    for st in studies:
        sec, row = study_section(st, *loaded[st["study"]], machine, out, all_results)
        sections.append(sec)
        summary.append(row)
        if st["study"] == "roofline":  # the CPU's bandwidth shares beside the GPU's roofline
            sections.append(cpu_shares.section({**all_results, **results_outside_studies(results_root, studies,
                                                                                          machine)}))
    past = Section("regression-history", "History of the regression benchmarks (scripts/gpu-ci)")
    if history.add_to_section(past, machine, out):  # kept per GPU model in baselines/history/, not in results/
        sections.append(past)
    intro = report_page.header(machine, results_root, found, all_results)
    report_page.write_markdown(out, machine, intro, summary, sections)
    report_page.write_html(out, machine, intro, summary, sections)
    return os.path.join(out, "index.html")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=studylib.LOCAL_RESULTS,
                    help=f"results root (default {studylib.LOCAL_RESULTS}: your own runs; 'results' for the shipped ones)")
    ap.add_argument("--studies", default="studies")
    ap.add_argument("--machine", default=None, help="machine id (default: this machine's)")
    ap.add_argument("--out", default=None, help="default: <results>/report/<machine>")
    a = ap.parse_args(argv)
    machine = a.machine or studylib.machine_id()
    out = a.out or os.path.join(a.results, "report", machine)
    try:
        path = build_report(a.results, a.studies, machine, out)
    except NoResults as e:
        print(f"report: {e}", file=sys.stderr)
        return 2
    print(f"report: {path} (and report.md beside it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
