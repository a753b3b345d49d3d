#!/usr/bin/env python3
"""A stand-in for nsbench in the Python tests: answers `list --json` (schema nsbench.list/2), and writes
schema-shaped results (nsbench.run/2, nsbench.stages/2, nsbench.bandwidth/1) for `run`, `stages` and
`bandwidth` whose medians follow known formulas (see median_for), so tests can check that the report
prints exactly the inputs' numbers.

FAKE_NSBENCH_FAIL=<substring> makes any command line containing the substring fail (exit 1), like a
crashed run. FAKE_NSBENCH_SCHEMA=1 answers and writes the schemas before the solver-generic core
(nsbench.list/1, nsbench.run/1, nsbench.stages/1: two-part variant ids, no solver, no stage order).
FAKE_NSBENCH_COMMIT sets the git commit the results say they were built from.
FAKE_NSBENCH_EXIT=<code>:<substring> makes a `run` whose command line holds the substring write its result and exit
with that code as nsbench does: 2 a failed reference check (checks.reference.pass false), 3 a blow-up (status
"failed"). FAKE_NSBENCH_SLEEP=<seconds>[:<substring>] makes a command (holding the substring) take that long first,
and FAKE_NSBENCH_STARTED=<file> makes each command append its pid to the file when it starts."""
import json
import os
import sys
import time

SOLVER = "projection"
STAGE_ORDER = ["momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction", "reduce"]
VARIANTS = [("momentum", "global_2d_zloop"), ("momentum", "shared_zloop"), ("pressure", "jacobi_global_2d_zloop"),
            ("pressure", "jacobi_shared_zloop"), ("velocity_bc", "global_2d"), ("divergence", "global_2d"),
            ("pressure_bc", "global_2d"), ("correction", "global_2d"), ("reduce", "atomic_block")]
TUNINGS = ["bx16_by16_sz2", "bx8_by8_sz2", "bx16_by8_sz2", "bx64_by4_sz16"]
FLOPS_PER_POINT = {"momentum": 201, "velocity_bc": 0, "divergence": 8, "pressure": 11, "pressure_bc": 0,
                   "correction": 12, "reduce": 3}
HALO = ["p2p_sync", "p2p_async_overlap", "host_staged_sync", "nccl", "mpi_host_staged", "mpi_cuda_aware",
        "shared_memory_copy", "mpi_sendrecv", "host_staged_async"]
RECIPES = ["cpu-serial", "cpu-omp", "thibault-global", "thibault-optimal", "modern", "best"]
CASES = ["cavity", "channel", "taylor_green"]
# The second solver, listed only (its runs are written like the projection's: the wave's report reads
# step times and checks alone).
WAVE = {"name": "wave", "description": "fake", "stages": ["step"], "cases": ["standing_wave"],
        "recipes": ["cpu-serial", "cpu-omp", "thibault-shared", "global", "best"]}
# The multiblock solver (Kemal 2015), listed only, as the wave.
MULTIBLOCK = {"name": "multiblock", "description": "fake", "cases": ["conjugate_cylinder"],
              "stages": ["conjugatep", "lamvis", "deltatp", "dtmin", "stressp", "stresstrb", "flux", "fluxtrb", "ifsum",
                         "smthp", "smthtrb", "multigrid", "update", "resmax", "bc"],
              "recipes": ["cpu-serial", "cpu-omp", "kemal", "kemal-host-search", "kemal-naive", "kemal-registered",
                          "kemal-streams", "kemal-p2p", "modern"]}
# Gohari et al. (2012): two more solvers, listed only (studies/gohari2012 validates against them).
GOHARI = [{"name": "streamvort", "description": "fake", "stages": ["vorticity", "stream", "boundary"],
           "cases": ["naca0012", "flat_plate"], "recipes": ["cpu-serial", "cpu-omp", "regular", "present"]},
          {"name": "ogrid", "description": "fake", "stages": ["sweep"], "cases": ["naca0012_grid", "flat_plate_grid"],
           "recipes": ["cpu-serial", "cpu-omp", "regular", "present"]}]
GOHARI_VARIANTS = ([("streamvort", "stream", n) for n in ("global_2d", "global_1d", "shared_tile_2d", "shared_1d",
                                                          "shared_1d_block_atomic", "shared_1d_buffer")]
                   + [("streamvort", "vorticity", n) for n in ("global_2d", "global_1d", "shared_1d", "shared_tile_2d")]
                   + [("streamvort", "boundary", "global_1d"), ("ogrid", "sweep", "global_2d"), ("ogrid", "sweep", "shared_1d")])
GOHARI_TUNINGS = ["bx16_by16", "bx16_by8", "bx8_by8", "bx32_by4", "bx32_by8", "b256", "b128", "b512", "b256_co0",
                  "b256_co50", "b256_co100"]
# The Poisson family's solver and methods (mg and fft by their developers), listed only.
POISSON_CASES = ["poisson_manufactured", "poisson_manufactured_dirichlet", "poisson_manufactured_periodic",
                 "poisson_manufactured_mixed", "poisson_random"]
POISSON_METHODS = ["jacobi", "rbsor", "cg", "pcg", "mg", "fft", "fft2_tridiag", "mg_graph", "mg_f_graph", "mg_wj_graph",
                   "mg_f_wj_graph", "cg_device_check", "pcg_device_check"]
# The fractional-step solver (Ha et al.), listed, and run like the projection's but with its own stages and
# the "poisson" section in timing.sections: every one of its 7 sections takes 1/8 of the step.
FRACSTEP = {"name": "fracstep", "description": "fake", "cases": ["poiseuille", "synthetic", "shear_wave_z", "shear_wave_x"],
            "stages": ["rhs", "adi_z", "adi_y", "adi_x", "divergence", "correct"],
            "recipes": ["cpu-serial", "cpu-omp", "global", "tiled"]}
# The IMLE solver (Liu et al.), listed only (studies/liu2019's whole-solver runs name its recipes).
IMLE = {"name": "imle", "description": "fake", "cases": ["cavity", "taylor_green"],
        "stages": ["ccd", "predict", "move", "mls", "ppe_rhs", "correct"], "recipes": ["cpu-serial", "cpu-omp", "paper", "fused"]}
# The Poisson family's CG variants that study files choose with --stage poisson/<stage>=<variant> (listed only).
POISSON_VARIANTS = [("apply_dot", "separate_cublas"), ("cg_update", "separate_cublas")]
# IMLE's GPU variants of the stages studies time alone (`stages --stage imle/ccd`, `--variant fused_register`), listed only.
IMLE_VARIANTS = [("ccd", "line_thread_1d"), ("ccd", "transposed"), ("mls", "two_phase_global"), ("mls", "fused_register")]
OLD = os.environ.get("FAKE_NSBENCH_SCHEMA") == "1"
# The batched tridiagonal family (a stage family: no solver of its own), listed and timed by `stages
# --stage tridiag/...`: variant k of a kind runs at FAMILY_FRACTIONS[k] of the copy bandwidth.
FAMILY = "tridiag"
FAMILY_VARIANTS = {"contiguous": ["pcr_thomas_shared", "thomas_thread"], "interleaved": ["thomas_thread"],
                   "lines_y": ["thomas_thread"], "cyclic": ["thomas_thread"], "pdd": ["pdd_thread"],
                   "ppt": ["ppt_thread"]}
FAMILY_FRACTIONS = [0.85, 0.5]
# V1's global transposes (fracstep/transpose_zx, _xz), timed by `stages --stage fracstep/transpose_*`: see
# transpose_rows for their phases.
TRANSPOSE_KINDS = ["transpose_zx", "transpose_xz"]
TRANSPOSE_VARIANTS = ["pack_copy_unpack", "ranks_peer"]
TRANSPOSE_WORKLOADS = ["p2", "p4", "p2_complex", "p4_complex"]
PEER_LINK = (5e-6, 100e9)  # the fake ranks_peer's all-to-all: alpha, B
COPY_BANDWIDTH = 4e12  # as machine() says
# The urban cases' stages, variants (with their own tunings), recipes and cases: listed only, so that the
# urban study files validate (the fake's results keep the stages above).
URBAN_STAGES = ["obstacles", "nu_turbulent"]
URBAN_VARIANTS = [("obstacles", "thesis_four_kernels", TUNINGS + ["bx32_by4_sz2"]),
                  ("obstacles", "fused_global_2d", ["bx16_by16_sz4", "bx32_by4_sz4"]),
                  ("obstacles", "compact_list", ["b256", "b128", "b512"]),
                  ("pressure", "jacobi_masked_global_2d_zloop", TUNINGS + ["bx64_by4_sz16"]),
                  ("velocity_bc", "global_2d", ["bx32_by4", "bx16_by16", "bx8_by8"]),
                  ("pressure_bc", "global_2d", ["bx32_by4", "bx16_by16", "bx8_by8"]),
                  ("nu_turbulent", "global_2d", TUNINGS)]
URBAN_RECIPES = ["urban", "urban-thesis"]
URBAN_CASES = ["urban", "cube"]


def vid(stage, name):
    return f"{stage}/{name}" if OLD else f"{SOLVER}/{stage}/{name}"


def opts(argv):
    o, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                o[a[2:]] = argv[i + 1]
                if a == "--case-param":  # repeated: every KEY=VALUE kept
                    o.setdefault("case-params", {}).update([argv[i + 1].split("=", 1)])
                if a == "--stage":  # repeated: every override kept
                    o.setdefault("stages", []).append(argv[i + 1])
                i += 2
                continue
            o[a[2:]] = True
        i += 1
    return o


def points(grid):
    nx, ny, nz = (int(x) for x in grid.split("x"))
    return nx * ny * nz


def median_for(o):
    """Seconds per step: 1 ns per point on the GPU, 100 ns on one core, 25 ns on all cores, divided by ranks."""
    per_point = {"cuda": 1e-9, "cpu_serial": 100e-9, "cpu_omp": 25e-9}[o.get("backend", "cpu_serial")]
    return points(o["grid"]) * per_point / int(o.get("ranks", os.environ.get("OMPI_COMM_WORLD_SIZE", 1)))


def machine():
    """A GPU machine: like nsbench, CPU runs on it record its GPUs too."""
    return {"cpu": {"model": "Fake CPU", "logical_cores": 4, "threads_used": 1}, "hostname": "fake",
            "gpu": {"name": "Fake GPU", "count": 2, "pci_bus_id": "0000:00:01.0", "compute_capability": "9.0",
                    "sm_count": 100, "sm_clock_khz": 2000000, "l2_bytes": 50 << 20,
                    "copy_bandwidth": {"bytes_per_second": 4e12}}}


def build():
    return {"git_commit": os.environ.get("FAKE_NSBENCH_COMMIT", "0123456789abcdef"), "git_dirty": False,
            "compiler": "GNU 13", "cxx_flags": "-O3", "cuda_flags": "-O3", "build_type": "Release", "with_cuda": True}


def stage_timings(t, n):
    """Every stage but reduce takes 1/8 of the step (1/40 a call, 5 calls of pressure and pressure_bc), so the
    stages add up to 6/8 of the step and 'other' is the remaining 2/8."""
    stages = {}
    for s in STAGE_ORDER:
        entry = {"variant": vid(s, "x"), "tuning": "default",
                 "model": {"points": n, "bytes": 8.0 * n, "flops": float(FLOPS_PER_POINT[s] * n)}}
        if s != "reduce":
            entry.update(per_call={"median": t / 40}, per_step={"median": t / 8})
        stages[s] = entry
    return stages


# The recipes' variants of the Gohari solvers (their recipes.json), so that reports can read the stages.
GOHARI_RECIPE_VARIANTS = {"regular": ("global_2d", "bx16_by16"), "present": ("shared_1d", "b256")}
FAKE_COUNTERS = os.environ.get("FAKE_NSBENCH_COUNTERS") == "1"


def gohari_stages(o, t, n):
    """A streamvort or ogrid run: its own stages, each 1/8 of the step a call (stream 20 calls, 1/40 each)."""
    g = next(g for g in GOHARI if o.get("case") in g["cases"])
    name, tuning = GOHARI_RECIPE_VARIANTS.get(o.get("recipe"), ("cpu_serial", "default"))
    stages = {}
    for st in g["stages"]:
        calls = 20 if st == "stream" else 1
        stages[st] = {"variant": f"{g['name']}/{st}/{name}", "tuning": tuning, "calls_per_step": calls,
                      "model": {"points": n, "bytes": 32.0 * n, "flops": 10.0 * n},
                      "per_call": {"median": t / 8 / calls}, "per_step": {"median": t / 8}}
    return g["name"], g["stages"], stages


def fake_profile(timing, n):
    """--profile: the counters (FAKE_NSBENCH_COUNTERS=1) of nsbench's profile_report: per node 0.5 load requests
    (0.25 for shared variants) of 5 sectors, 1/32 store requests of 4, DRAM = the byte model, occupancy 80%."""
    if not FAKE_COUNTERS:
        no = {"performed": False, "reason": "fake: no counters"}
        return {"trace": no, "counters": no, "stages": {}}
    rows = {}
    for st, e in timing["stages"].items():
        ld = (0.25 if "shared" in e["variant"] else 0.5) * n
        rows[st] = {"variant": e["variant"], "tuning": e["tuning"], "event_median_s": e["per_call"]["median"],
                    "kernel_median_s": e["per_call"]["median"], "model_bytes": e["model"]["bytes"],
                    "dram_bytes": e["model"]["bytes"], "dram_over_model": 1.0,
                    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": ld,
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 5 * ld,
                    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": n / 32,
                    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 4 * n / 32,
                    "sm__warps_active.avg.pct_of_peak_sustained_active": 80.0,
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 0.0,
                    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": 0.0,
                    "dram__throughput.avg.pct_of_peak_sustained_elapsed": 50.0}
    return {"trace": {"performed": True}, "counters": {"performed": True}, "stages": rows}


def run(o):
    grid = o["grid"]
    nx, ny, nz = (int(x) for x in grid.split("x"))
    gpu = o.get("backend") == "cuda"
    t = median_for(o)
    ranks = int(o.get("ranks", os.environ.get("OMPI_COMM_WORLD_SIZE", 1)))
    mpi = "OMPI_COMM_WORLD_SIZE" in os.environ
    halo = {}
    if ranks > 1:
        halo = {"share_of_step": 0.05, "halo_pressure": {"bytes_per_second": 1e11}}
    name, _, tuning = o.get("halo", "p2p_sync").partition(":")
    timing = {"step": {"median": t}, "gflops": 1.0 / t * 1e-9 * points(grid) * 100,
              "stages": stage_timings(t, nx * ny * nz), "halo": halo}
    if ranks > 1:  # each rank: every stage 1/8 of the step, the exchanges 1/100 (predictor, correction), 1/20 (p)
        per_rank = {st: t / 8 for st in STAGE_ORDER if st != "reduce"}
        per_rank.update(halo_predictor=t / 100, halo_pressure=t / 20, halo_correction=t / 100)
        timing["per_rank_section_median"] = [dict(per_rank) for _ in range(ranks)]
    run_record = {"grid": {"nx": nx, "ny": ny, "nz": nz}, "backend": o.get("backend", "cpu_serial"),
                  "recipe": o.get("recipe", "cpu-serial"), "threads": 4 if o.get("backend") == "cpu_omp" else 1,
                  "precision": o.get("precision", "double"), "jacobi": {"iterations": 20},
                  "decomposition": {"ranks": ranks, "driver": "mpi" if mpi else "threads" if ranks > 1 else "single",
                                    "halo": {"variant": "halo/" + name, "tuning": tuning or "default"}}}
    if not OLD:
        run_record["solver"] = SOLVER
        timing["stage_order"] = STAGE_ORDER
    checks = {"reference": {"performed": gpu and not o.get("no-check"), "pass": True,
                            "reason": "" if gpu else "this run is the CPU reference"}}
    if "poisson" in o:  # a Poisson method: the poisson solver's checks (a solve reaching half its tolerance)
        tol = float(o.get("jacobi-tol", 0))
        run_record["poisson_method"] = o["poisson"]
        run_record["jacobi"].update(tolerance=tol, check_every=int(o.get("check-every", 10)))
        if o.get("case", "").startswith("poisson_"):
            checks.update(poisson_iterations=100, poisson_relative_residual=tol / 2, jacobi_sweep_seconds=t / 200,
                          residual_history={"iteration": [10, 100], "seconds": [t / 10, t],
                                            "relative_residual": [1e-2, tol / 2]})
    if o.get("case") in FRACSTEP["cases"]:
        run_record["solver"] = FRACSTEP["name"]
        timing["stage_order"] = FRACSTEP["stages"]
        timing["stages"] = {st: {"variant": f"fracstep/{st}/x", "tuning": "default", "per_call": {"median": t / 24},
                                 "per_step": {"median": t / 8}} for st in FRACSTEP["stages"]}
        timing["sections"] = {"poisson": {"per_call": {"median": t / 24}, "per_step": {"median": t / 8}}}
        fracstep_v2_sections(o, run_record, timing, t)
    if o.get("solver") == IMLE["name"] and not OLD:  # its 6 stages, pressure and (on ranks) halo: 1/8 each
        run_record["solver"] = IMLE["name"]
        run_record["poisson_kernels"] = dict(c.split("=", 1) for c in o.get("stages", []) if c.startswith("poisson/"))
        timing["stage_order"] = IMLE["stages"]
        timing["stages"] = {st: {"variant": f"imle/{st}/x", "tuning": "default", "per_call": {"median": t / 8},
                                 "per_step": {"median": t / 8}} for st in IMLE["stages"]}
        timing["sections"] = {k: {"per_call": {"median": t / 8}, "per_step": {"median": t / 8}}
                              for k in ["pressure"] + (["halo"] if ranks > 1 else [])}
    if o.get("case") == "conjugate_cylinder":
        multiblock_options(o, run_record, checks, timing, ranks)
    if any(o.get("case") in g["cases"] for g in GOHARI):
        run_record["solver"], timing["stage_order"], timing["stages"] = gohari_stages(o, t, nx * ny * nz)
    extra = {"profile": fake_profile(timing, nx * ny * nz)} if o.get("profile") else {}
    return {
        **extra,
        "schema": "nsbench.run/1" if OLD else "nsbench.run/2", "timestamp": "2026-11-22T00:00:00Z",
        "machine": machine(), "build": build(), "run": run_record, "timing": timing,
        "checks": checks,
        "kernels": {vid("momentum", "shared_zloop") + ":kernel": {"registers": 40, "static_shared_bytes": 4096,
                                                                 "local_bytes": 0}} if gpu else {},
    }


def fracstep_v2_sections(o, run_record, timing, t):
    """The poisson section's parts fft and tdma_c (t/16 each); V2 (--case-param variant=V2 y_ranks=P): every virtual
    rank's phase of adi_y and tdma_c takes t / 100 / P a step, the exchange too (so the slowest rank's phases
    without the exchange, local + pack + reduced + correct, are 4 t / 100 / P; the last rank has no PDD reduced)."""
    cp = o.get("case-params", {})
    timing["sections"].update({k: {"per_step": {"median": t / 16}} for k in ("fft", "tdma_c")})
    if cp.get("variant", "V0") == "V0":
        return
    if cp["variant"] == "V1":  # --ranks P: real z-slab ranks: the step (already divided by P) 1.1 times that, the
        p = int(o["ranks"])     # all-to-all t / 10 a step, the z ghost planes t / 40
        run_record.update(variant="V1", y_ranks=1, emulated=False, real_ranks=p)
        timing["step"]["median"] = 1.1 * t
        timing["sections"].update(all_to_all={"per_step": {"median": t / 10}}, ghost_rows={"per_step": {"median": t / 40}})
        return
    if "y_ranks" not in cp:  # --ranks P: real y-slab ranks: the step (already divided by P by median_for) takes
        p = int(o["ranks"])  # 1.25 times that, the sections as they are (the rest: ghost rows and messages)
        run_record.update(variant=cp["variant"], y_ranks=p, emulated=False, real_ranks=p)
        if "gpu_messages" in cp:  # recorded as given (nsbench records it on every real-rank run)
            run_record["gpu_messages"] = cp["gpu_messages"]
        timing["step"]["median"] = 1.25 * t
        if "split_factors" in cp:  # recorded as given; shared: the step 1.125 t (left out: as before this key)
            run_record["split_factors"] = cp["split_factors"]
            timing["step"]["median"] = (1.125 if cp["split_factors"] == "shared" else 1.25) * t
        # the slowest rank's (rank 0's) phases in sections, t / 100 a step each; every rank's in
        # per_rank_section_median, rank 1's twice rank 0's
        names = [f"{part}/r{{}}/{phase}" for part in ("adi_y", "tdma_c")
                 for phase in ("local", "pack", "exchange", "reduced", "correct")]
        timing["sections"].update({n.format(0): {"per_step": {"median": t / 100}} for n in names})
        timing["per_rank_section_median"] = [{n.format(r): (r + 1) * t / 100 for n in names} for r in range(p)]
        timing["sections"]["ghost_rows"] = {"per_step": {"median": t / 20}}
        return
    p = int(cp["y_ranks"])
    run_record.update(variant=cp["variant"], y_ranks=p, emulated=True)
    for part in ("adi_y", "tdma_c"):
        for r in range(p):
            for phase in ("local", "pack", "exchange", "reduced", "correct"):
                timing["sections"][f"{part}/r{r}/{phase}"] = {"per_step": {"median": t / 100 / p}}


def multiblock_options(o, run_record, checks, timing, ranks):
    """The multiblock case's options as nsbench records them. Over ranks the exchange (checks.exchange, kind
    neighbours_p2p with recipe kemal-p2p): allgather
    1000 bytes and one message a pair of ranks, neighbours 100 bytes and one message a rank; its time in ifsum and
    bc: t / 100 and t / 50 (allgather) or half that (neighbours) on every rank. The stand-in (multigrid=L): its
    section t / 10 a call, and the step 1 + L / 10 times the single grid's."""
    cp = o.get("case-params", {})
    exchange, levels = cp.get("exchange", "allgather"), int(cp.get("multigrid", 0))
    run_record.update(exchange=exchange, multigrid_levels=levels)
    t = timing["step"]["median"]
    if levels:
        timing["stages"]["multigrid"] = {"variant": "multiblock/multigrid/whole_arrays", "tuning": "default",
                                         "per_call": {"median": t / 10}, "per_step": {"median": t / 10}}
        timing["step"]["median"] = t * (1 + levels / 10)
    if ranks > 1:
        near = exchange == "neighbours"
        kind = exchange + ("_p2p" if near and o.get("recipe") == "kemal-p2p" else "")
        checks["exchange"] = {"kind": kind, "bytes_per_iteration": 100 * ranks if near else 1000 * ranks * (ranks - 1),
                              "messages_per_iteration": ranks if near else ranks * (ranks - 1)}
        for k in timing["per_rank_section_median"]:
            k.update(ifsum=t / (200 if near else 100), bc=t / (100 if near else 50))


def family_rows(o):
    """tridiag rows: 5 words an unknown; variant k at FAMILY_FRACTIONS[k] of the copy bandwidth."""
    kind = o["stage"].split("/")[1]
    word = 4 if o.get("precision", "double") == "float" else 8
    model = 5 * word * points(o["grid"])
    rows = []
    for workload in (["p2", "p4"] if kind in ("pdd", "ppt") else [""]):
        for k, name in enumerate(FAMILY_VARIANTS[kind]):
            frac = FAMILY_FRACTIONS[k]
            med = model / (frac * COPY_BANDWIDTH)
            rows.append({"solver": FAMILY, "stage": kind, "variant": f"{FAMILY}/{kind}/{name}", "tuning": "b64",
                         "scheme": workload, "median_s": med, "model_bytes": model, "model_flops": 0,
                         "bytes_per_second": model / med, "flops_per_second": 0, "fraction_of_copy_bandwidth": frac})
    return rows


def transpose_rows(o):
    """V1's transposes of a field of F bytes (8 a word) over p ranks. pack_copy_unpack: its local pass (pack for
    zx, unpack for xz) reads and writes F at the copy bandwidth, its all-to-all 2 F (p - 1) / p. ranks_peer (rank 0's
    phases): the local pass 2 F / p at the copy bandwidth, the all-to-all (p - 1) messages of F / p^2 over PEER_LINK."""
    kind = o["stage"].split("/")[1]
    variant = o.get("variant", "pack_copy_unpack")
    rows = []
    for w in TRANSPOSE_WORKLOADS:
        p = int(w[1])
        nbytes = points(o["grid"]) * (2 if w.endswith("complex") else 1) * 8
        if variant == "ranks_peer":
            local, a2a = 2 * nbytes / p / COPY_BANDWIDTH, (p - 1) * (PEER_LINK[0] + nbytes / p**2 / PEER_LINK[1])
        else:
            local, a2a = 2 * nbytes / COPY_BANDWIDTH, 2 * nbytes * (p - 1) / p / COPY_BANDWIDTH
        phases = {"pack" if kind == "transpose_zx" else "unpack": local, "all_to_all": a2a}
        med = local + a2a
        rows.append({"solver": "fracstep", "stage": kind, "variant": f"fracstep/{kind}/{variant}", "tuning": "b256",
                     "scheme": w, "median_s": med, "model_bytes": 4 * nbytes, "model_flops": 0,
                     "bytes_per_second": 4 * nbytes / med, "flops_per_second": 0,
                     "fraction_of_copy_bandwidth": 4 * nbytes / med / COPY_BANDWIDTH,
                     "phases": {k: {"median_s": v, "iqr_s": 0, "samples": 10} for k, v in phases.items()}})
    return rows


def imle_stage_rows(o):
    """imle/ccd (each axis and boundary rule) and imle/mls rows, timed like a run's step (median_for)."""
    backend = o.get("backend", "cuda")
    kernels = {"ccd": ["line_thread_1d", "transposed"], "mls": ["two_phase_global", "fused_register"]}
    rows = []
    for stage, workloads in (("ccd", [f"{a}_{bc}" for bc in ("dirichlet", "neumann") for a in "xyz"]), ("mls", [""])):
        for k, name in enumerate(kernels[stage] if backend == "cuda" else [backend]):
            for w in workloads:
                med = median_for(o) * (10 if stage == "mls" else 1) / (1 + k)
                rows.append({"solver": IMLE["name"], "stage": stage, "variant": f"imle/{stage}/{name}",
                             "tuning": "default", "scheme": w, "median_s": med, "model_bytes": 1e8, "model_flops": 1e9,
                             "bytes_per_second": 1e8 / med, "flops_per_second": 1e9 / med,
                             "fraction_of_copy_bandwidth": 1e8 / med / 4e12})
    return rows


def stages(o):
    nx, ny, nz = (int(x) for x in o["grid"].split("x"))
    if o.get("solver") == IMLE["name"] and not OLD:
        return {"schema": "nsbench.stages/2", "timestamp": "2026-11-22T00:00:00Z", "grid": {"nx": nx, "ny": ny, "nz": nz},
                "precision": o.get("precision", "double"), "backend": o.get("backend", "cuda"), "machine": machine(),
                "build": build(), "rows": imle_stage_rows(o)}
    if str(o.get("stage", "")).startswith("fracstep/transpose"):
        return {"schema": "nsbench.stages/2", "timestamp": "2026-11-22T00:00:00Z", "grid": {"nx": nx, "ny": ny, "nz": nz},
                "precision": o.get("precision", "double"), "machine": machine(), "build": build(),
                "rows": transpose_rows(o)}
    if str(o.get("stage", "")).startswith(FAMILY + "/"):
        return {"schema": "nsbench.stages/2", "timestamp": "2026-11-22T00:00:00Z", "grid": {"nx": nx, "ny": ny, "nz": nz},
                "precision": o.get("precision", "double"),
                "machine": machine(),
                "build": build(), "rows": family_rows(o)}
    rows = []
    for stage, name in VARIANTS:
        for i, tuning in enumerate(TUNINGS):
            med = (1 + i) * (2 if "shared" in name else 1) * 1e-5
            flops = 1e9 * FLOPS_PER_POINT[stage] / 10
            row = {"stage": stage, "variant": vid(stage, name), "tuning": tuning, "scheme": "euler",
                   "median_s": med, "model_bytes": 1e8, "model_flops": flops, "bytes_per_second": 1e8 / med,
                   "flops_per_second": flops / med, "fraction_of_copy_bandwidth": 1e8 / med / 4e12}
            if not OLD:
                row["solver"] = SOLVER
            rows.append(row)
    return {"schema": "nsbench.stages/1" if OLD else "nsbench.stages/2", "timestamp": "2026-11-22T00:00:00Z",
            "grid": {"nx": nx, "ny": ny, "nz": nz}, "precision": o.get("precision", "double"), "machine": machine(),
            "build": build(), "rows": rows}


def bandwidth(o):
    rows = []
    for t, gbps in [("h2d_pageable", 20), ("d2h_pageable", 15), ("h2d_pinned", 50), ("d2h_pinned", 50),
                    ("d2d", 2000), ("p2p_uni", 400), ("p2p_bidir", 700)]:
        b = 8
        while b <= int(o.get("max-mib", 64)) << 20:
            rows.append({"transfer": t, "bytes": b, "median_s": 5e-6 + b / (gbps * 1e9),
                         "bytes_per_second": b / (5e-6 + b / (gbps * 1e9))})
            b *= 4
    return {"schema": "nsbench.bandwidth/1", "timestamp": "2026-11-22T00:00:00Z", "machine": machine(),
            "build": build(), "rows": rows}


# The projection solver's named GPU recipes, timed by the fake tune's confirmation (ms a point: see fake_tune).
FAKE_NAMED_RECIPES = {"thibault-global": 1.3, "thibault-optimal": 1.1, "modern": 1.05, "best": 1.0}


def fake_tune(o):
    """nsbench tune --json: the search's choice at 0.95 ns a point (FAKE_TUNE_FACTOR changes it), every named
    recipe at its factor, 2% IQR each."""
    t = points(o["grid"]) * 1e-9
    factor = float(os.environ.get("FAKE_TUNE_FACTOR", "0.95"))
    confirm = {"phase": "confirm", "what": "step", "candidate": "search: launch=stream poisson=jacobi", "verdict": "pass",
               "reason": "", "median_s": factor * t, "iqr_s": 0.02 * factor * t}
    named = [{"phase": "named", "what": "step", "candidate": n, "verdict": "pass", "reason": "", "median_s": f * t,
              "iqr_s": 0.02 * f * t} for n, f in FAKE_NAMED_RECIPES.items()]
    won = min([confirm] + named, key=lambda c: c["median_s"])
    nx, ny, nz = (int(x) for x in o["grid"].split("x"))
    tuned = {"grid": {"nx": nx, "ny": ny, "nz": nz}, "step_median_s": won["median_s"], "step_iqr_s": won["iqr_s"],
             "chosen": "the search's choice" if won is confirm else f"named recipe {won['candidate']}, faster beyond the noise",
             "tune_seconds": float(o.get("budget", 170)) * 0.9}
    key = {"machine": "Fake GPU", "driver": "cuda-driver-13000", "solver": "projection", "backend": "cuda",
           "precision": o.get("precision", "float"), "grid_class": o["grid"], "ranks": 1}
    return {"schema": "nsbench.tune/1", "command_line": "nsbench tune", "key": key, "seconds": tuned["tune_seconds"],
            "budget_s": float(o.get("budget", 170)), "tuned": tuned,
            "recipe": {"solver": "projection", "recipes": [{"name": "tuned", "tuned": tuned}]},
            "recipe_file": "fake/recipe.json", "candidates": [confirm] + named, "machine": machine(), "build": build(),
            "timestamp": "2026-11-29T00:00:00Z", "checks": {"reference": {"performed": True, "pass": True}}}


def listing():
    halo = [{"name": h, "backend": "cuda", "driver": "mpi" if h.startswith("mpi") else "threads", "tags": {},
             "tunings": ["pinned", "pageable"] if h == "host_staged_sync" else ["default"]} for h in HALO]
    if OLD:
        return {"schema": "nsbench.list/1",
                "recipes": sorted(set(RECIPES + URBAN_RECIPES + WAVE["recipes"] + MULTIBLOCK["recipes"] + FRACSTEP["recipes"] + IMLE["recipes"]
                                      + [r for g in GOHARI for r in g["recipes"]])),
                "cases": CASES + URBAN_CASES + WAVE["cases"] + MULTIBLOCK["cases"] + [c for g in GOHARI for c in g["cases"]]
                + POISSON_CASES + FRACSTEP["cases"],
                "with_cuda": True, "with_mpi": True, "halo": halo,
                "variants": [{"stage": s, "name": n, "tunings": TUNINGS} for s, n in VARIANTS]
                + [{"stage": s, "name": n, "tunings": t} for s, n, t in URBAN_VARIANTS]
                # the family named with its solver, so every study (studies/ha2018/ too) loads under both schemas
                + [{"solver": FAMILY, "stage": k, "name": n, "tunings": ["b64"]}
                   for k, names in FAMILY_VARIANTS.items() for n in names]
                + [{"solver": "fracstep", "stage": k, "name": n, "tunings": ["b256"]}
                   for k in TRANSPOSE_KINDS for n in TRANSPOSE_VARIANTS]
                + [{"solver": "multiblock", "stage": s, "name": "global_2d", "tunings": ["bx32_by4"]} for s in MULTIBLOCK["stages"]]
                + [{"solver": so, "stage": s, "name": n, "tunings": GOHARI_TUNINGS} for so, s, n in GOHARI_VARIANTS]
                + [{"solver": "poisson", "stage": s, "name": n, "tunings": ["bx32_by4_sz8"]} for s, n in POISSON_VARIANTS]
                + [{"solver": "imle", "stage": s, "name": n, "tunings": ["bx32_by4"]} for s, n in IMLE_VARIANTS]}
    return {"schema": "nsbench.list/2", "with_cuda": True, "with_mpi": True,
            "solvers": [{"name": SOLVER, "description": "fake", "stages": STAGE_ORDER + URBAN_STAGES,
                         "cases": CASES + URBAN_CASES, "recipes": RECIPES + URBAN_RECIPES}, WAVE, MULTIBLOCK, FRACSTEP, IMLE] + GOHARI,
            "stages": [{"id": f"{SOLVER}/{s}", "solver": SOLVER, "name": s, "reads": [], "writes": [],
                        "workloads": ["euler", "ab2"] if s == "momentum" else [""],
                        "flops_per_point": ({"euler": 201, "ab2": 210} if s == "momentum"
                                            else {"": FLOPS_PER_POINT[s]}),
                        "tuning_axes": [], "tag_vocabulary": {}} for s in STAGE_ORDER]
            + [{"id": f"{FAMILY}/{k}", "solver": FAMILY, "name": k, "reads": [], "writes": [],
                "workloads": ["p2", "p4"] if k in ("pdd", "ppt") else [""], "flops_per_point": {}, "tuning_axes": ["b"],
                "tag_vocabulary": {}} for k in FAMILY_VARIANTS]
            + [{"id": f"{SOLVER}/{s}", "solver": SOLVER, "name": s, "reads": [], "writes": [], "workloads": [""],
                "flops_per_point": {"": 0}, "tuning_axes": [], "tag_vocabulary": {}} for s in URBAN_STAGES]
            + [{"id": f"fracstep/{k}", "solver": "fracstep", "name": k, "reads": [], "writes": [],
                "workloads": TRANSPOSE_WORKLOADS, "flops_per_point": {w: 0 for w in TRANSPOSE_WORKLOADS},
                "tuning_axes": ["b"], "tag_vocabulary": {}} for k in TRANSPOSE_KINDS]
            + [{"id": f"{g['name']}/{s}", "solver": g["name"], "name": s, "reads": [], "writes": [], "workloads": [""],
                "flops_per_point": {"": 10}, "tuning_axes": [], "tag_vocabulary": {}} for g in GOHARI for s in g["stages"]],
            "variants": [{"id": vid(s, n), "solver": SOLVER, "stage": s, "name": n, "backend": "cuda", "tags": {},
                          "tunings": TUNINGS, "status": ""} for s, n in VARIANTS]
            + [{"id": vid(s, n), "solver": SOLVER, "stage": s, "name": n, "backend": "cuda", "tags": {}, "tunings": t,
                "status": ""} for s, n, t in URBAN_VARIANTS]
            + [{"id": f"{FAMILY}/{k}/{n}", "solver": FAMILY, "stage": k, "name": n, "backend": "cuda", "tags": {},
                "tunings": ["b64"], "status": ""} for k, names in FAMILY_VARIANTS.items() for n in names]
            + [{"id": f"fracstep/{k}/{n}", "solver": "fracstep", "stage": k, "name": n, "backend": "cuda", "tags": {},
                "tunings": ["b256"], "status": ""} for k in TRANSPOSE_KINDS for n in TRANSPOSE_VARIANTS]
            + [{"id": f"multiblock/{s}/global_2d", "solver": "multiblock", "stage": s, "name": "global_2d", "backend": "cuda",
                "tags": {}, "tunings": ["bx32_by4"], "status": ""} for s in MULTIBLOCK["stages"]]
            + [{"id": f"{so}/{s}/{n}", "solver": so, "stage": s, "name": n, "backend": "cuda", "tags": {},
                "tunings": GOHARI_TUNINGS, "status": ""} for so, s, n in GOHARI_VARIANTS]
            + [{"id": f"poisson/{s}/{n}", "solver": "poisson", "stage": s, "name": n, "backend": "cuda", "tags": {},
                "tunings": ["bx32_by4_sz8"], "status": ""} for s, n in POISSON_VARIANTS]
            + [{"id": f"imle/{s}/{n}", "solver": "imle", "stage": s, "name": n, "backend": "cuda", "tags": {},
                "tunings": ["bx32_by4"], "status": ""} for s, n in IMLE_VARIANTS],
            "halo": halo,
            "recipes": [{"name": r, "solver": SOLVER, "description": ""} for r in RECIPES + URBAN_RECIPES]
            + [{"name": r, "solver": "wave", "description": ""} for r in WAVE["recipes"]]
            + [{"name": r, "solver": "multiblock", "description": ""} for r in MULTIBLOCK["recipes"]]
            + [{"name": r, "solver": g["name"], "description": ""} for g in GOHARI for r in g["recipes"]]
            + [{"name": r, "solver": "fracstep", "description": ""} for r in FRACSTEP["recipes"]]
            + [{"name": r, "solver": "imle", "description": ""} for r in IMLE["recipes"]],
            "cases": [{"name": c, "solver": SOLVER} for c in CASES + URBAN_CASES] + [{"name": "standing_wave", "solver": "wave"},
                                                                       {"name": "conjugate_cylinder", "solver": "multiblock"}]
            + [{"name": c, "solver": g["name"]} for g in GOHARI for c in g["cases"]]
            + [{"name": c, "solver": "poisson"} for c in POISSON_CASES]
            + [{"name": c, "solver": "fracstep"} for c in FRACSTEP["cases"]],
            "poisson_methods": POISSON_METHODS}


def main():
    argv = sys.argv[1:]
    fail = os.environ.get("FAKE_NSBENCH_FAIL")
    if fail and fail in " ".join(argv):
        print("nsbench: error: fake failure", file=sys.stderr)
        return 1
    if argv[:2] == ["list", "--json"]:
        print(json.dumps(listing()))
        return 0
    o = opts(argv[1:])
    if os.environ.get("OMPI_COMM_WORLD_RANK", "0") != "0":
        return 0
    if os.environ.get("FAKE_NSBENCH_STARTED"):
        with open(os.environ["FAKE_NSBENCH_STARTED"], "a") as f:
            f.write(f"{os.getpid()}\n")
    sleep_s, _, where = os.environ.get("FAKE_NSBENCH_SLEEP", "").partition(":")
    if sleep_s and where in " ".join(argv):
        time.sleep(float(sleep_s))
    code, _, where = os.environ.get("FAKE_NSBENCH_EXIT", "").partition(":")
    code = int(code) if code and where in " ".join(argv) and argv[0] == "run" else 0
    if code == 4:  # as nsbench --recipe tuned without a tuned recipe: nothing run, no result file
        print("nsbench: not run: --recipe tuned: no tuned recipe for the projection solver on cuda (Fake GPU), float, "
              "grid class 64x32x64 (x/recipe.json does not exist); make it with:\n  nsbench tune --case cavity",
              file=sys.stderr)
        return 4
    result = {"run": run, "stages": stages, "bandwidth": bandwidth, "tune": fake_tune}[argv[0]](o)
    if code == 2:
        result["checks"]["reference"].update(performed=True, **{"pass": False})
    if code == 3:
        result.update(status="failed", failure="non-finite values in u")
    with open(o["json"], "w") as f:
        json.dump(result, f)
    if code:
        print("nsbench: run FAILED: non-finite values in u" if code == 3 else "  reference check: FAIL", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
