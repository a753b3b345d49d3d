"""Ha, Park & You at p > 1 on one GPU: emulated T(p) with the communication model (notes seed_002 Sec. 6.5).

  T(p) = sum over the local components of a rank's measured time (a V0 run on the rank's slab, Nx x Ny/p x Nz)
       + the slowest virtual rank's ADI-Y and TDMA-C phases without their exchanges (a V2 run on the whole grid,
         rank by rank: sections adi_y/r<r>/<phase>, tdma_c/r<r>/<phase>)
       + the modelled messages: PDD, PPT's all-gather, the y halo (reports/ha2018_comm_model.py), 3 sub-steps a step

Every T(p > 1) here is EMULATED: one GPU ran it; the messages are a model, for this machine's measured peer link
and for the paper's P100 NVLink 1 (assumed). Sections:
  table1_p4_emulated         Table 1 / Fig. 6 at p = 4
  fig5_components_emulated   Fig. 5(a)/(b): speedup, efficiency and share of each component at p = 1, 2, 4
  fig3_v1_transpose_model    Fig. 3: V1's global-transpose share at p = 4 (a V0 run on the z-slab, the transposes'
                             measured local work, the model's links; the all-to-all measured at p = 2)
  fracstep_e2_measured       E(2) MEASURED: V0 on one GPU against V2 on two real y-slab ranks (two GPUs)
"""
import os

import ha2018_comm_model as cm
import report_plots as plots
from common import fmt
from ha2018 import _section_per_step, run_form

REPO_RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "results")
SUBSTEPS = 3
LOCAL = [("RHS", ["rhs"]), ("ADI-X", ["adi_x"]), ("ADI-Z", ["adi_z"]), ("FFT", ["fft"]),
         ("projection", ["divergence", "correct"])]
COMPONENTS = ["RHS", "ADI-X", "ADI-Y", "ADI-Z", "FFT", "TDMA-C", "projection", "y halo"]
PHASES = ["local", "pack", "exchange", "reduced", "correct"]


def links(all_results):
    """This machine's peer link (its own tableA1_bandwidth result, else the committed one that has a peer copy) and
    the paper's, as (label, link)."""
    here = None
    for r in (all_results.get("tableA1_bandwidth") or {}).values():
        here = here or cm.link_from_bandwidth(r)
    label = "this machine's link"
    if not here:  # none measured here: a committed machine's, named, never passed off as this machine's
        here = cm.find_link(REPO_RESULTS)
        label = f"the link measured on {here['path'].split(os.sep)[2]} (none measured here)" if here else label
    out = [(label, here)] if here else []
    return out + [("P100 NVLink 1", cm.P100_NVLINK1)]


def _grid(r):
    g = r["run"]["grid"]
    return g["nx"], g["ny"], g["nz"]


def fracstep_runs(results):
    """(grid, variant, y_ranks) -> result, the fastest of each."""
    out = {}
    for r in results.values():
        run = r.get("run") or {}
        if run.get("solver") != "fracstep" or "timing" not in r:
            continue
        key = (_grid(r), run.get("variant", "V0"), run.get("y_ranks", 1))
        if key not in out or r["timing"]["step"]["median"] < out[key]["timing"]["step"]["median"]:
            out[key] = r
    return out


def forms_used(runs, keys):
    """'V0 4096x256x128: tiled; ...' for the runs of these (grid, variant, y_ranks) keys that exist."""
    return "; ".join(f"{k[1]}{' p = ' + str(k[2]) if k[2] > 1 else ''} {'x'.join(map(str, k[0]))}: {run_form(runs[k])}"
                     for k in keys if k in runs)


def slowest_rank(v2, part, p):
    """(seconds a step, rank, {phase: seconds}) of the virtual rank whose phases of `part` (adi_y, tdma_c) take
    longest, the exchange (a device copy in the emulation) left out: the model replaces it."""
    best = None
    for r in range(p):
        phases = {ph: _section_per_step(v2, f"{part}/r{r}/{ph}") or 0.0 for ph in PHASES}
        local = sum(v for ph, v in phases.items() if ph != "exchange")
        if best is None or local > best[0]:
            best = (local, r, phases)
    return best


def components(runs, grid, p, link):
    """{component: seconds a step} at p ranks, or None if a run is missing. p = 1: the V0 run's sections."""
    nx, ny, nz = grid
    if p == 1:
        v0 = runs.get((grid, "V0", 1))
        if not v0:
            return None
        out = {name: sum(_section_per_step(v0, s) or 0.0 for s in secs) for name, secs in LOCAL}
        out.update({"ADI-Y": _section_per_step(v0, "adi_y") or 0.0, "TDMA-C": _section_per_step(v0, "tdma_c") or 0.0,
                    "y halo": 0.0})
        return out
    slab, v2 = runs.get(((nx, ny // p, nz), "V0", 1)), runs.get((grid, "V2", p))
    if not slab or not v2:
        return None
    out = {name: sum(_section_per_step(slab, s) or 0.0 for s in secs) for name, secs in LOCAL}
    out["ADI-Y"] = slowest_rank(v2, "adi_y", p)[0] + SUBSTEPS * cm.t_pdd(link, nx, nz, p)
    out["TDMA-C"] = slowest_rank(v2, "tdma_c", p)[0] + SUBSTEPS * cm.t_ppt(link, nx, nz, p)
    out["y halo"] = SUBSTEPS * cm.t_y_halo(link, nx, nz, p)
    return out


def comm_seconds(grid, p, link):
    nx, _, nz = grid
    return SUBSTEPS * (cm.t_pdd(link, nx, nz, p) + cm.t_ppt(link, nx, nz, p) + cm.t_y_halo(link, nx, nz, p))


def _cells(grid):
    return grid[0] * grid[1] * grid[2]


def _link_note(s, lk):
    s.p("Links of the model: " + "; ".join(f"{name}: {l['name']}, alpha {fmt(l['alpha_s'] * 1e6)} us, "
                                          f"B {fmt(l['bandwidth_Bps'] / 1e9)} GB/s ({l['source']})" for name, l in lk))


def table1_p4_emulated(s, study, results, paper, out, all_results):
    runs, lk = fracstep_runs(results), links(all_results)
    p = 4
    grids = sorted({k[0] for k in runs if k[1] == "V2" and k[2] == p}, key=lambda g: (_cells(g), g))
    paper_by_grid = {(int(r["nx"]), int(r["ny"]), int(r["nz"])): r for r in paper or []}
    table, curves = [], {name: [] for name, _ in lk}
    for g in sorted(set(grids) | set(paper_by_grid), key=lambda g: (_cells(g), g)):
        row = ["x".join(map(str, g)), fmt(_cells(g) / 1e6)]
        for name, link in lk:
            c = components(runs, g, p, link) if g in grids else None
            t = sum(c.values()) if c else None
            row += [fmt(t), fmt(100 * comm_seconds(g, p, link) / t) if t else "-",
                    fmt(p * t / _cells(g) / SUBSTEPS * 1e9) if t else "-"]
            if t:
                curves[name].append((_cells(g), t))
        pr = paper_by_grid.get(g)
        tp = float(pr["wall_clock_s_per_step"]) if pr else None
        row += [fmt(tp), fmt(p * tp / _cells(g) / SUBSTEPS * 1e9) if tp else "-"]
        slab, v2 = runs.get(((g[0], g[1] // p, g[2]), "V0", 1)), runs.get((g, "V2", p))
        row.append(f"{run_form(slab)} / {run_form(v2)}" if slab and v2 else "-")
        table.append(row)
    heads = ["grid (cells)", "M cells"]
    for name, _ in lk:
        heads += [f"here, EMULATED p = 4 ({name}): s/step", "of which messages (model) %", "GPU-ns/cell/sub-step"]
    s.table(heads + ["paper: s/step (4 x P100)", "paper: GPU-ns/cell/sub-step", "runs used: slab / V2 (the fastest of each)"],
            table)
    _link_note(s, lk)
    s.p("EMULATED: one GPU ran every rank. A rank's local work is a V0 run on its slab (Nx x Ny/4 x Nz); ADI-Y and "
        "TDMA-C are the slowest virtual rank's phases of a V2 run on the whole grid, rank by rank; the messages (PDD, "
        "PPT's all-gather of 8 words a (kx, kz) system over Nx (Nz/2 + 1) systems, the y halo of 7 fields) are the "
        "model (reports/ha2018_comm_model.py), not measured. GPU-ns/cell/sub-step = 4 GPUs x seconds / cells / 3: the "
        "number to compare across hardware (the P100 has about 0.73 TB/s, notes Sec. 6.5).")
    if any(curves.values()):
        fig, ax = plots.figure(7.5, 4.0)
        for name, pts in curves.items():
            ax.plot([c / 1e6 for c, _ in pts], [t for _, t in pts], "-o", label=f"here, emulated p = 4, {name}")
        there = sorted((_cells(g), float(r["wall_clock_s_per_step"])) for g, r in paper_by_grid.items())
        ax.plot([c / 1e6 for c, _ in there], [t for _, t in there], "--s", label="paper, 4 x P100")
        plots.finish(ax, "M cells", "seconds per step", "Table 1 / Fig. 6 at p = 4 (emulated)", log_x=False)
        plots.save(fig, out, "fracstep_table1_p4_emulated.png")
        s.fig("fracstep_table1_p4_emulated.png", "Seconds per step at p = 4: emulated here (two links) and the paper's")


def paper_values(paper):
    """item -> value of a paper CSV of quoted numbers (studies/ha2018/paper/fig3.csv, fig5.csv)."""
    return {r["item"]: float(r["value"]) for r in paper or []}


def fig5_components_emulated(s, study, results, paper, out, all_results):
    runs, lk, quoted = fracstep_runs(results), links(all_results), paper_values(paper)
    grids = sorted({k[0] for k in runs if k[1] == "V0" and (k[0], "V2", 4) in runs}, key=_cells)
    if not grids:
        s.p("No complete set of runs (V0 on the grid, V0 on its y-slabs, V2 at p = 2 and 4) here.")
        return
    g = grids[-1]
    nx, _, nz = g
    s.p(f"Grid {'x'.join(map(str, g))} ({fmt(_cells(g) / 1e6)} M cells; the paper's is 4096x256x128). p = 1 measured "
        "(V0); p = 2 and 4 EMULATED (one GPU; messages by the model). Runs used, the fastest of each: " +
        forms_used(runs, [(g, "V0", 1), ((nx, g[1] // 2, nz), "V0", 1), ((nx, g[1] // 4, nz), "V0", 1), (g, "V2", 2),
                          (g, "V2", 4)]) + ".")
    verdicts = []
    for name, link in lk:
        t = {p: components(runs, g, p, link) for p in (1, 2, 4)}
        if not all(t.values()):
            continue
        rows = []
        for c in COMPONENTS + ["whole step"]:
            v = {p: (sum(t[p].values()) if c == "whole step" else t[p][c]) for p in t}
            sp = {p: v[1] / v[p] if v[p] else None for p in (2, 4)}
            rows.append([c] + [fmt(v[p] * 1e3) for p in (1, 2, 4)] + [fmt(sp[2]), fmt(sp[4]),
                                                                       fmt(sp[4] / 4 if sp[4] else None),
                                                                       fmt(100 * v[4] / sum(t[4].values()))])
        s.p(f"With {name} ({link['name']}):")
        s.table(["component", "ms/step p = 1", "p = 2", "p = 4", "speedup p = 2", "speedup p = 4", "efficiency p = 4",
                 "share at p = 4 (%)"], rows)
        total4 = sum(t[4].values())
        e4 = sum(t[1].values()) / (4 * total4)
        allgather = SUBSTEPS * cm.t_ppt(link, nx, nz, 4)
        verdicts.append([name, fmt(e4), fmt(quoted.get("whole_code_parallel_efficiency")),
                         fmt(100 * t[4]["TDMA-C"] / total4), fmt(100 * quoted.get("tdma_c_share_of_total", 0)),
                         fmt(100 * allgather / t[4]["TDMA-C"]), "> " + fmt(100 * quoted.get("allgather_share_of_tdma_c", 0)),
                         fmt(100 * allgather / total4), fmt(100 * quoted.get("allgather_share_of_total", 0))])
        if name == lk[0][0]:
            _plot_speedup(out, s, t)
    s.table(["link", "E(4) here (emulated)", "paper E(4)", "TDMA-C share here %", "paper %",
             "all-gather % of TDMA-C here", "paper", "all-gather % of step here", "paper"], verdicts)
    _link_note(s, lk)
    v2 = runs[(g, "V2", 4)]
    rows = []
    for part in ("adi_y", "tdma_c"):
        total, rank, phases = slowest_rank(v2, part, 4)
        rows.append([part, str(rank)] + [fmt(phases[ph] * 1e3) for ph in PHASES])
    s.p("The slowest virtual rank's phases at p = 4 (ms a step, measured in the V2 run; its exchange is a device "
        "copy, shown but replaced by the model above):")
    s.table(["part", "slowest rank", *PHASES], rows)


def _plot_speedup(out, s, t):
    fig, ax = plots.figure(7.0, 4.0)
    for c in COMPONENTS[:-1] + ["whole step"]:
        v = {p: (sum(t[p].values()) if c == "whole step" else t[p][c]) for p in t}
        if v[1] > 0 and all(v[p] > 0 for p in (2, 4)):
            ax.plot([1, 2, 4], [v[1] / v[p] for p in (1, 2, 4)], "-o", label=c)
    ax.plot([1, 4], [1, 4], "k:", label="ideal")
    plots.finish(ax, "ranks p", "speedup T(1) / T(p)", "Fig. 5(a), emulated p = 2, 4", log_x=False)
    plots.save(fig, out, "fracstep_fig5_speedup.png")
    s.fig("fracstep_fig5_speedup.png", "Speedup of each component (this machine's link; p > 1 emulated)")


TRANSPOSE_KINDS = ("transpose_zx", "transpose_xz")  # M1, P1 (z-slabs -> x-slabs); M2, P4 (back)
# A sub-step's global transposes of V1 (notes Sec. 1.8): M1 and M2 of u, v, w (real), P1 and P4 of the spectral
# field (complex): each direction 3 real fields and 1 complex one.
TRANSPOSES_PER_SUBSTEP = (("", 3), ("_complex", 1))


def transpose_rows(results):
    """(variant name, kind, workload, grid) -> the newest `nsbench stages` result's row of fracstep/transpose_zx, _xz
    (of its tunings the fastest)."""
    out, when = {}, {}
    for r in results.values():
        if not str(r.get("schema", "")).startswith("nsbench.stages") or r.get("precision", "double") != "double":
            continue
        g = r.get("grid") or {}
        grid = (g.get("nx"), g.get("ny"), g.get("nz"))
        for row in r.get("rows", []):
            if row.get("solver") != "fracstep" or row.get("stage") not in TRANSPOSE_KINDS or "error" in row:
                continue
            key = (row["variant"].split("/")[-1], row["stage"], row.get("scheme", ""), grid)
            stamp = r.get("timestamp", "")
            newer = key not in out or stamp > when[key]
            faster = key in out and stamp == when[key] and row.get("median_s", 0) < out[key].get("median_s", 0)
            if newer or faster:  # the newest result's fastest tuning
                out[key], when[key] = row, stamp
    return out


def _phase(row, name):
    return ((row.get("phases") or {}).get(name) or {}).get("median_s", 0.0)


def transpose_local(trows, grid, p):
    """(momentum, Poisson) seconds a step of a rank's local transpose work (pack + unpack) at p ranks, measured:
    the p virtual ranks of `pack_copy_unpack` on a field of `grid` (a z-slab's size) together move what one
    rank's pass over its z-slab of the p-times-deeper grid moves. None if a row is missing."""
    parts = []
    for suffix, count in TRANSPOSES_PER_SUBSTEP:
        t = 0.0
        for kind in TRANSPOSE_KINDS:
            row = trows.get(("pack_copy_unpack", kind, f"p{p}{suffix}", grid))
            if not row:
                return None
            t += count * (_phase(row, "pack") + _phase(row, "unpack"))
        parts.append(SUBSTEPS * t)
    return tuple(parts)


def fig3_v1_transpose_model(s, study, results, paper, out, all_results):
    runs, lk, trows = fracstep_runs(results), links(all_results), transpose_rows(results)
    share = paper_values(paper).get("global_transpose_share_of_step")
    p = 4
    rows = []
    for (g, variant, ranks), r in sorted(runs.items(), key=lambda kv: _cells(kv[0][0])):
        if variant != "V0" or ranks != 1:
            continue
        full = (g[0], g[1], g[2] * p)  # this run is one z-slab of it
        compute = r["timing"]["step"]["median"]
        local = transpose_local(trows, g, p)
        loc = sum(local) if local else 0.0
        for name, link in lk:
            tr = SUBSTEPS * cm.t_transposes(link, _cells(full), p)
            momentum = 6 / cm.V1_FIELD_TRANSPOSES * tr + (local[0] if local else 0.0)
            total = tr + loc + compute
            rows.append(["x".join(map(str, full)), "x".join(map(str, g)), name, fmt(compute * 1e3),
                         fmt(loc * 1e3) if local else "not run", fmt(tr * 1e3), fmt(100 * (tr + loc) / total),
                         fmt(100 * loc / total) if local else "-", fmt(100 * tr / total), fmt(100 * momentum / total),
                         fmt(100 * (tr + loc - momentum) / total), fmt(100 * share) if share else "-"])
    if not rows:
        s.p("No V0 z-slab runs here.")
        return
    s.table(["V1 grid (p = 4)", "a rank's z-slab", "link", "compute ms/step (MEASURED, V0 on the z-slab)",
             "local transposes ms/step (MEASURED)", "all-to-all ms/step (MODEL)", "transpose share %",
             "of which local %", "of which links %", "of which ADI %", "of which Poisson %", "paper %"], rows)
    _link_note(s, lk)
    s.p("V1 as a whole solver is not built. MEASURED: a rank's compute (a V0 run on its z-slab, Nx x Ny x Nz/4: whole y "
        "lines, so ADI-Y and TDMA-C are local Thomas solves) and its transposes' local work (fracstep/transpose_zx and "
        "transpose_xz, variant pack_copy_unpack: the pack of M1, P1 and the unpack of M2, P4, each rank's own block "
        "included, on a field of the z-slab's size split over 4 virtual ranks of one GPU, whose passes together move "
        "what one rank's pass over its slab moves). MODEL: the all-to-all's messages over the link, (p - 1) of N e / p^2 "
        "a rank a field (reports/ha2018_comm_model.py). A sub-step transposes u, v, w there and back (M1, M2) and the "
        "complex spectral field there and back (P1, P4), 3 sub-steps a step. The paper's 46% is 4 P100s on 675M points "
        "(notes Sec. 4.3; 2048x256x1280 cells is one grid of that size).")
    transpose_p2_measured(s, trows, lk)


def transpose_p2_measured(s, trows, lk):
    """The real all-to-all at p = 2 (ranks_peer: two GPUs, peer pulls; rank 0's section) against the model."""
    name, here = next(((n, link) for n, link in lk if n != "P100 NVLink 1"), ("no measured link", None))
    rows = []
    def order(kv):
        variant, kind, workload, grid = kv[0]
        return _cells(grid), grid, TRANSPOSE_KINDS.index(kind), workload

    for (variant, kind, workload, grid), row in sorted(trows.items(), key=order):
        if variant != "ranks_peer" or not workload.startswith("p2") or "phases" not in row:
            continue
        words = 2 if workload.endswith("complex") else 1
        model = cm.message_time(here, _cells(grid) * words * cm.DOUBLE / 4) if here else None
        got = _phase(row, "all_to_all")
        rows.append(["x".join(map(str, grid)), kind, workload, fmt(got * 1e3), fmt(model * 1e3) if model else "-",
                     fmt(got / model) if model else "-", fmt((_phase(row, "pack") + _phase(row, "unpack")) * 1e3)])
    if rows:
        s.p("The all-to-all MEASURED at p = 2 (fracstep/transpose_*/ranks_peer: two GPU ranks, each pulls the other's "
            "block by a peer copy; rank 0's section, from the moment both ranks' blocks are ready) against the model's "
            f"message for {name} (one block of N e / 4 bytes):")
        s.table(["field (points)", "transpose", "workload", "all-to-all ms (measured)", "model ms", "measured / model",
                 "rank 0's local pass ms"], rows)


# The components of a measured E(2): a stage, or one of the solver's own sections (fft, tdma_c: the Poisson solve's;
# ghost_rows: a y-slab rank's ghost-row exchanges, the y halo, none at p = 1).
E2_COMPONENTS = [("RHS", ["rhs"]), ("ADI-Z", ["adi_z"]), ("ADI-Y", ["adi_y"]), ("ADI-X", ["adi_x"]), ("FFT", ["fft"]),
                 ("TDMA-C", ["tdma_c"]), ("projection", ["divergence", "correct"]), ("y halo", ["ghost_rows"])]


def _newest(into, key, r):
    """The newest run of a key (repeats are kept beside each other; the report shows the latest, not the best)."""
    if key not in into or r.get("timestamp", "") > into[key].get("timestamp", ""):
        into[key] = r


def _rank_section(r, rank, name):
    """Seconds a step rank `rank` spent in a section: its own median (timing.per_rank_section_median), else the
    slowest rank's sections (timing.sections, which hold that rank's only)."""
    per = r["timing"].get("per_rank_section_median") or []
    if rank < len(per) and name in per[rank]:
        return per[rank][name]
    return _section_per_step(r, name)


def fracstep_e2_measured(s, study, results, paper, out, all_results):
    """E(2) = T(V0, p = 1) / (2 T(V2, p = 2)), both measured: V0 on one GPU, V2 on two real y-slab ranks; a pair
    a grid and recipe (the same kernels on both sides) and V2's form of the split y solves' local phase
    (run.split_factors: per_line, the paper's Algorithm 1 and the form of runs that do not record it, or shared:
    v, w, c' set up once, ADI-Y's and TDMA-C's), each form its own row."""
    v0, v2 = {}, {}
    for r in results.values():
        run = r.get("run") or {}
        if run.get("solver") != "fracstep" or "timing" not in r:
            continue
        key = (_grid(r), run.get("recipe", ""))
        if run.get("variant", "V0") == "V0":
            _newest(v0, key, r)
        elif run.get("real_ranks") == 2 and not run.get("emulated"):
            v1 = run.get("variant") == "V1"  # z-slabs: no split y solves, peer copies only
            _newest(v2, key + ("-" if v1 else run.get("split_factors", "per_line"), run.get("gpu_messages", "peer"),
                               run.get("variant", "V2")), r)
    pairs = sorted((k for k in v2 if k[:2] in v0), key=lambda k: (_cells(k[0]), k[4] == "V1") + tuple(k[1:]))  # V2's first
    if not pairs:
        s.p("No pair of runs (V0 on one GPU and V2 on 2 real ranks on the same grid with the same recipe) here.")
        return
    rows = []
    for key in pairs:
        t1, t2 = v0[key[:2]]["timing"]["step"]["median"], v2[key]["timing"]["step"]["median"]
        shared = ((v2[key]["run"].get("decomposition") or {}).get("oversubscribed"))
        e2 = t1 / (2 * t2)
        verdict = "one GPU shared: not a 2-GPU time" if shared else ("reached" if e2 >= 0.9 else "not reached")
        form = _e2_form(key)
        rows.append(["x".join(map(str, key[0])), key[1], form, fmt(_cells(key[0]) / 1e6), fmt(t1 * 1e3), fmt(t2 * 1e3),
                     fmt(t1 / t2), fmt(e2), verdict])
    s.table(["grid", "recipe", "p = 2: V2's split factors, or V1", "M cells", "V0, 1 GPU: ms/step", "p = 2, 2 GPUs: ms/step", "speedup",
             "E(2)", "target E(2) >= 0.9"], rows)
    largest = max(_cells(k[0]) for k in pairs)
    for key in [k for k in pairs if _cells(k[0]) == largest]:
        e2_components(s, key, v0[key[:2]], v2[key])
    s.p("MEASURED, both: V2's ranks are threads of one process, one GPU each; their ghost rows and the split y solves' "
        "messages are peer copies unless the row says NCCL (PDD's neighbour messages for ADI-Y, PPT's all-gather for TDMA-C), the null-space "
        "line's rows gathered through the host. V2 does more work than V0 (PDD and PPT's extra solves), so E(2) counts "
        "the method's cost as well as the messages'. V2's split factors: per_line, the paper's Algorithm 1 (each line's "
        "local phase of ADI-Y and TDMA-C solves for x~, v and w and forms c'); shared, v, w and c' set up once (ADI-Y: "
        "a short line a component and sub-step, every y line of a component having the same matrix; TDMA-C: each "
        "(kx, kz) line's, shared by its real and imaginary parts), the local phase a sweep of x~ alone (notes [A] of "
        "Sec. 6.4 asks for both). V1 (the paper's baseline): z-slab ranks, ADI-Z and the Poisson solve's z transform "
        "reached through all-to-all transposes (peer copies of the blocks that cross between the GPUs), the z ghost "
        "planes exchanged where V2 exchanges its y ghost rows; no extra solves, so its E(2) is the messages' cost alone.")


def _e2_form(key):
    """A p = 2 row's form: V1, or V2's split factors with its transport and variant."""
    if key[4] == "V1":
        return "V1: z-slabs, all-to-all transposes"
    return key[2] + ("" if key[3] == "peer" else f", messages by {key[3].upper()}") + ("" if key[4] == "V2" else f", {key[4]}")


def e2_components(s, key, a, b):
    """One pair's components (each one's E(2)) and each rank's phases of the split y solves at p = 2."""
    comp = []
    for name, secs in E2_COMPONENTS:
        c1 = sum(_section_per_step(a, x) or 0.0 for x in secs)
        c2 = sum(_section_per_step(b, x) or 0.0 for x in secs)
        comp.append([name, fmt(c1 * 1e3), fmt(c2 * 1e3), fmt(c1 / (2 * c2)) if c1 and c2 else "-"])
    rest = [r["timing"]["step"]["median"] - sum(sum(_section_per_step(r, x) or 0.0 for x in secs)
                                                 for _, secs in E2_COMPONENTS) for r in (a, b)]
    comp.append(["rest of the step", fmt(rest[0] * 1e3), fmt(rest[1] * 1e3), "-"])
    if key[4] == "V1":  # the halo is z's; the transposes are inside ADI-Z and FFT
        comp = [["z halo"] + c[1:] if c[0] == "y halo" else c for c in comp]
        a2a = _section_per_step(b, "all_to_all")
        if a2a is not None:
            comp.append(["of which all-to-all (in ADI-Z and FFT)", "-", fmt(a2a * 1e3), "-"])
        what = "V1 (z-slabs, all-to-all transposes)"
    else:
        what = "V2's split factors " + _e2_form(key)
    s.p(f"Each component on {'x'.join(map(str, key[0]))}, recipe {key[1]}, {what}: ms a step (medians of its section; at p = 2 "
        "the slowest rank's, ADI-Y and TDMA-C with their messages), E(2) of the component = its p = 1 time / (2 x its "
        "p = 2 time):")
    s.table(["component", "V0, 1 GPU: ms/step", "p = 2, 2 GPUs: ms/step", "E(2)"], comp)
    rows = []
    for part in ("adi_y", "tdma_c"):
        for r in range(2):
            phases = [_rank_section(b, r, f"{part}/r{r}/{ph}") for ph in PHASES]
            if any(v is not None for v in phases):
                rows.append([part, str(r)] + [fmt(v * 1e3) if v is not None else "-" for v in phases])
    if rows:
        s.p("Each rank's phases of the split y solves at p = 2 (ms a step; the exchange is the measured peer-copy "
            "message, waits for the other rank included):")
        s.table(["part", "rank", *PHASES], rows)


BUILDERS = {"table1_p4_emulated": table1_p4_emulated, "fig5_components_emulated": fig5_components_emulated,
            "fig3_v1_transpose_model": fig3_v1_transpose_model, "fracstep_e2_measured": fracstep_e2_measured}
