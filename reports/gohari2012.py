"""Report sections of Gohari, Esfahanian & Moqtaderi (2012): grid generation (Table 3) and the flow solver
(Tables 4 and 5), here beside the paper's numbers (studies/gohari2012/paper/*.csv).

Everything is per step at equal work: a grid-generation step is one Jacobi sweep; a flow step is one
vorticity update, S stream-function sweeps and the boundary stage, the same S on every backend. So the
speedups are ratios of per-step times, and "time per node update" divides a step by nodes x updates a
step (1 for a sweep; 1 + S for a flow step). The paper's "Improvement (%)" is printed both ways it can
be read (notes Sec. 5): the speedup ratio minus one, T_regular / T_present - 1 (what its Table 5 prints),
and the true time reduction, 1 - T_present / T_regular.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import fmt  # noqa: E402
from report_page import verdict  # noqa: E402
from stage_table import best_rows  # noqa: E402
from gohari2012_profile import gohari_profile  # noqa: E402


def _group(results, group):
    return [r for r in results.values() if r.get("study", {}).get("group") == group]


def _grid(r):
    g = r["run"]["grid"] if "run" in r else r["grid"]
    return f"{g['nx']}x{g['ny']}x{g['nz']}"


def _paper_grid(grid):
    """'256x512x1' -> '256x512' (the paper's tables name xi x eta)."""
    return "x".join(grid.split("x")[:2])


def _nodes(grid):
    nx, ny, _ = (int(v) for v in grid.split("x"))
    return nx * ny


def _step_s(r):
    return r["timing"]["step"]["median"]


def _copy(r):
    gpu = (r.get("machine") or {}).get("gpu") or {}
    return (gpu.get("copy_bandwidth") or {}).get("bytes_per_second")


def _stage_fraction(r, stage):
    """Achieved bytes per second of a stage's byte model, as a fraction of the measured copy bandwidth."""
    st = r["timing"]["stages"].get(stage) or {}
    a = st.get("achieved") or {}
    if a.get("fraction_of_copy_bandwidth") is not None:
        return a["fraction_of_copy_bandwidth"]
    copy = _copy(r)
    return a["bytes_per_second"] / copy if copy and a.get("bytes_per_second") else None


def _step_fraction(r, stages):
    """The whole step's modelled bytes over its time, as a fraction of the copy bandwidth."""
    copy = _copy(r)
    if not copy:
        return None
    total = sum((r["timing"]["stages"][s]["model"]["bytes"] * r["timing"]["stages"][s].get("calls_per_step", 1))
                for s in stages if s in r["timing"]["stages"])
    return total / _step_s(r) / copy


def _updates_per_step(r):
    """Node updates a step: 1 (a grid sweep) or 1 + S (vorticity + S stream sweeps)."""
    st = r["timing"]["stages"]
    return 1 + st["stream"].get("calls_per_step", 1) if "stream" in st else 1


def _ns_per_node_update(r):
    return 1e9 * _step_s(r) / (_nodes(_grid(r)) * _updates_per_step(r))


def _by_grid(rows, recipe=None):
    return {_grid(r): r for r in rows if recipe is None or r["run"].get("recipe") == recipe}


def _ratio(a, b):
    return a / b if a and b else None


def gohari_grid(s, study, results, paper, out, all_results):
    """Table 3: per-sweep times of the grid generator, CPU serial (and OpenMP, labelled), GPU regular and
    present; time per node update, speedups and the sweep's share of the copy bandwidth; the paper's
    Table 3 beside (its times are whole runs of an iteration count it does not give, its speedups are
    comparable)."""
    cpu, omp = _by_grid(_group(results, "cpu")), _by_grid(_group(results, "cpu_omp"))
    gpu = _group(results, "gpu")
    reg, pres = _by_grid(gpu, "regular"), _by_grid(gpu, "present")
    by_paper = {p["grid"]: p for p in paper}
    grids = sorted(set(cpu) | set(reg) | set(pres), key=_nodes)
    rows = []
    for g in grids:
        c, o, rg, pr = cpu.get(g), omp.get(g), reg.get(g), pres.get(g)
        p = by_paper.get(_paper_grid(g), {})
        rows.append([g, fmt(_step_s(c) * 1e3 if c else None), fmt(_ns_per_node_update(c) if c else None),
                     fmt(_ns_per_node_update(o) if o else None),
                     fmt(_ns_per_node_update(rg) if rg else None), fmt(_ns_per_node_update(pr) if pr else None),
                     fmt(_ratio(_step_s(c) if c else None, _step_s(rg) if rg else None)),
                     fmt(_ratio(_step_s(c) if c else None, _step_s(pr) if pr else None)),
                     fmt(100 * _stage_fraction(rg, "sweep") if rg and _stage_fraction(rg, "sweep") else None),
                     fmt(100 * _stage_fraction(pr, "sweep") if pr and _stage_fraction(pr, "sweep") else None),
                     p.get("speedup", "-"), p.get("gpu_time_s", "-"), p.get("cpu_time_s", "-"),
                     verdict(rg) if rg else "-"])
    s.table(["grid (xi x eta x 1)", "CPU ms/sweep", "CPU ns/node", "OpenMP ns/node (extra)", "regular ns/node",
             "present ns/node", "speedup regular", "speedup present", "regular % of copy", "present % of copy",
             "paper speedup (regular)", "paper GPU s", "paper CPU s", "check"], rows)
    s.p("% of copy: the sweep's byte model (x, y, phi, psi_c read once, x_new, y_new written once: 6 words a "
        "node) over its median time, against the device-to-device copy bandwidth measured in the same process. "
        "Target (issue 20): the best variant at 80% or more per iteration.")
    _stage_benchmark_table(s, results, "ogrid/sweep")


def _improvement(t_regular, t_present):
    """(speedup ratio - 1, true time reduction), in %."""
    if not t_regular or not t_present:
        return None, None
    return 100 * (t_regular / t_present - 1), 100 * (1 - t_present / t_regular)


def gohari_flow(s, study, results, paper, out, all_results):
    """Tables 4 and 5: per-step times of the flow solver, CPU serial, GPU regular and present; speedups,
    time per node update, both readings of the paper's "improvement", the stream sweep's and the whole
    step's share of the copy bandwidth; the paper's tables beside, with both readings of its numbers."""
    stages = ["vorticity", "stream", "boundary"]
    cpu, omp = _by_grid(_group(results, "cpu")), _by_grid(_group(results, "cpu_omp"))
    gpu = _group(results, "gpu")
    reg, pres = _by_grid(gpu, "regular"), _by_grid(gpu, "present")
    by_paper = {p["grid"]: p for p in paper}
    grids = sorted(set(cpu) | set(reg) | set(pres), key=_nodes)
    rows, paper_rows = [], []
    for g in grids:
        c, o, rg, pr = cpu.get(g), omp.get(g), reg.get(g), pres.get(g)
        t_c, t_r, t_p = (_step_s(x) if x else None for x in (c, rg, pr))
        ratio, reduction = _improvement(t_r, t_p)
        rows.append([g, fmt(t_c * 1e3 if t_c else None), fmt(t_r * 1e3 if t_r else None), fmt(t_p * 1e3 if t_p else None),
                     fmt(_ns_per_node_update(c) if c else None), fmt(_ns_per_node_update(o) if o else None),
                     fmt(_ns_per_node_update(rg) if rg else None), fmt(_ns_per_node_update(pr) if pr else None),
                     fmt(_ratio(t_c, t_r)), fmt(_ratio(t_c, t_p)), fmt(ratio), fmt(reduction),
                     fmt(100 * _stage_fraction(rg, "stream") if rg and _stage_fraction(rg, "stream") else None),
                     fmt(100 * _stage_fraction(pr, "stream") if pr and _stage_fraction(pr, "stream") else None),
                     fmt(100 * _step_fraction(pr, stages) if pr and _step_fraction(pr, stages) else None),
                     verdict(pr) if pr else "-"])
    s.table(["grid (xi x eta x 1)", "CPU ms/step", "regular ms/step", "present ms/step", "CPU ns/node update",
             "OpenMP ns/node (extra)", "regular ns/node", "present ns/node", "speedup regular", "speedup present",
             "improvement: T_reg/T_pres - 1 %", "time reduction: 1 - T_pres/T_reg %", "regular stream % of copy",
             "present stream % of copy", "present step % of copy", "check"], rows)
    for p in paper:
        t_p, t_r = float(p["present_gpu_s"]), float(p["regular_gpu_s"])
        ratio, reduction = _improvement(t_r, t_p)
        paper_rows.append([p["grid"], p["present_gpu_s"], p["regular_gpu_s"], p["cpu_s"], p["present_speedup"],
                           p["regular_speedup"], p["improvement_pct"], fmt(ratio), fmt(reduction),
                           fmt(100 * (float(p["present_speedup"]) / float(p["regular_speedup"]) - 1)), p.get("note", "")])
    if paper_rows:
        s.p("The paper's Tables 4 and 5, and its 'Improvement (%)' recomputed both ways from its own times and "
            "from its own speedups (they disagree at 512 x 1024, where Table 4's regular time looks like a typo):")
        s.table(["grid", "paper present s", "paper regular s", "paper CPU s", "paper speedup present",
                 "paper speedup regular", "paper improvement %", "T_reg/T_pres - 1 % (Table 4)",
                 "1 - T_pres/T_reg % (Table 4)", "S_pres/S_reg - 1 % (Table 5)", "note"], paper_rows)
    s.p("Byte models (one word = 4 bytes in float): vorticity reads omega, psi and six metric fields and writes "
        "omega_new (9 words a node); a stream sweep reads psi, omega and five metric fields and writes psi_new "
        "(8 words); the boundary stage moves 10 words a xi column. % of copy = modelled bytes / median time / the "
        "device-to-device copy bandwidth measured in the same run. Target (issue 20): the best variant at "
        "4096^2 float at 85% or more.")
    _speedup_rows(s, grids, cpu, omp, reg, pres, by_paper)
    _ablation_table(s, results)
    _stage_benchmark_table(s, results, "streamvort/stream")
    _stage_benchmark_table(s, results, "streamvort/vorticity")


def _speedup_rows(s, grids, cpu, omp, reg, pres, by_paper):
    """Issue 37's rows: each GPU recipe against one core and all cores, with the hardware's expectation, beside the
    paper's speedup (its GPU over one core of its CPU)."""
    cores = next((r["run"]["threads"] for r in omp.values()), None)
    rows = []
    for g in grids:
        p = by_paper.get(_paper_grid(g), {})
        for recipe, runs in (("regular", reg), ("present", pres)):
            if g in runs:
                rows.append([g, recipe, *common.speedup_cells(runs[g], cpu.get(g), omp.get(g)),
                             p.get(f"{recipe}_speedup", "-")])
    s.table(["grid (xi x eta x 1)", "GPU recipe", *common.speedup_headers(cores),
             "paper: 1 GPU over 1 core, as the paper measured"], rows)
    if rows:
        s.p(common.SPEEDUP_NOTE)


def _ablation_table(s, results):
    rows = []
    for r in sorted(_group(results, "ablation"), key=lambda r: (_nodes(_grid(r)), str(r["run"].get("recipe")))):
        st = r["timing"]["stages"].get("stream")
        if not st:
            continue
        rows.append([_grid(r), st.get("variant", "?"), st.get("tuning", "?"),
                     fmt(st["per_call"]["median"] * 1e6), fmt(100 * _stage_fraction(r, "stream")
                                                              if _stage_fraction(r, "stream") else None),
                     fmt(_step_s(r) * 1e3)])
    if rows:
        s.p("Ablations (notes Sec. 6.1), each one stage of the present recipe overridden: 1D global only "
            "(module 1 alone), 2D with a shared tile (module 2 alone), 2D with bx = 32, the residual by atomics or a "
            "per-block buffer instead of the last-block pattern, the block size B, and the shared-memory carve-out "
            "(tuning co: the % of the unified L1/shared memory preferred for shared memory, per launch; co0 is the "
            "paper's PreferL1).")
        s.table(["grid", "stream variant", "tuning", "us/sweep", "% of copy", "ms/step"], rows)


def _stage_benchmark_table(s, results, stage_id):
    rows = []
    for r in results.values():
        if "rows" not in r:
            continue
        for (stage, variant, workload), row in sorted(best_rows(r).items()):
            if stage not in (stage_id, stage_id.split("/")[-1]):
                continue
            rows.append([_grid(r), variant, workload, row["tuning"], fmt(row["median_s"] * 1e6),
                         fmt(100 * row["fraction_of_copy_bandwidth"] if row.get("fraction_of_copy_bandwidth") else None)])
    if rows:
        s.p(f"Stage benchmark of {stage_id} (nsbench stages, every tuning; the fastest per variant and "
            "workload, the workload being the stage's benchmark case, e.g. vorticity's laminar and turbulent):")
        s.table(["grid", "variant", "workload", "fastest tuning", "us/call", "% of copy"], rows)


def gohari_checks(s, study, results, paper, out, all_results):
    """The solver against physics: each run's validation record (the turbulent plate's C_f error; NACA0012's
    drag from the wall and from the vortical impulse, and its lift, which symmetry makes zero)."""
    rows = []
    for r in sorted(results.values(), key=lambda r: (r.get("study", {}).get("group", ""), _nodes(_grid(r)))):
        v = r.get("checks", {}).get("validation", {})
        rows.append([r.get("study", {}).get("group", "-"), _grid(r), fmt(v.get("time")), v.get("kind", "-"),
                     fmt(v.get("rms_error")) if v.get("kind") != "symmetry" else "-",
                     fmt(v.get("max_error")) if v.get("kind") != "symmetry" else "-",
                     fmt(v.get("cd")), fmt(v.get("cd_pressure")), fmt(v.get("cd_friction")), fmt(v.get("cd_impulse")),
                     fmt(v.get("cd_impulse_beyond_1_chord")), fmt(v.get("cl"))])
    s.table(["group", "grid", "t", "check", "C_f RMS error", "C_f max error", "C_D wall", "C_D pressure",
             "C_D friction", "C_D impulse", "of it beyond 1 chord", "C_L"], rows)
    s.p("C_D wall: the paper's wall-pressure line integral (Eq. 8) plus friction; C_D impulse: -2 dI_x/dt, "
        "I_x the integral of y omega over the fluid (harness/solvers/grid2d/geometry.hpp has both derivations).")


def sweep_contraction(r):
    """The stream solve's contraction a sweep in the run's last step: (last / first residual)^(1 / (S - 1))."""
    c, s = r.get("checks", {}), r["run"].get("jacobi", {}).get("iterations", 0)
    first, last = c.get("stream_residual_first_sweep"), c.get("stream_residual_last_sweep")
    return (last / first) ** (1 / (s - 1)) if first and last and s > 1 else None


def gohari_sor_omega(s, study, results, paper, out, all_results):
    """SOR's omega measured: per grid and omega the last step's first and last stream residuals and the contraction
    a sweep (no times: a step's time does not depend on omega); over-relaxed Jacobi at the same sweeps beside; per grid the omega whose last
    sweep changes psi least marked best."""
    runs = sorted(results.values(), key=lambda r: (_nodes(_grid(r)), r["run"].get("poisson_method", ""),
                                                   r["run"].get("sor_omega", 0)))
    best = {}  # per grid: (the last sweep's change, omega), the smallest (the same problem and S for every omega)
    for r in runs:
        last = r.get("checks", {}).get("stream_residual_last_sweep")
        if r["run"].get("poisson_method") == "sor" and last is not None and last < best.get(_grid(r), (1e300, None))[0]:
            best[_grid(r)] = (last, r["run"]["sor_omega"])
    rows = []
    for r in runs:
        sor = r["run"].get("poisson_method") == "sor"
        k, c = sweep_contraction(r), r.get("checks", {})
        is_best = sor and best.get(_grid(r), (None, None))[1] == r["run"].get("sor_omega")
        rows.append([_grid(r), "SOR (4 colours)" if sor else "Jacobi (w = 1)", fmt(r["run"].get("sor_omega")) if sor else "-",
                     str(r["run"]["jacobi"]["iterations"]), fmt(c.get("stream_residual_first_sweep")),
                     fmt(c.get("stream_residual_last_sweep")), fmt(k), "best" if is_best else ""])
    s.table(["grid (xi x eta x 1)", "method", "omega", "sweeps a step", "first sweep's max |change|",
             "last sweep's", "contraction a sweep", ""], rows)
    s.p("Contraction a sweep = (last / first)^(1/(S - 1)) in the run's last step (smaller converges faster); best: "
        "the smallest last change on the grid. The "
        "residual is the largest change a sweep makes, so it measures what the sweeps still change, not the "
        "distance to the solution.")


BUILDERS = {"gohari_grid": gohari_grid, "gohari_flow": gohari_flow, "gohari_checks": gohari_checks,
            "gohari_profile": gohari_profile, "gohari_sor_omega": gohari_sor_omega}
