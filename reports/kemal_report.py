"""Report sections of the Kemal, Davis & Owens (2015) studies (studies/kemal2015/): the multiblock solver's
techniques (Figs. 3-6) and its routines one GPU against one CPU core (Figs. 14-24), each table next to what
the paper states (its figures are plots; only the numbers of its text are in the CSVs).

Every number comes from result files: `run` results (per-call times of each routine in the loop, by section)
and `stages` results (each variant x tuning alone on the stage fixture, with its bytes by the byte model)."""
import report_plots as plots
from common import fmt

ROUTINES = ["lamvis", "deltatp", "stressp", "stresstrb", "flux", "fluxtrb", "smthp", "smthtrb", "conjugatep"]
FIGURE = {"lamvis": 16, "deltatp": 17, "stressp": 18, "stresstrb": 19, "flux": 20, "fluxtrb": 21, "smthp": 22,
          "smthtrb": 23, "conjugatep": 24}


def _grid(r):
    g = r["run"]["grid"] if "run" in r else r["grid"]
    return f"{g['nx']}x{g['ny']}x{g['nz']}"


def _block_nodes(grid):
    n = int(grid.split("x")[0])
    return n * n


def _group(results, group):
    return [r for r in results.values() if r.get("study", {}).get("group") == group]


def _per_call(r, stage):
    """Median seconds per call of a section of a run result (None where it was not timed)."""
    st = r["timing"]["stages"].get(stage)
    return st["per_call"]["median"] if st and st.get("per_call") else None


def _stage_rows(results, group):
    """{(grid, 'stage/variant', tuning): row} of the stage benchmarks of a group."""
    out = {}
    for r in _group(results, group):
        for row in r.get("rows", []):
            if "median_s" in row:
                stage, variant = row["variant"].split("/")[-2:]
                out[(_grid(r), f"{stage}/{variant}", row["tuning"])] = row
    return out


def _ratio(a, b):
    return a / b if a and b else None


def _speedup_plot(out, name, series, ylabel, title):
    """series: {label: [(nodes per block, value)]}."""
    if not any(v for pts in series.values() for _, v in pts):
        return False
    fig, ax = plots.figure(8.5, 4.2)
    for k, (label, pts) in enumerate(sorted(series.items())):
        pts = sorted(p for p in pts if p[1])
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=plots.MARKERS[k % len(plots.MARKERS)],
                    color=plots.COLOURS[k % 10], label=label)
    plots.finish(ax, "nodes per block (the paper's CUDA threads per launch)", ylabel, title)
    plots.save(fig, out, name)
    return True


def kemal_techniques(s, study, results, paper, out, all_results):
    cpu = {_grid(r): r for r in _group(results, "cpu")}
    rows = _stage_rows(results, "stages")
    grids = sorted({k[0] for k in rows} | set(cpu), key=_block_nodes)
    paper_by = {p["figure"]: p for p in paper if p["figure"] != "4"}
    paper4 = {p["quantity"]: p for p in paper if p["figure"] == "4"}

    def t(grid, variant, tuning):
        row = rows.get((grid, variant, tuning))
        return row["median_s"] if row else None

    def t_any(grid, variant):  # a variant without tunings runs as "default"
        return next((r["median_s"] for (g, v, _), r in rows.items() if g == grid and v == variant), None)

    # Fig. 3: coalescing.
    shapes = ["bx32_by4", "bx1_by128", "bx16_by8", "bx64_by2", "bx128_by1", "bx32_by8", "bx64_by4"]
    table, series = [], {}
    for g in grids:
        cpu_t = _per_call(cpu[g], "lamvis") if g in cpu else None
        times = [t(g, "lamvis/global_2d", sh) for sh in shapes]
        table.append([g, fmt(cpu_t * 1e6 if cpu_t else None)] + [fmt(x * 1e6 if x else None) for x in times] +
                     [fmt(_ratio(times[1], times[0])), fmt(_ratio(cpu_t, times[0])), fmt(_ratio(cpu_t, times[1]))])
        for label, x in (("32x4 (coalesced)", times[0]), ("1x128 (not coalesced)", times[1])):
            series.setdefault(label, []).append((_block_nodes(g), _ratio(cpu_t, x)))
    s.p("Fig. 3, coalescing: lamvis per call (8 fluid blocks, one launch each), microseconds, in each block shape.")
    s.table(["grid", "1 CPU core"] + [sh.replace("bx", "").replace("_by", "x") for sh in shapes] +
            ["1x128 / 32x4", "speedup 32x4", "speedup 1x128"], table)
    if "3" in paper_by:
        s.p(f"Paper: 1x128 / 32x4 time {paper_by['3']['value']} or more ({paper_by['3']['qualifier']}).")
    if _speedup_plot(out, "kemal_fig3.png", series, "speedup over one CPU core", "Fig. 3 on this machine: lamvis"):
        s.fig("kemal_fig3.png", "lamvis, one GPU against one CPU core, coalesced and not")

    # Fig. 4: reductions, alone and in the whole loop.
    loops = {(_grid(r), r["run"]["recipe"]): r for r in _group(results, "loop_reduce")}
    table = []
    for g in grids:
        step_cpu = cpu[g]["timing"]["step"]["median"] if g in cpu else None
        tree, host = loops.get((g, "kemal")), loops.get((g, "kemal-host-search"))
        tree_step = tree["timing"]["step"]["median"] if tree else None
        host_step = host["timing"]["step"]["median"] if host else None
        table.append([g] + [fmt(x * 1e6 if x else None) for x in
                            (t(g, "dtmin/tree", "bx256_by1"), t_any(g, "dtmin/host_search"),
                             t(g, "resmax/tree", "bx256_by1"), t_any(g, "resmax/host_search"))] +
                     [fmt(_ratio(step_cpu, tree_step)), fmt(_ratio(step_cpu, host_step)), fmt(_ratio(host_step, tree_step))])
    s.p("Fig. 4, reductions: each alone (microseconds per call: the tree with 256 threads, the copy to the host and "
        "search there), and the whole loop's speedup over one CPU core with either.")
    s.table(["grid", "dtmin tree", "dtmin host", "resmax tree", "resmax host", "loop speedup, tree",
             "loop speedup, host search", "ratio"], table)
    if paper4:
        s.p("Paper (a simple heat solver, densest grid): speedup " +
            ", ".join(f"{p['value']} ({p['quantity'].replace('_', ' ')})" for p in paper4.values()) + ", about 2x apart.")

    # Fig. 5: boundary copies.
    table = []
    for g in grids:
        vals = [t_any(g, v) for v in ("ifsum/whole_arrays", "ifsum/boundary_band", "bc/whole_arrays", "bc/boundary_band")]
        table.append([g] + [fmt(x * 1e6 if x else None) for x in vals] +
                     [fmt(_ratio(vals[0], vals[1])), fmt(_ratio(vals[2], vals[3]))])
    s.p("Fig. 5, boundary copies: the CPU-side routines with their copies, microseconds per call (ifsum: the six "
        "changes; bc: the seven unknowns), whole arrays vs the packed boundary band.")
    s.table(["grid", "ifsum whole", "ifsum band", "bc whole", "bc band", "ifsum whole / band", "bc whole / band"], table)
    if "5" in paper_by:
        s.p(f"Paper: whole / boundary-only copy time about {paper_by['5']['value']} at {paper_by['5']['grid']} "
            "(PCIe 2.0, Fermi).")

    # Sec. IV.D: host memory and streams (the paper gives no number); the kemal loop is loop_reduce's.
    loops.update({(_grid(r), r["run"]["recipe"]): r for r in _group(results, "loop_copies")})
    memories = ["", "_registered", "_pinned", "_pinned_overlap"]
    recipes = ["kemal", "kemal-registered", "kemal-streams"]
    table = []
    for g in grids:
        steps = [loops[(g, rc)]["timing"]["step"]["median"] if (g, rc) in loops else None for rc in recipes]
        table.append([g] + [fmt(t_any(g, f"{st}/boundary_band{m}") * 1e6 if t_any(g, f"{st}/boundary_band{m}") else None)
                            for st in ("ifsum", "bc") for m in memories] +
                     [fmt(x * 1e3 if x else None) for x in steps] + [fmt(_ratio(steps[0], steps[2]))])
    s.p("Sec. IV.D, host memory and streams: the boundary-band routines alone, microseconds per call (pageable and "
        "synchronous; registered in place, synchronous; pinned, asynchronous; pinned, field by field overlapped "
        "with the host's unpacking and packing), and the whole loop's milliseconds per iteration with each.")
    s.table(["grid"] + [f"{st} {m.strip('_') or 'pageable'}" for st in ("ifsum", "bc") for m in memories] +
            [f"loop {rc}" for rc in recipes] + ["kemal / kemal-streams"], table)
    s.p("Paper: no number; pinning alone speeds up synchronous copies, and asynchronous copies on streams give "
        "\"a significant added advantage\" (Sec. IV.D and conclusions).")

    # Fig. 6: scatter.
    scatters = ["atomic_cas", "atomic_fp64", "buffered", "gather"]
    table, series = [], {}
    for g in grids:
        cpu_t = _per_call(cpu[g], "fluxtrb") if g in cpu else None
        times = [t(g, f"fluxtrb/{v}", "bx32_by4") for v in scatters]
        table.append([g, fmt(cpu_t * 1e6 if cpu_t else None)] + [fmt(x * 1e6 if x else None) for x in times] +
                     [fmt(_ratio(cpu_t, x)) for x in times] + [fmt(_ratio(times[0], times[2])), fmt(_ratio(times[1], times[2]))])
        for v, x in zip(scatters, times):
            series.setdefault(v, []).append((_block_nodes(g), _ratio(cpu_t, x)))
    s.p("Fig. 6, the four-corner scatter of fluxtrb, 32x4 blocks, microseconds per call and speedup over one CPU core.")
    s.table(["grid", "1 CPU core"] + scatters + [f"speedup {v}" for v in scatters] +
            ["CAS atomics / buffered", "FP64 atomics / buffered"], table)
    if "6" in paper_by:
        s.p(f"Paper: {paper_by['6']['qualifier']}. The paper's atomics on Fermi were CAS loops (no native FP64 "
            "atomicAdd before sm_60): atomic_cas is that case, atomic_fp64 today's.")
    if _speedup_plot(out, "kemal_fig6.png", series, "speedup over one CPU core", "Fig. 6 on this machine: fluxtrb"):
        s.fig("kemal_fig6.png", "fluxtrb's scatter, one GPU against one CPU core")


def kemal_routines(s, study, results, paper, out, all_results):
    cpu = {_grid(r): r for r in _group(results, "cpu")}
    gpu = {_grid(r): r for r in _group(results, "gpu")}
    grids = sorted(set(cpu) | set(gpu), key=_block_nodes)
    paper_by = {p["routine"]: p for p in paper}
    table, series = [], {}
    for routine in ROUTINES:
        row = [f"{routine} (Fig. {FIGURE[routine]})"]
        for g in grids:
            c = _per_call(cpu[g], routine) if g in cpu else None
            x = _per_call(gpu[g], routine) if g in gpu else None
            row.append(fmt(_ratio(c, x)))
            series.setdefault(routine, []).append((_block_nodes(g), _ratio(c, x)))
        p = paper_by.get(routine)
        row.append(f"{p['speedup_1gpu_vs_1cpu']} ({p['qualifier'].split(':')[0]})" if p else "-")
        table.append(row)
    s.p("Each routine's speedup, one GPU (recipe kemal) over one CPU core, per call in the loop, by grid.")
    s.table(["routine"] + grids + ["paper at 1033^2"], table)
    if _speedup_plot(out, "kemal_fig16_24.png", series, "speedup over one CPU core",
                     "Figs. 16-24 on this machine: each routine"):
        s.fig("kemal_fig16_24.png", "Each routine, one GPU against one CPU core, by nodes per block")

    # Bandwidth at G4 (or the quick grid): the harness's target of >= 70% of the copy bandwidth.
    rows = []
    for r in _group(results, "stages_g4"):
        for row in r.get("rows", []):
            if "median_s" in row:
                rows.append([_grid(r), row["variant"].split("/", 1)[-1], row["tuning"], fmt(row["median_s"] * 1e6),
                             fmt(row["bytes_per_second"] * 1e-9), fmt(100 * row["fraction_of_copy_bandwidth"])])
    if rows:
        s.p("Each variant alone on the stage fixture: achieved bandwidth by its byte model (each field read once and "
            "written once) and its fraction of the measured copy bandwidth (target: >= 70% for the streaming routines).")
        s.table(["grid", "variant", "tuning", "us/call", "GB/s", "% of copy"], rows)


BUILDERS = {"kemal_techniques": kemal_techniques, "kemal_routines": kemal_routines}
