"""Report section of the profiler-figure study of Gohari et al. (2012) (studies/gohari2012/profiler_figures.yaml):
per run and stage, the counters of notes Sec. 6.4 from `nsbench run --profile`, or where a result holds none,
the analytic request/sector model of notes Sec. 6.5 (access_model.py) labelled "model"; then the paper's
statements (studies/gohari2012/paper/profiler.csv) each beside what was measured.

Per node: a counter summed over a stage call (its kernels, the reductions' included) over the grid's nodes,
so that regular and present compare at equal work. A flow step is one vorticity call, S stream calls and
one boundary call (calls_per_step from the timing pass); its requests and DRAM bytes add up accordingly.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import access_model  # noqa: E402
from common import fmt  # noqa: E402

REQ = "l1tex__t_requests_pipe_lsu_mem_global_op_{}.sum"
SEC = "l1tex__t_sectors_pipe_lsu_mem_global_op_{}.sum"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
BANK = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum"
DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"


def peak_bytes_per_second(r):
    """The theoretical DRAM bandwidth, 2 x memory clock x bus width (double data rate), as the paper's 177.4 GB/s."""
    gpu = (r.get("machine") or {}).get("gpu") or {}
    if not gpu.get("memory_clock_khz") or not gpu.get("bus_width_bits"):
        return None
    return 2 * gpu["memory_clock_khz"] * 1e3 * gpu["bus_width_bits"] / 8


def _copy(r):
    return (((r.get("machine") or {}).get("gpu") or {}).get("copy_bandwidth") or {}).get("bytes_per_second")


def _nodes(r):
    g = r["run"]["grid"]
    return g["nx"] * g["ny"]


def _counters(r):
    """The per-stage profile rows with counters, or None (no profile, or the counter pass not made)."""
    p = r.get("profile") or {}
    if not (p.get("counters") or {}).get("performed"):
        return None
    return p.get("stages") or {}


def stage_figures(r, stage):
    """The figures of one stage call of run r: {'source': 'counters' | 'model', requests and sectors a
    node, sectors a request, DRAM bytes/s, occupancy, bank conflicts, seconds a call}; None where neither
    the counters nor the model cover it."""
    st = r["timing"]["stages"].get(stage)
    if not st or "per_call" not in st:
        return None
    n, counters = _nodes(r), _counters(r)
    out = {"variant": st["variant"].split("/")[-1], "tuning": st.get("tuning", "default"),
           "calls_per_step": st.get("calls_per_step", 1)}
    c = (counters or {}).get(stage)
    if c and c.get(REQ.format("ld")):
        seconds = c.get("kernel_median_s") or c["event_median_s"]
        out.update(source="counters", seconds=seconds, dram_bytes=c.get("dram_bytes"), occupancy_pct=c.get(OCC),
                   dram_pct_ncu=c.get(DRAM_PCT),
                   bank_conflicts=sum(c.get(BANK.format(k), 0) for k in ("ld", "st")) if BANK.format("ld") in c else None)
        for k in ("ld", "st"):
            req, sec = c.get(REQ.format(k), 0), c.get(SEC.format(k), 0)
            out[f"{k}_requests"] = req
            out[f"{k}_requests_per_node"] = req / n
            out[f"{k}_sectors_per_request"] = sec / req if req else None
        return out
    g = r["run"]["grid"]
    word = 8 if r["run"].get("precision") == "double" else 4
    m = access_model.model(stage, st["variant"], out["tuning"], g["nx"], g["ny"], word)
    if m is None:
        return None
    shared = access_model.traversal_of(st["variant"]) == "shared_1d"
    out.update(source="model", seconds=st["per_call"]["median"], dram_bytes=(st.get("model") or {}).get("bytes"),
               occupancy_pct=None, dram_pct_ncu=None, bank_conflicts=0 if shared else None)
    for k in ("ld", "st"):
        out[f"{k}_requests_per_node"] = m[f"{k}_requests_per_node"]
        out[f"{k}_requests"] = m[f"{k}_requests_per_node"] * n
        out[f"{k}_sectors_per_request"] = m[f"{k}_sectors_per_request"]
    return out


def _bandwidth(f):
    return f["dram_bytes"] / f["seconds"] if f.get("dram_bytes") and f.get("seconds") else None


def step_figures(r):
    """A whole step (every covered stage times its calls a step): requests, DRAM bytes over kernel time."""
    req = b = t = 0.0
    sources = set()
    for stage in r["timing"].get("stage_order") or list(r["timing"]["stages"]):
        f = stage_figures(r, stage)
        if not f:
            continue
        k = f["calls_per_step"]
        sources.add(f["source"])
        req += k * (f["ld_requests"] + f["st_requests"])
        b += k * (f["dram_bytes"] or 0)
        t += k * f["seconds"]
    if not sources:
        return None
    return {"requests": req, "bytes_per_second": b / t if t else None, "source": "+".join(sorted(sources))}


def _pct(v, ref):
    return 100 * v / ref if v and ref else None


def _runs(results):
    return sorted(results.values(), key=lambda r: (r["study"]["group"], _nodes(r), r["run"]["grid"]["nx"],
                                                   r["run"].get("recipe", "")))


def _grid(r):
    g = r["run"]["grid"]
    return f"{g['nx']}x{g['ny']}"


def gohari_profile(s, study, results, paper, out, all_results):
    """Per run and stage the profiler's figures (or the model's), then the paper's statements beside ours."""
    rows = []
    for r in _runs(results):
        for stage in r["timing"].get("stage_order") or list(r["timing"]["stages"]):
            f = stage_figures(r, stage)
            if not f:
                continue
            bw = _bandwidth(f)
            rows.append([r["study"]["group"], _grid(r), r["run"].get("recipe", "-"), stage, f"{f['variant']}:{f['tuning']}",
                         f["source"], fmt(f["ld_requests_per_node"]), fmt(f["ld_sectors_per_request"]),
                         fmt(f["st_requests_per_node"]), fmt(f["st_sectors_per_request"]),
                         fmt(bw / 1e9 if bw else None), fmt(_pct(bw, peak_bytes_per_second(r))), fmt(_pct(bw, _copy(r))),
                         fmt(f["dram_pct_ncu"]), fmt(f["occupancy_pct"]), fmt(f["bank_conflicts"]),
                         fmt(f["seconds"] * 1e6)])
    s.table(["program", "grid (xi x eta)", "recipe", "stage", "variant:tuning", "source", "ld requests/node",
             "ld sectors/request", "st requests/node", "st sectors/request", "memory GB/s", "% of peak", "% of copy",
             "ncu DRAM % of peak", "achieved occupancy %", "shared bank conflicts", "us/call"], rows)
    s.p("Counters: summed over a stage call (its reductions' kernels included), a call's medians over the profiled "
        "step; memory GB/s = DRAM bytes read + written over the call's kernel time (CUPTI trace). Model: requests "
        "and sectors of the call's loads and stores on the solver's padded layout (access_model.py; the ghost-column "
        "copies and the residual's per-block partials left out; no model of the boundary stage), memory GB/s = the "
        "byte model (each field once) over the event-timed "
        "call, shared bank conflicts 0 where the traversal's slots are consecutive words (and blank where it uses "
        "no shared memory for stencils). Peak: 2 x memory clock x bus width; copy: the device-to-device copy "
        "measured in the same process.")
    _paper_beside(s, results, paper)


def _paper_beside(s, results, paper):
    """Each of the paper's statements (profiler.csv) beside ours, per grid of the matching program."""
    by = {}
    for r in _runs(results):
        by.setdefault((r["study"]["group"], _grid(r)), {})[r["run"].get("recipe")] = r
    program = {"flow solver": "flow", "grid generation": "grid"}
    rows = []
    for p in paper:
        for (group, grid), recipes in sorted(by.items(), key=lambda kv: (kv[0][0], _nodes(next(iter(kv[1].values()))))):
            if program.get(p["program"]) != group:
                continue
            ours, source = _ours(p, recipes)
            if ours is not None:
                rows.append([p["program"], p["variant"], p["metric"], p["value"], p["stated"] or "-", p["grid"], grid,
                             ours, source])
    if rows:
        s.p("The paper's statements (Sec. 5; notes Sec. 4) beside ours. Throughput: a whole step, its stages' DRAM "
            "bytes (model: modelled bytes) over their kernel time, as % of the theoretical peak (the paper's 177.4 GB/s "
            "is the GTX 480's; its profiler's figure counted global loads and stores at L1, which the DRAM bytes equal "
            "only where every word is read once). "
            "Requests: a whole step's global load and store requests, present over regular, minus one.")
        s.table(["program", "paper variant", "metric", "paper", "paper stated", "paper grid", "grid here", "here",
                 "source"], rows)


def _ours(p, recipes):
    """What this study measured for one paper statement on one grid: (text, source) or (None, None)."""
    metric, variant = p["metric"], p["variant"]
    if metric.startswith("global memory throughput"):
        r = recipes.get(variant)
        f = step_figures(r) if r else None
        if not f or not f["bytes_per_second"]:
            return None, None
        bw, parts = f["bytes_per_second"], [f"{fmt(f['bytes_per_second'] / 1e9)} GB/s"]
        for ref, what in ((peak_bytes_per_second(r), "of peak"), (_copy(r), "of copy")):
            if ref:
                parts.append(f"{fmt(_pct(bw, ref))}% {what}")
        return ", ".join(parts), f["source"]
    if metric == "global memory requests":
        fr, fp = (step_figures(recipes[k]) if k in recipes else None for k in ("regular", "present"))
        if not fr or not fp:
            return None, None
        return f"{fmt(100 * (fp['requests'] / fr['requests'] - 1))}% a step", f"{fp['source']} / {fr['source']}"
    if metric in ("occupancy", "shared bank conflicts"):
        key = "occupancy_pct" if metric == "occupancy" else "bank_conflicts"
        cells, sources = [], set()
        for recipe, r in sorted(recipes.items()):
            for stage in r["timing"].get("stage_order") or list(r["timing"]["stages"]):
                f = stage_figures(r, stage)
                if f and f[key] is not None:
                    cells.append(f"{recipe} {stage} {fmt(f[key])}")
                    sources.add(f["source"])
        return ("; ".join(cells), "+".join(sorted(sources))) if cells else (None, None)
    return None, None


BUILDERS = {"gohari_profile": gohari_profile}
