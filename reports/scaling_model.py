"""The multi-GPU scaling model: measured one-GPU compute times per slab size + measured (or assumed)
link latency and bandwidth -> predicted time per step for P = 1..64 GPUs, for the links of this
machine and others. Everything it prints says whether it is measured or modelled.

A rank of a z-slab decomposition of an NX x NY x NZ grid computes NZ/P planes and, per step, makes
2 + J exchanges (J Jacobi sweeps): u*,v*,w* after the predictor, p after each sweep, u,v,w after the
correction. Each exchange sends, per field and per neighbour, one padded plane of (NX+2)(NY+2) values.

    blocking exchange:    T(P) = Tc(NZ/P) + sum over exchanges of  n_copies * t_link(plane)
    overlapped exchange:  T(P) = Tc(NZ/P) + sum over exchanges of  max(0, n_copies * t_link(plane) - t_interior)

Tc(n) is the measured one-GPU step time on the slab (the `subgrid` runs), n_copies = fields x
neighbours (copies on one stream run one after the other), t_interior the measured time of the
stage whose interior hides the exchange, scaled to its NZ/P - 2 interior planes. t_link(m) is the
measured transfer time at size m (interpolated in log-log between measured sizes) or alpha + m / beta
for links this machine does not have.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import fmt, variant_name  # noqa: E402

# This machine's peer-to-peer copy, as nsbench bandwidth measured it (NVLink or PCIe: whatever it has).
PEER = "measured peer-to-peer copy (this machine)"

# Links this machine does not have: (latency s, bandwidth B/s per direction, description).
ASSUMED_LINKS = {
    "PCIe Gen3 x16, host-staged (2009-2019 desktops)": (2 * 10e-6, 12e9 / 2,
                                                         "device->host->device: two PCIe hops of 10 us, 12 GB/s each"),
    "NVLink 4 nominal (H100/H200 SXM)": (3e-6, 450e9, "450 GB/s per direction, 3 us per copy"),
    "network, InfiniBand NDR 400 Gb/s with GPUDirect": (5e-6, 48e9, "one GPU per node: every exchange crosses the "
                                                                   "network, 48 GB/s, 5 us"),
}


def curve(rows, transfer):
    pts = sorted((r["bytes"], r["median_s"]) for r in rows if r["transfer"] == transfer)
    return pts or None


def interp(pts, m):
    """Transfer time at m bytes from measured (bytes, seconds) points, log-log interpolation."""
    if m <= pts[0][0]:
        return pts[0][1]
    for (b0, t0), (b1, t1) in zip(pts, pts[1:]):
        if b0 <= m <= b1:
            f = (math.log(m) - math.log(b0)) / (math.log(b1) - math.log(b0))
            return math.exp(math.log(t0) + f * (math.log(t1) - math.log(t0)))
    b, t = pts[-1]
    return t * m / b  # past the largest size: bandwidth-bound


def grid_tuple(r):
    g = r["run"]["grid"]
    return g["nx"], g["ny"], g["nz"]


def stage_call(r, stage):
    s = r["timing"]["stages"].get(stage, {})
    return s.get("per_call", {}).get("median", 0.0)


def predict(sub, nx, ny, nz, P, jacobi, t_link, overlapped, elem=4):
    """Modelled seconds per step on P GPUs, or None when the slab size was not measured."""
    n = nz // P
    r = sub.get((nx, ny, n))
    if r is None or nz % P:
        return None
    tc = r["timing"]["step"]["median"]
    if P == 1:
        return tc
    plane = (nx + 2) * (ny + 2) * elem
    neighbours = 1 if P == 2 else 2  # the busiest rank (walls in z: the end ranks have one)
    interior = max(0.0, (n - 2) / n)
    total = tc
    for fields, stage, count in ((3, "momentum", 1), (1, "pressure", jacobi), (3, "correction", 1)):
        t = fields * neighbours * t_link(plane)
        if overlapped:
            t = max(0.0, t - stage_call(r, stage) * interior)
        total += count * t
    return total


def build(results, all_results):
    """Model tables and curves from the scaling study's results (and the bandwidth study's)."""
    sub = {}
    for r in results.values():
        if r.get("study", {}).get("group") in ("subgrid", "one_gpu"):
            sub.setdefault(grid_tuple(r), r)
    bw = next(iter(all_results.get("tableA1_bandwidth", {}).values()), None)
    if not sub or bw is None:
        return None
    rows = bw["rows"]
    p2p, h2d, d2h = curve(rows, "p2p_uni"), curve(rows, "h2d_pinned"), curve(rows, "d2h_pinned")
    h2d_pg, d2h_pg = curve(rows, "h2d_pageable"), curve(rows, "d2h_pageable")
    links = {}
    if p2p:
        links[PEER] = lambda m: interp(p2p, m)
    if h2d and d2h:
        links["measured host-staged, pinned (this machine)"] = lambda m: interp(d2h, m) + interp(h2d, m)
    if h2d_pg and d2h_pg:
        links["measured host-staged, pageable (this machine)"] = lambda m: interp(d2h_pg, m) + interp(h2d_pg, m)
    for name, (alpha, beta, _) in ASSUMED_LINKS.items():
        links[name] = (lambda a, b: (lambda m: a + m / b))(alpha, beta)
    # Which link and form models each measured halo variant.
    variant_model = {"p2p_sync": (PEER, False),
                     "nccl": (PEER, False),
                     "p2p_async_overlap": (PEER, True),
                     "host_staged_sync:pinned": ("measured host-staged, pinned (this machine)", False),
                     "mpi_host_staged": ("measured host-staged, pinned (this machine)", False),
                     "host_staged_sync:pageable": ("measured host-staged, pageable (this machine)", False)}

    check_rows = []
    for r in sorted(results.values(), key=lambda r: r.get("study", {}).get("run_id", "")):
        if r.get("study", {}).get("group") not in ("strong", "mpi"):
            continue
        d = r["run"]["decomposition"]
        halo = variant_name(d["halo"]["variant"])
        if d["halo"]["tuning"] != "default":
            halo += ":" + d["halo"]["tuning"]
        if halo not in variant_model or variant_model[halo][0] not in links:
            continue
        link, overlapped = variant_model[halo]
        nx, ny, nz = grid_tuple(r)
        t = predict(sub, nx, ny, nz, d["ranks"], r["run"]["jacobi"]["iterations"], links[link], overlapped)
        if t is None:
            continue
        meas = r["timing"]["step"]["median"]
        check_rows.append([f"{nx}x{ny}x{nz}", d["ranks"], f"{halo} ({d['driver']})", fmt(meas * 1e3, 4),
                           fmt(t * 1e3, 4), f"{100 * (t - meas) / meas:+.1f}%"])

    # The prediction table: the largest grid with slab measurements down to 8 planes.
    candidates = sorted({(nx, ny, nz) for (nx, ny, nz) in sub if all((nx, ny, nz // p) in sub for p in (1, 2, 4))},
                        key=lambda g: g[0] * g[1] * g[2])
    if not candidates:
        return None
    nx, ny, nz = candidates[-1]
    jacobi = next(iter(sub.values()))["run"]["jacobi"]["iterations"]
    t1 = sub[(nx, ny, nz)]["timing"]["step"]["median"]
    forms = [(name, False) for name in links] + [(PEER, True)]
    table_rows, curves = [], {}
    gpu_counts = [1, 2, 4, 8, 16, 32, 64]
    for name, overlapped in forms:
        if name not in links:
            continue
        label = name + (", overlapped" if overlapped else ", blocking")
        row = [label]
        for P in gpu_counts:
            t = predict(sub, nx, ny, nz, P, jacobi, links[name], overlapped)
            if t is None:
                row.append("-")
                continue
            e = t1 / (P * t)
            row.append(f"{fmt(t * 1e3)} ms, E {100 * e:.0f}%")
            curves.setdefault(label, []).append((P, e))
        table_rows.append(row)
    measured_row = ["measured (this machine)"]
    for P in gpu_counts:
        hit = [r for r in results.values() if r.get("study", {}).get("group") == "strong"
               and grid_tuple(r) == (nx, ny, nz) and r["run"]["decomposition"]["ranks"] == P]
        if P == 1:
            measured_row.append(f"{fmt(t1 * 1e3)} ms")
        elif hit:
            best = min(hit, key=lambda r: r["timing"]["step"]["median"])
            t = best["timing"]["step"]["median"]
            measured_row.append(f"{fmt(t * 1e3)} ms, E {100 * t1 / (P * t):.0f}% "
                                f"({variant_name(best['run']['decomposition']['halo']['variant'])})")
        else:
            measured_row.append("not measured (no such machine)")
    table_rows.insert(0, measured_row)
    assumed = "; ".join(f"{k}: {v[2]}" for k, v in ASSUMED_LINKS.items())
    return {
        "explanation": (f"Scaling model (modelled numbers, except the row marked measured): T(P) = Tc(NZ/P) + the "
                        f"exchanges' link time (blocking) or what of it the interior does not hide (overlapped); Tc "
                        f"measured on one GPU for every slab size, links measured by nsbench bandwidth where this "
                        f"machine has them. Assumed links: {assumed}. The check table compares the model with every "
                        f"measured multi-GPU point; a negative error means the model is optimistic (host "
                        f"synchronisation and barriers are not in it)."),
        "check_headers": ["grid", "GPUs", "halo (driver)", "measured ms/step", "modelled ms/step", "model error"],
        "check_rows": check_rows,
        "table_headers": [f"{nx}x{ny}x{nz} float, {jacobi} Jacobi sweeps"] + [f"P={p}" for p in gpu_counts],
        "table_rows": table_rows,
        "curves": curves,
        "grid": f"{nx}x{ny}x{nz}",
        "grid_points": nx * ny * nz,
    }
