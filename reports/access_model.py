"""The analytic request/sector model of a stage's global-memory accesses (seed 004 notes Sec. 6.5), for the
stages of Gohari et al. (2012) where the profiler's counters are not available (CPU-only machine, CI, a
driver that refuses them). It counts what the hardware counts:

  request  one warp-level global load or store instruction (Fermi's gld_request / gst_request; Hopper's
           l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum);
  sector   a 32-byte piece of memory a request touches (l1tex__t_sectors_..._op_{ld,st}.sum): the distinct
           32-byte sectors of its active threads' addresses.

The addresses are the solver's own: the padded row-major plane of harness/grid.hpp (NX = nx + 2 words a row,
ghost rows and columns, the k = 1 plane of three, node (i, j) at i + NX (j + NY), NY = ny + 2), each array's
base 256-byte aligned (cudaMalloc). Per traversal (variants/grid2d/stencil2d.cuh):

  global_2d  bx x by blocks, threadIdx.x fastest, warps of 32 consecutive thread ids: one load per (staged
             field, stencil offset the formula reads) and per pointwise field, one store per output;
  global_1d  the same instructions over B-thread blocks of the flattened node index m = (j - 1) nx + (i - 1);
  shared_1d  the 1D blocks staging rows j - 1, j, j + 1 of each staged field: three row loads, thread 0's
             and the block's last thread's loads of one value beyond each end (three each), and the
             row-end nodes' (i = 1, nx) loads of their xi-neighbours across the end from global memory.

Left out (small beside the rest, and said so where it is printed): the ghost-column copies a row-end node
also stores, the residual reduction's per-block partials, and partial warps at the grid's last rows.
Requests a node and sectors a request are taken over the first WINDOW_ROWS rows, one period of the
layout's alignment pattern for every block shape used here (the NX-word rows shift a row's start by NX mod 8
words; 32 rows hold whole 2D block rows and whole 1D warps), and are intensive: a call's totals are
nodes x requests a node.
"""

import functools

SECTOR_BYTES = 32
WINDOW_ROWS = 32

# Offsets (di, dj) each stage's formulas read of a staged field (harness/solvers/grid2d/formulas.hpp),
# its pointwise fields and its outputs (stage_call.hpp).
NINE = tuple((di, dj) for dj in (-1, 0, 1) for di in (-1, 0, 1))
CROSS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # d_xi, d_eta: psi in the vorticity update
STAGES = {
    "sweep": {"staged": {"x": NINE, "y": NINE}, "pointwise": ("phi", "psi_c"), "outputs": ("x_new", "y_new")},
    "stream": {"staged": {"psi": NINE}, "pointwise": ("omega", "ca", "cb", "cg", "p", "q"), "outputs": ("psi_new",)},
    "vorticity": {"staged": {"omega": NINE, "psi": CROSS}, "pointwise": ("ca", "cb", "cg", "p", "q", "ij"),
                  "outputs": ("omega_new",)},
}
TRAVERSALS = ("global_2d", "global_1d", "shared_1d")


def parse_tuning(tuning):
    """'bx16_by8' -> (16, 8); 'b256' -> (256, 1); other axes (a carve-out) do not change the addresses."""
    bx, by = 0, 1
    for part in tuning.split("_"):
        if part.startswith("bx"):
            bx = int(part[2:])
        elif part.startswith("by"):
            by = int(part[2:])
        elif part.startswith("b") and part[1:].isdigit():
            bx = int(part[1:])
    if bx <= 0:
        raise ValueError(f"tuning '{tuning}' names no block size")
    return bx, by


def traversal_of(variant):
    """The traversal of a variant id or name ('streamvort/stream/shared_1d_buffer' -> 'shared_1d')."""
    name = variant.split("/")[-1]
    for t in TRAVERSALS:
        if name == t or name.startswith(t + "_"):
            return t
    return None


class Layout:
    """Word addresses of the nodes of an nx x ny interior in the padded plane (base 256-B aligned)."""

    def __init__(self, nx, ny, word=4):
        self.nx, self.ny, self.word = nx, ny, word
        self.row = nx + 2
        self.base = self.row * (ny + 2)  # the k = 1 plane

    def addr(self, i, j):
        return i + self.row * j + self.base

    def sector(self, word_address):
        return word_address * self.word // SECTOR_BYTES


class Tally:
    """Requests and sectors of loads and stores."""

    def __init__(self):
        self.req = {"ld": 0, "st": 0}
        self.sec = {"ld": 0, "st": 0}

    def add(self, kind, layout, addresses):
        """One warp instruction over the active threads' word addresses (none active: no request)."""
        if addresses:
            self.req[kind] += 1
            self.sec[kind] += len({layout.sector(a) for a in addresses})


def _warps_2d(nx, ny, bx, by):
    """The (i, j) nodes of each warp of the 2D traversal over the window's block rows (active threads only)."""
    rows = min(ny, WINDOW_ROWS)
    for bj in range(0, rows, by):
        for bi in range(0, nx, bx):
            ids = [(bi + 1 + t % bx, bj + 1 + t // bx) for t in range(bx * by)]
            for w in range(0, len(ids), 32):
                yield [(i, j) for i, j in ids[w:w + 32] if i <= nx and j <= ny], None


def _warps_1d(nx, ny, b):
    """The (i, j) nodes of each warp of the 1D traversal over the window's rows, and the warp's place in
    its block (first, last: which one holds thread 0 and the block's last thread)."""
    total = nx * min(ny, WINDOW_ROWS)
    for m0 in range(0, total, b):
        block = list(range(m0, min(m0 + b, total)))
        for w in range(0, len(block), 32):
            nodes = [(1 + m % nx, 1 + m // nx) for m in block[w:w + 32]]
            yield nodes, (w == 0, w + 32 >= len(block), nodes[0] if w == 0 else None,
                          (1 + block[-1] % nx, 1 + block[-1] // nx))


@functools.lru_cache(maxsize=None)
def model(stage, variant, tuning, nx, ny, word=4, layout=None):
    """Requests a node and sectors a request of one call of `stage` by `variant` with `tuning` on an nx x ny
    grid: {'ld_requests_per_node', 'st_requests_per_node', 'ld_sectors_per_request',
    'st_sectors_per_request', 'window_nodes'}; None where the model does not cover the stage or traversal.
    layout: the addresses (default: the solver's padded plane, Layout)."""
    spec, trav = STAGES.get(stage), traversal_of(variant)
    if spec is None or trav is None:
        return None
    bx, by = parse_tuning(tuning)
    lay, tally = layout or Layout(nx, ny, word), Tally()
    warps = _warps_2d(nx, ny, bx, by) if trav == "global_2d" else _warps_1d(nx, ny, bx)
    nodes = 0
    for warp, place in warps:
        nodes += len(warp)
        if trav == "shared_1d":
            _shared_1d_loads(spec, lay, tally, warp, place)
        else:
            for offsets in spec["staged"].values():
                for di, dj in offsets:
                    tally.add("ld", lay, [lay.addr(i + di, j + dj) for i, j in warp])
        for _ in spec["pointwise"]:
            tally.add("ld", lay, [lay.addr(i, j) for i, j in warp])
        for _ in spec["outputs"]:
            tally.add("st", lay, [lay.addr(i, j) for i, j in warp])
    return {"ld_requests_per_node": tally.req["ld"] / nodes, "st_requests_per_node": tally.req["st"] / nodes,
            "ld_sectors_per_request": tally.sec["ld"] / tally.req["ld"],
            "st_sectors_per_request": tally.sec["st"] / tally.req["st"], "window_nodes": nodes}


def _shared_1d_loads(spec, lay, tally, warp, place):
    """The present traversal's loads of the staged fields: rows j - 1, j, j + 1 of the warp's nodes, the
    block's end values (thread 0: one before; the last thread: one after), and the row-end nodes' reads
    across the end (the di = -1 offsets at i = 1, the di = +1 offsets at i = nx)."""
    first, last, first_node, last_node = place
    for offsets in spec["staged"].values():
        for dj in (-1, 0, 1):
            tally.add("ld", lay, [lay.addr(i, j + dj) for i, j in warp])
            if first:
                tally.add("ld", lay, [lay.addr(first_node[0] - 1, first_node[1] + dj)])
            if last:
                tally.add("ld", lay, [lay.addr(last_node[0] + 1, last_node[1] + dj)])
        for di, dj in offsets:
            if di == 0:
                continue
            end = 1 if di < 0 else lay.nx
            tally.add("ld", lay, [lay.addr(i + di, j + dj) for i, j in warp if i == end])
