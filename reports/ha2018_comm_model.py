"""The communication model of Ha, Park & You's multi-GPU solver (notes seed_002 Sec. 6.4-6.5), written once for the
report sections (reports/ha2018.py) and their tests.

Message sizes per rank per sub-step (notes Sec. 6.4), from the grid (Nx x Ny x Nz cells), p and the word size e:

  PDD (ADI-Y, Algorithm 1)   Step 4: x~_1 and v_1 of u, v, w to rank r-1, 2 messages of 3 Nx Nz words
                             Step 6: y_{2r+1} of u, v, w to rank r+1, 1 message of 3 Nx Nz words
                             (kappa-batched: Nz/kappa times as many messages, each kappa/Nz the size)
  PPT (TDMA-C)               all-gather of every rank's share of the reduced systems: per (kx, kz) system
                             v_1, v_m, w_1, w_m (real) and x~_1, x~_m (complex): 8 words; Nx (Nz/2 + 1)
                             systems with the paper's real-to-complex z transform
  V1 global transpose        one N-cell field: each rank sends N e (p-1) / p^2 bytes, (p-1) messages;
                             per sub-step 2 transposes of u, v, w in ADI (M1, M2) and 2 complex ones in the
                             Poisson solve (P1, P4)
  y halo (V2, not in the     one layer of Nx Nz words each way per field exchanged: u, v, w before the
  paper's text)              right-hand side, du, dv, dw before the divergence, phi before the correction

Times (notes Sec. 6.5): a message of m bytes takes alpha + m / B; a ring all-gather of s bytes a rank
(p - 1)(alpha + s / B); an all-to-all (p - 1)(alpha + m / B) with m its per-peer part. alpha and B come from
a tableA1_bandwidth result (the measured peer-to-peer copy of this machine, `link_from_bandwidth`) or are
given (P100_NVLINK1: the paper's machine, assumed).
"""
import os

import common

P100_NVLINK1 = {"name": "P100 NVLink 1 (assumed: notes Sec. 6.5)", "alpha_s": 10e-6, "bandwidth_Bps": 20e9,
                "source": "about 20 GB/s a link a direction [X, notes Sec. 6.5]; 10 us a message (MPI over NVLink 1, assumed)"}
DOUBLE = 8
PDD_WORDS_PER_COLUMN = 9  # 3 components x (x~_1, v_1 in Step 4 + y in Step 6)
PPT_WORDS_PER_SYSTEM = 8  # v_1, v_m, w_1, w_m real; x~_1, x~_m complex
Y_HALO_FIELDS = 7         # u, v, w; du, dv, dw; phi (notes Sec. 1.8: "not mentioned, but needed")
V1_FIELD_TRANSPOSES = 2 * 3 + 2 * 2  # M1, M2 of u, v, w; P1, P4 of a complex field (2 words a cell)


def message_time(link, nbytes):
    return link["alpha_s"] + nbytes / link["bandwidth_Bps"]


def pdd_messages(nx, nz, elem=DOUBLE, kappa=None):
    """PDD's messages of one rank a sub-step: (count, bytes each) for Step 4 and Step 6 together."""
    batches = nz // kappa if kappa else 1
    return 3 * batches, 3 * nx * nz * elem // batches


def pdd_bytes(nx, nz, elem=DOUBLE):
    """Notes Sec. 6.4: 9 Nx Nz words a rank a sub-step (37.7 MB for 4096 x 128 in double)."""
    return PDD_WORDS_PER_COLUMN * nx * nz * elem


def ppt_contribution_bytes(nx, nz, elem=DOUBLE, r2c=True):
    """A rank's share of TDMA-C's all-gather: 8 words a (kx, kz) system (17.0 MB for 4096 x 128, R2C)."""
    systems = nx * (nz // 2 + 1) if r2c else nx * nz
    return PPT_WORDS_PER_SYSTEM * systems * elem


def transpose_bytes(cells, p, elem=DOUBLE):
    """Bytes one rank sends in one global transpose of a real field of `cells` cells (201 MB: 134M, p = 4)."""
    return cells * elem * (p - 1) / p**2


def t_pdd(link, nx, nz, p, elem=DOUBLE, kappa=None):
    """Seconds a sub-step of PDD's messages on the critical path (every rank sends and receives at once)."""
    if p < 2:
        return 0.0
    count, each = pdd_messages(nx, nz, elem, kappa)
    return count * message_time(link, each)


def t_allgather(link, nbytes_per_rank, p):
    return (p - 1) * message_time(link, nbytes_per_rank) if p > 1 else 0.0


def t_ppt(link, nx, nz, p, elem=DOUBLE, r2c=True):
    return t_allgather(link, ppt_contribution_bytes(nx, nz, elem, r2c), p)


def t_y_halo(link, nx, nz, p, elem=DOUBLE):
    """The y-slabs' one-layer halo of the stencils, both neighbours at once, a sub-step."""
    return Y_HALO_FIELDS * message_time(link, nx * nz * elem) if p > 1 else 0.0


def t_transposes(link, cells, p, elem=DOUBLE):
    """V1's global transposes a sub-step: (p - 1) messages of N e / p^2 each, V1_FIELD_TRANSPOSES fields."""
    if p < 2:
        return 0.0
    per_peer = cells * elem / p**2
    return V1_FIELD_TRANSPOSES * (p - 1) * message_time(link, per_peer)


def link_from_bandwidth(path_or_result, transfer="p2p_uni"):
    """alpha and B from a tableA1_bandwidth result: alpha the median time of its smallest `transfer`, B its
    largest size over (time - alpha). None if the result has no such transfer (one GPU: no peer copy)."""
    r = path_or_result
    if isinstance(r, str):
        r = common.read_json(r)
    rows = sorted((row["bytes"], row["median_s"]) for row in r.get("rows", []) if row.get("transfer") == transfer)
    if len(rows) < 2:
        return None
    alpha = rows[0][1]
    big, t = rows[-1]
    gpu = r.get("machine", {}).get("gpu", {})
    return {"name": f"{gpu.get('count', '?')} x {gpu.get('name', '?')} {transfer} (measured)", "alpha_s": alpha,
            "bandwidth_Bps": big / (t - alpha),
            "source": f"tableA1_bandwidth: alpha = {alpha * 1e6:.2f} us ({rows[0][0]} B), B from {big} B in {t * 1e6:.1f} us"}


def find_link(results_root, transfer="p2p_uni"):
    """The first tableA1_bandwidth result under results_root/tableA1_bandwidth/*/ with a peer copy, as a link."""
    base = os.path.join(results_root, "tableA1_bandwidth")
    for machine in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        d = os.path.join(base, machine)
        for name in sorted(os.listdir(d)):
            if common.result_stem(name):
                link = link_from_bandwidth(os.path.join(d, name), transfer)
                if link:
                    return dict(link, path=os.path.join("results", "tableA1_bandwidth", machine, name))
    return None
