#!/usr/bin/env python3
"""A stand-in for nsbench in the Python tests: answers `list --json`, and writes schema-shaped results
for `run`, `stages` and `bandwidth` whose medians follow known formulas (see median_for), so tests can
check that the report prints exactly the inputs' numbers. FAKE_NSBENCH_FAIL=<substring> makes any
command line containing the substring fail (exit 1), like a crashed run."""
import json
import os
import sys

VARIANTS = [("momentum", "global_2d_zloop"), ("momentum", "shared_zloop"), ("pressure", "jacobi_global_2d_zloop"),
            ("pressure", "jacobi_shared_zloop"), ("velocity_bc", "global_2d"), ("divergence", "global_2d"),
            ("pressure_bc", "global_2d"), ("correction", "global_2d")]
TUNINGS = ["bx16_by16_sz2", "bx8_by8_sz2", "bx16_by8_sz2"]
HALO = ["p2p_sync", "p2p_async_overlap", "host_staged_sync", "nccl", "mpi_host_staged", "mpi_cuda_aware",
        "shared_memory_copy", "mpi_sendrecv"]


def opts(argv):
    o, i = {}, 0
    while i < len(argv):
        a = argv[i]
        if a.startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                o[a[2:]] = argv[i + 1]
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


def machine(gpu):
    m = {"cpu": {"model": "Fake CPU", "logical_cores": 4, "threads_used": 1}, "hostname": "fake"}
    m["gpu"] = {"name": "Fake GPU", "count": 2, "copy_bandwidth": {"bytes_per_second": 4e12}} if gpu else None
    return m


def run(o):
    grid = o["grid"]
    nx, ny, nz = (int(x) for x in grid.split("x"))
    gpu = o.get("backend") == "cuda"
    t = median_for(o)
    ranks = int(o.get("ranks", os.environ.get("OMPI_COMM_WORLD_SIZE", 1)))
    mpi = "OMPI_COMM_WORLD_SIZE" in os.environ
    stages = {s: {"variant": f"{s}/x", "per_call": {"median": t / 40}, "per_step": {"median": t / 8}}
              for s in ["momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction"]}
    halo = {}
    if ranks > 1:
        halo = {"share_of_step": 0.05, "halo_pressure": {"bytes_per_second": 1e11}}
    name, _, tuning = o.get("halo", "p2p_sync").partition(":")
    return {
        "schema": "nsbench.run/1", "timestamp": "2026-11-22T00:00:00Z", "machine": machine(gpu),
        "build": {"git_commit": "0123456789abcdef"},
        "run": {"grid": {"nx": nx, "ny": ny, "nz": nz}, "backend": o.get("backend", "cpu_serial"),
                "recipe": o.get("recipe", "cpu-serial"), "threads": 4 if o.get("backend") == "cpu_omp" else 1,
                "precision": o.get("precision", "double"), "jacobi": {"iterations": 20},
                "decomposition": {"ranks": ranks, "driver": "mpi" if mpi else "threads" if ranks > 1 else "single",
                                  "halo": {"variant": "halo/" + name, "tuning": tuning or "default"}}},
        "timing": {"step": {"median": t}, "gflops": 1.0 / t * 1e-9 * points(grid) * 100, "stages": stages, "halo": halo},
        "checks": {"reference": {"performed": gpu and not o.get("no-check"), "pass": True,
                                 "reason": "" if gpu else "this run is the CPU reference"}},
        "kernels": {"momentum/shared_zloop:kernel": {"registers": 40, "static_shared_bytes": 4096, "local_bytes": 0}}
        if gpu else {},
    }


def stages(o):
    nx, ny, nz = (int(x) for x in o["grid"].split("x"))
    rows = []
    for stage, name in VARIANTS:
        for i, tuning in enumerate(TUNINGS):
            med = (1 + i) * (2 if "shared" in name else 1) * 1e-5
            rows.append({"stage": stage, "variant": f"{stage}/{name}", "tuning": tuning, "scheme": "euler",
                         "median_s": med, "model_bytes": 1e8, "model_flops": 1e9, "bytes_per_second": 1e8 / med,
                         "flops_per_second": 1e9 / med, "fraction_of_copy_bandwidth": 1e8 / med / 4e12})
    return {"schema": "nsbench.stages/1", "grid": {"nx": nx, "ny": ny, "nz": nz},
            "precision": o.get("precision", "double"), "machine": machine(True), "rows": rows}


def bandwidth(o):
    rows = []
    for t, gbps in [("h2d_pageable", 20), ("d2h_pageable", 15), ("h2d_pinned", 50), ("d2h_pinned", 50),
                    ("d2d", 2000), ("p2p_uni", 400), ("p2p_bidir", 700)]:
        b = 8
        while b <= int(o.get("max-mib", 64)) << 20:
            rows.append({"transfer": t, "bytes": b, "median_s": 5e-6 + b / (gbps * 1e9),
                         "bytes_per_second": b / (5e-6 + b / (gbps * 1e9))})
            b *= 4
    return {"schema": "nsbench.bandwidth/1", "machine": machine(True), "rows": rows}


def main():
    argv = sys.argv[1:]
    fail = os.environ.get("FAKE_NSBENCH_FAIL")
    if fail and fail in " ".join(argv):
        print("nsbench: error: fake failure", file=sys.stderr)
        return 1
    if argv[:2] == ["list", "--json"]:
        print(json.dumps({"recipes": ["cpu-serial", "cpu-omp", "thibault-global", "thibault-optimal", "modern", "best"],
                          "cases": ["cavity", "channel", "taylor_green"], "with_cuda": True, "with_mpi": True,
                          "halo": [{"name": h, "tunings": ["pinned", "pageable"] if h == "host_staged_sync" else ["default"]}
                                   for h in HALO],
                          "variants": [{"stage": s, "name": n, "tunings": TUNINGS} for s, n in VARIANTS]}))
        return 0
    o = opts(argv[1:])
    if os.environ.get("OMPI_COMM_WORLD_RANK", "0") != "0":
        return 0
    result = {"run": run, "stages": stages, "bandwidth": bandwidth}[argv[0]](o)
    with open(o["json"], "w") as f:
        json.dump(result, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
