"""Report sections of the Kemal, Davis & Owens (2015) studies (studies/kemal2015/): the multiblock solver's
techniques (Figs. 3-6), its routines one GPU against one CPU core (Figs. 14-24) and the code over ranks
(Figs. 25-34), each table next to what
the paper states (its figures are plots; only the numbers of its text are in the CSVs).

Every number comes from result files: `run` results (per-call times of each routine in the loop, by section)
and `stages` results (each variant x tuning alone on the stage fixture, with its bytes by the byte model)."""
import common
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
    for g in sorted(set(grids) | {lg for lg, _ in loops}, key=_block_nodes):  # a loop-only grid (G4) too
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
    cpu_all = {_grid(r): r for r in _group(results, "cpu_all")}
    gpu = {_grid(r): r for r in _group(results, "gpu")}
    cores = next((r["run"]["threads"] for r in cpu_all.values()), None)
    grids = sorted(set(cpu) | set(gpu), key=_block_nodes)
    paper_by = {p["routine"]: p for p in paper}
    table, series = [], {}
    for routine in ROUTINES:
        p = paper_by.get(routine)
        claim = f"{p['speedup_1gpu_vs_1cpu']} ({p['qualifier'].split(':')[0]})" if p else "-"
        for g in grids:
            c = _per_call(cpu[g], routine) if g in cpu else None
            x = _per_call(gpu[g], routine) if g in gpu else None
            series.setdefault(routine, []).append((_block_nodes(g), _ratio(c, x)))
            cells = common.speedup_cells(gpu[g], cpu.get(g), cpu_all.get(g), stage=routine, scale=1e6) \
                if g in gpu else ["-"] * len(common.speedup_headers(cores))
            table.append([f"{routine} (Fig. {FIGURE[routine]})", g, *cells, claim])
    s.p("Each routine, one GPU (recipe kemal) against one CPU core (the paper's baseline) and against all cores "
        "(cpu_omp, the group cpu_all), per call in the loop, by grid.")
    s.table(["routine", "grid", *common.speedup_headers(cores, "us/call"),
             "paper at 1033^2: 1 GPU over 1 core, as the paper measured"], table)
    s.p(common.SPEEDUP_NOTE)
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


# The paper's block-to-rank assignment (mesh.cpp mb_rank_blocks): floor(13/P) consecutive blocks a rank, the
# remainder to the last; blocks 0-7 fluid, 8-12 solid. The model below needs the busiest rank's share.
def _rank_blocks(p):
    per = 13 // p
    out = [[] for _ in range(p)]
    for b in range(13):
        out[min(b // per, p - 1)].append(b)
    return out


def _busiest_share(p, routine):
    """The largest fraction of a routine's blocks on one rank (conjugatep: the 5 solid, update: all, else 8 fluid)."""
    kind = {"conjugatep": lambda b: b >= 8, "update": lambda b: True, "bc": lambda b: True}.get(routine, lambda b: b < 8)
    total = sum(1 for b in range(13) if kind(b))
    return max(sum(1 for b in r if kind(b)) for r in _rank_blocks(p)) / total


def _ranks_of(r):
    return r["run"]["decomposition"]["ranks"]


def kemal_ranks(s, study, results, paper, out, all_results):
    cpu1 = {_grid(r): r for r in _group(results, "cpu1")}
    cpu = {(_grid(r), _ranks_of(r)): r for r in _group(results, "cpu_ranks")}
    cpu.update({(g, 1): r for g, r in cpu1.items()})
    gpu = {(_grid(r), _ranks_of(r)): r for g in ("gpu_ranks", "gpu_ranks_oversubscribed")
           for r in _group(results, g)}
    mpi = {(_grid(r), _ranks_of(r)): r for r in _group(results, "gpu_mpi")}
    grids = sorted({k[0] for k in gpu} | {k[0] for k in cpu} | set(cpu1), key=_block_nodes)
    g4 = grids[-1] if grids else None
    ps = sorted({p for _, p in gpu} | {p for _, p in cpu} | {4, 5, 6, 7, 8})
    paper_by = {(p["comparison"], int(p["ranks"])): p for p in paper}

    def label(r, p):
        if r is None:
            return f"{p} GPU ranks"
        over = r["run"]["decomposition"].get("oversubscribed")
        gpus = len({d.get("device") for d in r["run"]["decomposition"].get("slabs", [])})
        return f"{p} GPU ranks" + (f" (oversubscribed on {gpus} GPUs)" if over else "")

    # The model: the one-GPU run's per-call times, each routine scaled by the busiest rank's share of its
    # blocks; the host routines as on one rank (every rank runs them on all the bands); exchanges left out.
    def model_step(grid, p):
        one = gpu.get((grid, 1))
        if not one:
            return None
        total = 0.0
        for name, st in one["timing"]["stages"].items():
            per = st.get("per_call", {}).get("median")
            if per is None:
                continue
            total += per * st.get("calls_per_step", 1) * (1 if name in ("ifsum", "bc") else _busiest_share(p, name))
        return total

    # Figs. 25-32: per routine at the largest grid.
    if g4:
        table = []
        for routine in [r for r in ROUTINES if r != "conjugatep"]:
            row = [f"{routine} (Fig. {25 + ROUTINES.index(routine)})"]
            t1 = _per_call(cpu1[g4], routine) if g4 in cpu1 else None
            for p in ps:
                x = _per_call(gpu[(g4, p)], routine) if (g4, p) in gpu else None
                c = _per_call(cpu[(g4, p)], routine) if (g4, p) in cpu else None
                row += [fmt(_ratio(c, x)), fmt(_ratio(t1, x))]
            table.append(row)
        s.p(f"Figs. 25-32 at {g4}: each routine's speedup, P GPU ranks (recipe kemal) over P CPU ranks and over one CPU "
            "rank, per call on the slowest rank (copies and exchanges excluded, as in the paper). Oversubscribed P "
            "share GPUs: their times are an upper bound. A blank: not run here.")
        s.table(["routine"] + [f"P={p} {w}" for p in ps for w in ("vs P CPU", "vs 1 CPU")], table)
        s.p("Paper: vs P CPU ranks roughly constant for P = 4-8; vs one CPU rank about the same for 4-7 and higher at 8 "
            "(one fluid block a rank). The busiest rank holds 3, 2, 2, 2, 1 fluid blocks at P = 4..8.")

    # Fig. 33: per-rank balance.
    table = []
    for (g, p), r in sorted(gpu.items(), key=lambda kv: (_block_nodes(kv[0][0]), kv[0][1])):
        if p < 2:
            continue
        c = cpu.get((g, p))
        gpu_ranks = r["timing"].get("per_rank_step_median") or [None] * p  # blanks where a result has no per-rank times
        cpu_ranks = (c["timing"].get("per_rank_step_median") if c else None) or [None] * p
        for k in range(p):
            blocks = _rank_blocks(p)[k]
            fluid = sum(1 for b in blocks if b < 8)
            table.append([g, label(r, p), k, f"({fluid}, {len(blocks) - fluid})", fmt(cpu_ranks[k] * 1e3 if cpu_ranks[k] else None),
                          fmt(gpu_ranks[k] * 1e3 if gpu_ranks[k] else None), fmt(_ratio(cpu_ranks[k], gpu_ranks[k]))])
    s.p("Fig. 33, balance: each rank's median iteration time, milliseconds, P CPU ranks and P GPU ranks, with its "
        "(fluid, solid) blocks.")
    s.table(["grid", "GPU ranks", "rank", "blocks", "CPU rank ms", "GPU rank ms", "CPU / GPU"], table)
    s.p("Paper: at P = 8 the rank with 1 fluid + 5 solid blocks is not distinguishable from the others (conjugatep "
        "is cheap); the CPU / GPU bars about 6 apart.")

    # Fig. 34: the whole loop.
    table = []
    for g in grids:
        t1 = cpu1[g]["timing"]["step"]["median"] if g in cpu1 else None
        for p in ps:
            r = gpu.get((g, p))
            c = cpu.get((g, p))
            x = r["timing"]["step"]["median"] if r else None
            cp = c["timing"]["step"]["median"] if c else None
            m = model_step(g, p) if p > 1 else None
            if not (x or cp or m):
                continue
            table.append([g, label(r, p), fmt(t1 * 1e3 if t1 else None), fmt(cp * 1e3 if cp else None),
                          fmt(x * 1e3 if x else None), fmt(_ratio(cp, x)), fmt(_ratio(t1, x)),
                          fmt(m * 1e3 if m else None), fmt(_ratio(cp, m)), fmt(_ratio(t1, m))])
    s.p("Fig. 34, the whole iteration loop (with its copies, host routines and exchanges), milliseconds per "
        "iteration: one CPU rank, P CPU ranks (MPI), P GPU ranks, and the speedups; then the MODEL of P GPU ranks "
        "(each on its own GPU) from the one-GPU run: its per-call times scaled by the busiest rank's share of each "
        "routine's blocks, the host routines as on one rank, exchanges left out.")
    s.table(["grid", "GPU ranks", "1 CPU ms", "P CPU ms", "P GPU ms", "vs P CPU", "vs 1 CPU", "model ms",
             "model vs P CPU", "model vs 1 CPU"], table)
    for key in (("gpu_ranks_vs_same_cpu_ranks", 8), ("gpu_ranks_vs_1_cpu_rank", 8)):
        if key in paper_by:
            p = paper_by[key]
            s.p(f"Paper, {p['grid']}, {p['ranks']} ranks, {key[0].replace('_', ' ')}: {p['speedup']} ({p['qualifier']}).")
    if mpi:
        table = [[g, p, fmt(r["timing"]["step"]["median"] * 1e3),
                  fmt(gpu[(g, p)]["timing"]["step"]["median"] * 1e3 if (g, p) in gpu else None)] for (g, p), r in sorted(mpi.items())]
        s.p("GPU ranks as MPI processes (the paper's way) against host threads, milliseconds per iteration.")
        s.table(["grid", "ranks", "MPI ms", "threads ms"], table)
    _ranks_options(s, results)


def _exchange_of(r):
    """The run's exchange between ranks (neighbours_p2p: the P2P band variants, recipe kemal-p2p) and the stand-in's
    levels (results before these options: allgather, 0)."""
    return (r["checks"].get("exchange", {}).get("kind") or r["run"].get("exchange", "allgather"),
            r["run"].get("multigrid_levels", 0))


def _host_routines_slowest(r):
    """ifsum + bc (the host routines, the exchange inside them) per iteration on the slowest rank, seconds."""
    per_rank = r["timing"].get("per_rank_section_median") or []
    return max((k.get("ifsum", 0) + k.get("bc", 0) for k in per_rank), default=None) or None


def _ranks_options(s, results):
    """The exchange (allgather vs neighbour-only messages) and the multigrid stand-in over ranks."""
    runs = {}
    for r in results.values():
        group = r.get("study", {}).get("group", "")
        if group == "gpu_mpi" or "run" not in r:
            continue
        kind = "GPU" if r["run"].get("backend") == "cuda" else "CPU"
        runs[(_grid(r), kind, _ranks_of(r), *_exchange_of(r))] = r
    table = []
    for (g, kind, p, exchange, levels), x in sorted(runs.items(), key=lambda kv: (_block_nodes(kv[0][0]), kv[0][1:3])):
        a = runs.get((g, kind, p, "allgather", 0))
        if exchange == "allgather" or levels or not a:
            continue
        row = [g, kind, p, exchange]
        for r in (a, x):
            e = r["checks"].get("exchange", {})
            row += [fmt(r["timing"]["step"]["median"] * 1e3), fmt((_host_routines_slowest(r) or 0) * 1e3 or None),
                    fmt(e.get("bytes_per_iteration")), fmt(e.get("messages_per_iteration"))]
        table.append(row + [fmt(_ratio(a["timing"]["step"]["median"], x["timing"]["step"]["median"]))])
    if table:  # results from before these options have neither table
        s.p("The exchange between ranks: every band to every rank (allgather, the default) against the paper's messages "
            "between neighbouring blocks only (--case-param exchange=neighbours: point to point, a rank waits only on "
            "the ranks it receives from), and neighbours_p2p (NOT IN THE PAPER, recipe kemal-p2p: the neighbours' "
            "packed bands pulled GPU to GPU, then down; bytes: those pulled, messages: the peer copies). Per "
            "iteration: the loop (ms), ifsum + bc on the slowest rank (ms; the exchange is inside them), the bytes "
            "every rank's data delivered to other ranks and the messages. GPU ranks: host threads (oversubscribed "
            "past 2 GPUs); CPU ranks: MPI processes.")
        s.table(["grid", "ranks", "P", "exchange", "allgather ms", "allgather ifsum+bc ms", "allgather bytes",
                 "allgather messages", "exchange ms", "exchange ifsum+bc ms", "exchange bytes", "exchange messages",
                 "allgather / exchange"], table)
    table = []
    for (g, kind, p, exchange, levels), x in sorted(runs.items(), key=lambda kv: (_block_nodes(kv[0][0]), kv[0][1:3])):
        single = runs.get((g, kind, p, exchange, 0))
        if not levels or not single:
            continue
        t, t1 = x["timing"]["step"]["median"], single["timing"]["step"]["median"]
        table.append([g, kind, p, levels, fmt(t1 * 1e3), fmt(t * 1e3), fmt((_per_call(x, "multigrid") or 0) * 1e3 or None),
                      fmt(_ratio(t, t1))])
    if not table:
        return
    s.p("The multigrid STAND-IN (--case-param multigrid=L; Ni's data movement on the CPU, not his coarse-grid "
        "equations; docs/solvers/multiblock.md): the loop without and with it, ms per iteration, and the stand-in's "
        "own section (its copies and the host work) per call.")
    s.table(["grid", "ranks", "P", "levels", "single grid ms", "with stand-in ms", "stand-in ms", "with / without"],
            table)


BUILDERS = {"kemal_techniques": kemal_techniques, "kemal_routines": kemal_routines, "kemal_ranks": kemal_ranks}
