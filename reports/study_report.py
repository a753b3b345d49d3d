"""The study report: paper vs this machine, from recorded result files only.

    reports/study_report.py [--results results] [--studies studies] [--machine ID] [--out DIR]

For every study with results under results/<study>/<machine>/ it writes a section (tables with the
paper's numbers beside ours, plots) to <out>/report.md and <out>/index.html, with PNG plots beside
them. Every number comes from a result file; the page says which runs were skipped or failed and why,
what ran where, when and from which commit, and whether each run passed its correctness check.
"""
import argparse
import csv
import datetime
import html
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import studylib  # noqa: E402
import scaling_model  # noqa: E402
from stage_table import best_rows  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


class Section:
    def __init__(self, study, title):
        self.study, self.title = study, title
        self.blocks = []  # ("p", text) | ("table", headers, rows) | ("fig", file, caption)

    def p(self, text):
        self.blocks.append(("p", text))

    def table(self, headers, rows):
        self.blocks.append(("table", headers, rows))

    def fig(self, file, caption):
        self.blocks.append(("fig", file, caption))


def fmt(v, digits=3):
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if v == 0:
        return "0"
    return f"{v:.{digits}g}"


def read_csv(study):
    paper = study.get("paper") or {}
    if "csv" not in paper:
        return []
    with open(os.path.join(study["_dir"], paper["csv"])) as f:
        return list(csv.DictReader(f))


def step_ms(r):
    return r["timing"]["step"]["median"] * 1e3


def verdict(r):
    ref = r.get("checks", {}).get("reference", {})
    if ref.get("performed"):
        return "PASS" if ref.get("pass") else "FAIL"
    reason = ref.get("reason", "")
    return "n/a (CPU reference)" if "CPU reference" in reason else ("not checked" if reason else "-")


def grid_of(r):
    g = r["run"]["grid"] if "run" in r else r["grid"]
    return f"{g['nx']}x{g['ny']}x{g['nz']}"


def points(grid):
    nx, ny, nz = (int(x) for x in grid.split("x"))
    return nx * ny * nz


def by_group(results, group):
    return {rid: r for rid, r in results.items() if r.get("study", {}).get("group") == group}


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


def _stage_rows(results):
    rows = []
    for r in results.values():
        for row in r.get("rows", []):
            if "median_s" in row:
                rows.append(dict(row, _precision=r.get("precision"), _grid=grid_of(r)))
    return rows


def stage_compare(s, study, results, paper, out, all_results):
    rows = _stage_rows(results)
    pairs = [("momentum", "momentum/global_2d_zloop", "momentum/shared_zloop"),
             ("pressure", "pressure/jacobi_global_2d_zloop", "pressure/jacobi_shared_zloop")]
    paper_by_kernel = {p["kernel"]: p for p in paper}
    table, labels, glob, shar = [], [], [], []
    for kernel, gv, sv in pairs:
        pick = lambda v: next((x for x in rows if x["variant"] == v and x["tuning"] == "bx16_by16_sz2"
                               and x.get("scheme", "euler") == "euler"), None)
        g, sh = pick(gv), pick(sv)
        if not g or not sh:
            continue
        p = paper_by_kernel.get(kernel, {})
        ratio = g["median_s"] / sh["median_s"]
        table.append([kernel, fmt(g["median_s"] * 1e6), fmt(sh["median_s"] * 1e6), fmt(ratio),
                      f"{p.get('qualifier', '').split(' (')[0]} {p.get('speedup_shared_over_global', '-')}x".strip(),
                      "agrees" if ratio >= 2 else "disagrees: shared is slower here" if ratio < 1 else "smaller gain"])
        labels.append(kernel), glob.append(g["median_s"] * 1e6), shar.append(sh["median_s"] * 1e6)
    s.table(["kernel", "global us/call", "shared us/call", "shared speedup here", "paper", "verdict"], table)
    s.p("Why they differ: the C870 had no cache, so staging a tile in shared memory saved most global loads; "
        "Hopper's L1/L2 already catch the stencil's reuse, and the tile's halo loads and __syncthreads cost more "
        "than they save (thread blocks of 16x16x2, as in the thesis).")
    if labels:
        fig, ax = plt.subplots(figsize=(5, 3.2))
        x = range(len(labels))
        ax.bar([i - 0.2 for i in x], glob, 0.4, label="global memory")
        ax.bar([i + 0.2 for i in x], shar, 0.4, label="shared memory")
        ax.set_xticks(list(x), labels)
        ax.set_ylabel("time per call (us)")
        ax.set_title("Fig. 4.4 here: 256x32x256 float, 16x16x2 blocks", fontsize=10)
        ax.legend()
        save(fig, out, "fig4_4.png")
        s.fig("fig4_4.png", "Per-kernel time, global vs shared memory (median of the timed calls)")


def recipe_compare(s, study, results, paper, out, all_results):
    rs = sorted(results.values(), key=lambda r: step_ms(r), reverse=True)
    base = next((r for r in rs if r["run"]["recipe"] == "thibault-global"), None)
    rows = []
    for r in rs:
        rows.append([r["run"]["recipe"], grid_of(r), fmt(step_ms(r)),
                     fmt(step_ms(base) / step_ms(r) if base else None), verdict(r)])
    s.table(["recipe", "grid", "ms/step", "speedup over thibault-global", "check"], rows)
    if paper:
        p = paper[0]
        opt = next((r for r in rs if r["run"]["recipe"] == "thibault-optimal"), None)
        if base and opt:
            ratio = step_ms(base) / step_ms(opt)
            s.p(f"Paper: thibault-optimal {p['qualifier'].split(' (')[0]} {p['speedup']}x faster than all-global. "
                f"Here: {ratio:.2f}x ({'agrees' if ratio >= 1.5 else 'disagrees: the shared-memory kernels are slower on Hopper, see Fig. 4.4'}).")
    stacked_stages(rs, out, "fig4_5.png", "Per-stage time per step (Fig. 4.5 breakdown)")
    s.fig("fig4_5.png", "Per-stage time per step of each recipe, stacked")


STAGES = ["momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction", "reduce"]


def stacked_stages(rs, out, name, title):
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    labels = [r["run"]["recipe"] for r in rs]
    bottom = [0.0] * len(rs)
    for st in STAGES:
        vals = [r["timing"]["stages"].get(st, {}).get("per_step", {}).get("median", 0) * 1e3 for r in rs]
        if not any(vals):
            continue
        ax.bar(labels, vals, bottom=bottom, label=st)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylabel("ms per step")
    ax.set_title(title)
    ax.legend(fontsize=7)
    save(fig, out, name)


def speedup(s, study, results, paper, out, all_results):
    cpu1 = {grid_of(r): r for r in by_group(results, "cpu").values() if r["run"]["backend"] == "cpu_serial"}
    cpun = {grid_of(r): r for r in by_group(results, "cpu").values() if r["run"]["backend"] == "cpu_omp"}
    gpu = [r for r in results.values() if r.get("study", {}).get("group") in ("gpu1", "gpu2")]
    series = {}
    rows = []
    for r in sorted(gpu, key=lambda r: (points(grid_of(r)), r["run"]["recipe"])):
        g = grid_of(r)
        ranks = r["run"].get("decomposition", {}).get("ranks", 1)
        label = f"{ranks} GPU{'s' if ranks > 1 else ''}, {r['run']['recipe']}"
        s1 = step_ms(cpu1[g]) / step_ms(r) if g in cpu1 else None
        sn = step_ms(cpun[g]) / step_ms(r) if g in cpun else None
        rows.append([g, label, fmt(step_ms(r)), fmt(step_ms(cpu1[g]) if g in cpu1 else None), fmt(s1),
                     fmt(step_ms(cpun[g]) if g in cpun else None), fmt(sn), verdict(r)])
        if s1:
            series.setdefault(label, []).append((points(g), s1, sn))
    cores = next((r["run"]["threads"] for r in cpun.values()), None)
    s.table(["grid", "1 core ms/step", f"{cores or 'all'} cores ms/step", "all cores / 1 core"],
            [[g, fmt(step_ms(cpu1[g]) if g in cpu1 else None), fmt(step_ms(cpun[g]) if g in cpun else None),
              fmt(step_ms(cpu1[g]) / step_ms(cpun[g]) if g in cpu1 and g in cpun else None)]
             for g in sorted(set(cpu1) | set(cpun), key=points)])
    if not gpu:
        s.p("No GPU rows: no GPU on this machine (the GPU runs are listed as skipped below).")
    s.table(["grid", "GPUs, recipe", "GPU ms/step", "1 core ms/step", "speedup vs 1 core",
             f"{cores or 'all'} cores ms/step", "speedup vs all cores", "check"], rows)
    cpu_model = next((r["machine"]["cpu"]["model"] for r in list(cpu1.values()) + list(cpun.values())), "?")
    if paper:
        s.table(["paper platform", "GPUs", "grid", "paper speedup vs 1 core", "here, same GPU count (1 core)"],
                [[p["platform"], p["gpus"], p["size"], p["speedup_vs_one_core"],
                  fmt(next((x[4] for x in rows if x[0] == p["size"] and x[1].startswith(p["gpus"] + " GPU")
                            and "best" in x[1]), None))] for p in paper])
        s.p(f"Paper: 33x for one C870 against one 2008 Opteron core (100x for four GPUs). Here the baseline is one "
            f"core and all {cores} cores of this machine's {cpu_model}; the GPU is {gpu_name(results)}. A CPU "
            "core is far faster than in 2008 relative to its memory system, and all cores share one memory "
            "bandwidth, so the all-core speedup is the honest one.")
    if series:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for label, pts in sorted(series.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"{label} vs 1 core")
            if all(p[2] for p in pts):
                ax.plot([p[0] for p in pts], [p[2] for p in pts], "s--", label=f"{label} vs all cores")
        finish(ax, "grid points", "speedup (CPU time / GPU time per step)", "Fig. 4.6/4.7 on this machine", log_y=True)
        save(fig, out, "fig4_6.png")
        s.fig("fig4_6.png", "GPU speedup over one CPU core and over all cores, by grid size")


def gpu_name(results):
    for r in results.values():
        g = r.get("machine", {}).get("gpu")
        if g:
            return g["name"]
    return "none"


def scaling(s, study, results, paper, out, all_results):
    one = {grid_of(r): r for r in by_group(results, "one_gpu").values()}
    rows, eff = [], {}
    for group in ("strong", "weak", "mpi", "large_planes"):
        for rid, r in sorted(by_group(results, group).items()):
            d = r["run"]["decomposition"]
            ranks, g = d["ranks"], grid_of(r)
            halo = d["halo"]["variant"].split("/")[1] + (":" + d["halo"]["tuning"] if d["halo"]["tuning"] != "default" else "")
            per_gpu = f"{r['run']['grid']['nx']}x{r['run']['grid']['ny']}x{r['run']['grid']['nz'] // ranks}"
            if group == "weak":
                base = one.get(per_gpu)
                e = step_ms(base) / step_ms(r) if base else None  # weak: T1(n) / TP(P n)
            else:
                base = one.get(g)
                e = step_ms(base) / (ranks * step_ms(r)) if base else None
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
        s.table(["paper platform", "GPUs", "paper speedup over 1 GPU", "note"],
                [[p["platform"], p["gpus"], p["speedup_over_one_gpu"], p["qualifier"]] for p in paper])
    model = scaling_model.build(results, all_results)
    if model:
        s.p(model["explanation"])
        s.table(model["check_headers"], model["check_rows"])
        s.table(model["table_headers"], model["table_rows"])
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for link, pts in model["curves"].items():
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "-", label=f"model: {link}")
        for (group, halo), pts in sorted(eff.items()):
            for n, e in pts:
                if n == model["grid_points"] and group == "strong":
                    ax.plot([2], [100 * e], "o", label=f"measured: {halo}")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("strong-scaling efficiency (%)")
        ax.set_ylim(0, 105)
        ax.set_title(f"{model['grid']} float: modelled (lines) and measured (points) efficiency", fontsize=10)
        ax.legend(fontsize=5.5, loc="lower left")
        save(fig, out, "fig4_8_model.png")
        s.fig("fig4_8_model.png", "Strong-scaling efficiency: model (lines) and measurements (points)")
    if eff:
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        for (group, halo), pts in sorted(eff.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [100 * p[1] for p in pts], "o-" if group == "strong" else "s--",
                    label=f"{group}, {halo}")
        finish(ax, "grid points", "2-GPU efficiency (%)", "Fig. 4.8/4.9 on this machine: efficiency vs size per halo variant")
        save(fig, out, "fig4_8.png")
        s.fig("fig4_8.png", "Two-GPU efficiency against the one-GPU run, by size and halo variant")


def block_shapes(s, study, results, paper, out, all_results):
    rows = _stage_rows(results)
    shapes = {"8x8": "bx8_by8_sz2", "16x8": "bx16_by8_sz2", "16x16": "bx16_by16_sz2"}
    kernels = [("momentum", "momentum/global_2d_zloop", 1), ("momentum_bc", "velocity_bc/global_2d", 2),
               ("divergence", "divergence/global_2d", 1), ("pressure", "pressure/jacobi_global_2d_zloop", 20),
               ("pressure_bc", "pressure_bc/global_2d", 20), ("correction", "correction/global_2d", 1)]
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
    totals = {sh: sum(t for (k, s2), t in times.items() if s2 == sh) for sh in shapes}
    paper_by = {p["kernel"]: p for p in paper}
    table = []
    for label, variant, calls in kernels:
        row = [label, variant.split("/")[1]]
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
    hdr += ["paper weight % 8x8", "paper 16x8", "paper 16x16"]
    s.table(hdr, table)
    if fallback:
        s.p("* no such block shape for this boundary kernel; its 16x16 time stands in, so every column's weights "
            "are over the same kernels.")
    if times:
        fig, ax = plt.subplots(figsize=(6.5, 3.5))
        labels = [k for k, _, _ in kernels]
        for n, shape in enumerate(shapes):
            ax.bar([i + (n - 1) * 0.27 for i in range(len(labels))], [times.get((k, shape), 0) * 1e6 for k in labels],
                   0.27, label=f"{shape} threads")
        ax.set_xticks(range(len(labels)), labels, fontsize=8)
        finish(ax, "kernel", "time per step (us)", "Table 4.2 here: kernel time per step by block shape", log_x=False)
        save(fig, out, "table4_2.png")
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
    paper_by = {p["kernel"]: p for p in paper}
    stage_to_paper = {"momentum": "momentum", "velocity_bc": "momentum_bc", "divergence": "divergence",
                      "pressure": "pressure", "pressure_bc": "pressure_bc", "correction": "correction"}
    rows = []
    for name, k in sorted(seen.items()):
        stage = name.split("/")[0]
        p = paper_by.get(stage_to_paper.get(stage, ""), {})
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
    near = lambda t: min(rows_by.get(t, []), key=lambda x: abs(x["bytes"] - size), default=None)
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
    lat = [[t, fmt(min(v, key=lambda x: x["bytes"])["median_s"] * 1e6)] for t, v in sorted(rows_by.items())]
    s.table(["transfer", "latency: 8-byte transfer, us"], lat)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for t, v in sorted(rows_by.items()):
        v.sort(key=lambda x: x["bytes"])
        ax.plot([x["bytes"] for x in v], [x["bytes_per_second"] * 1e-9 for x in v], "o-", label=t, markersize=3)
    finish(ax, "message size (bytes)", "GB/s", f"Table A.1 on {r['machine']['gpu']['name'] if r['machine'].get('gpu') else '?'}",
           log_y=True, legend_size=7)
    save(fig, out, "tableA1.png")
    s.fig("tableA1.png", "Bandwidth by message size (bidirectional counts both directions)")


def roofline(s, study, results, paper, out, all_results):
    copy = next((r["machine"]["gpu"]["copy_bandwidth"]["bytes_per_second"] for r in results.values()
                 if r.get("machine", {}).get("gpu", {}).get("copy_bandwidth")), None)
    best = {(variant, res["precision"]): dict(r, _grid=grid_of(res)) for res in results.values()
            for (_, variant, scheme), r in best_rows(res).items() if scheme == "euler"}
    s.table(["variant", "precision", "grid", "best tuning", "GB/s", "% of copy", "flop/byte", "GFLOP/s"],
            [[k[0], k[1], v["_grid"], v["tuning"], fmt(v["bytes_per_second"] * 1e-9),
              fmt(100 * v["fraction_of_copy_bandwidth"]), fmt(v["model_flops"] / v["model_bytes"]),
              fmt(v["flops_per_second"] * 1e-9)] for k, v in sorted(best.items())])
    if copy:
        fig, ax = plt.subplots(figsize=(6.5, 4))
        xs = [0.01, 100]
        ax.plot(xs, [x * copy * 1e-9 for x in xs], "k--", label=f"measured copy bandwidth {copy * 1e-12:.2f} TB/s")
        for (variant, prec), v in sorted(best.items()):
            ax.plot(v["model_flops"] / v["model_bytes"], v["flops_per_second"] * 1e-9,
                    "o" if prec == "float" else "s", label=f"{variant} ({prec})", markersize=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(0.05, 20)
        ax.set_xlabel("arithmetic intensity (modelled flop / modelled byte)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title("Roofline of every GPU stage variant (best tuning)")
        ax.legend(fontsize=5, ncol=2)
        save(fig, out, "roofline.png")
        s.fig("roofline.png", "Each variant's best tuning against the memory roof (the copy bandwidth)")


def regression(s, study, results, paper, out, all_results):
    rows = []
    for r in sorted(results.values(), key=lambda r: r.get("study", {}).get("run_id", "")):
        if r.get("schema") == "nsbench.stages/1":
            rows.append([r["study"]["run_id"], "stage rows", len([x for x in r["rows"] if "median_s" in x]), "-"])
        elif "timing" in r:
            rows.append([r["study"]["run_id"], r["run"]["recipe"], 1, fmt(step_ms(r))])
    s.table(["run", "what", "benchmarks", "ms/step"], rows)
    s.p("The verdicts against the baseline are written by scripts/compare (scripts/gpu-ci's summary), not here.")


BUILDERS = {"cpu_gflops": cpu_gflops, "stage_compare": stage_compare, "recipe_compare": recipe_compare,
            "speedup": speedup, "scaling": scaling, "block_shapes": block_shapes, "registers": registers,
            "bandwidth": bandwidth, "roofline": roofline, "regression": regression}


def finish(ax, xlabel, ylabel, title, log_x=True, log_y=False, legend_size=6):
    """Axes labels, scales, title and legend: the same for every plot of the report."""
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=legend_size)


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- the page

def provenance(results, skipped, expected):
    rows = []
    for rid in sorted(set(results) | set(skipped) | set(expected)):
        if rid in results:
            r = results[rid]
            rows.append([rid, "ran", r.get("timestamp", "?"), r.get("build", {}).get("git_commit", "?")[:10],
                         verdict(r) if "checks" in r else "-"])
        elif rid in skipped:
            k = skipped[rid]
            rows.append([rid, "FAILED" if "exit_code" in k else "skipped", "-", "-",
                         k.get("reason") or (k.get("output_tail", "").strip().splitlines() or ["?"])[-1]])
        else:
            rows.append([rid, "not run yet", "-", "-", "-"])
    return rows


def build_report(results_root, studies_root, machine, out):
    os.makedirs(out, exist_ok=True)
    sections, summary = [], []
    all_results = {}
    studies = [studylib.load_study(p) for p in studylib.find_studies(studies_root, "all")]
    for st in studies:
        res, _ = studylib.load_results(os.path.join(results_root, st["study"], machine))
        all_results[st["study"]] = res
    for st in studies:
        folder = os.path.join(results_root, st["study"], machine)
        results, skipped = studylib.load_results(folder)
        modes = {r.get("study", {}).get("mode") for r in results.values()} - {None}
        expected = {r["id"] for m in (modes or {"quick"}) for r in studylib.expand(st, m)}
        sec = Section(st["study"], f"{st['title']} ({st['reproduces']})")
        paper = read_csv(st)
        p = st.get("paper") or {}
        sec.p(f"Paper hardware: {p.get('hardware', 'n/a')}. Source: {p.get('source', 'n/a')}. "
              f"This machine: {machine}. Baseline: {st['baseline']}.")
        if st.get("notes"):
            sec.p(st["notes"].strip())
        if results:
            mode = ", ".join(sorted(modes)) or "?"
            sec.p(f"Form of the study: {mode} (quick runs take fewer steps; per-step times are what is compared).")
            try:
                BUILDERS[st["report"]](sec, st, results, paper, out, all_results)
            except Exception as e:  # a report bug must not hide the other studies
                sec.p(f"REPORT ERROR in this section: {type(e).__name__}: {e}")
        else:
            sec.p("No results on this machine yet (see the run list below).")
        prov = provenance(results, skipped, expected)
        sec.table(["run", "status", "when", "commit", "check / reason"], prov)
        sections.append(sec)
        passed = sum(1 for x in prov if x[4] == "PASS")
        failed = sum(1 for x in prov if x[4] == "FAIL" or x[1] == "FAILED")
        summary.append([st["study"], st["reproduces"], sum(1 for x in prov if x[1] == "ran"),
                        sum(1 for x in prov if x[1] == "skipped"), passed, failed])
    write_markdown(out, machine, sections, summary)
    write_html(out, machine, sections, summary)
    return os.path.join(out, "index.html")


def write_markdown(out, machine, sections, summary):
    lines = [f"# nsbench study report: {machine}", "",
             f"Generated {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')} from result files only.", ""]
    lines += md_table(["study", "reproduces", "runs", "skipped", "checks passed", "failed"], summary) + [""]
    for s in sections:
        lines += [f"## {s.title}", ""]
        for b in s.blocks:
            if b[0] == "p":
                lines += [b[1], ""]
            elif b[0] == "table":
                lines += md_table(b[1], b[2]) + [""]
            else:
                lines += [f"![{b[2]}]({b[1]})", ""]
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines))


def md_table(headers, rows):
    out = ["| " + " | ".join(str(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "/") for c in r) + " |")
    return out


def write_html(out, machine, sections, summary):
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>nsbench report: {e(machine)}</title>",
             "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
             "table{border-collapse:collapse;margin:.8em 0;font-size:13px}td,th{border:1px solid #bbb;padding:3px 7px}"
             "th{background:#eee}td:nth-child(n+2){text-align:right}img{max-width:100%;border:1px solid #ddd}"
             ".fail{color:#b00;font-weight:bold}.pass{color:#070}</style></head><body>",
             f"<h1>nsbench study report: {e(machine)}</h1>",
             f"<p>Generated {datetime.datetime.utcnow().strftime('%Y-%m-%d %H:%M UTC')} from result files only; "
             "each number comes from a run listed, with its commit and check, under its study.</p>", html_table(
                 ["study", "reproduces", "runs", "skipped", "checks passed", "failed"], summary)]
    for s in sections:
        parts.append(f"<h2 id='{e(s.study)}'>{e(s.title)}</h2>")
        for b in s.blocks:
            if b[0] == "p":
                parts.append(f"<p>{e(b[1])}</p>")
            elif b[0] == "table":
                parts.append(html_table(b[1], b[2]))
            else:
                parts.append(f"<figure><img src='{e(b[1])}' alt='{e(b[2])}'><figcaption>{e(b[2])}</figcaption></figure>")
    parts.append("</body></html>")
    with open(os.path.join(out, "index.html"), "w") as f:
        f.write("\n".join(parts))


def html_table(headers, rows):
    e = html.escape
    out = ["<table><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in headers) + "</tr>"]
    for r in rows:
        cells = []
        for c in r:
            c = str(c)
            cls = " class='fail'" if c in ("FAIL", "FAILED") else " class='pass'" if c == "PASS" else ""
            cells.append(f"<td{cls}>{e(c)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table>"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default="results")
    ap.add_argument("--studies", default="studies")
    ap.add_argument("--machine", default=None, help="machine id (default: this machine's)")
    ap.add_argument("--out", default=None, help="default: <results>/report/<machine>")
    a = ap.parse_args(argv)
    machine = a.machine or studylib.machine_id()
    out = a.out or os.path.join(a.results, "report", machine)
    path = build_report(a.results, a.studies, machine, out)
    print(f"report: {path} (and report.md beside it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
