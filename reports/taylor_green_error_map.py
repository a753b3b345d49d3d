#!/usr/bin/env python3
"""Where the imle solver's Taylor-Green error lies: reads the fields an `nsbench run --solver imle --case
taylor_green --grid Nx3xN --output DIR` wrote (DIR/final.vti, float32) and prints, for u and w on the
middle y plane, the largest error against the exact solution at the run's final time T and the cell it
is in, the largest in the wall-cell layer, and the largest and RMS error of the cells with at least two
cells between them and every wall (the interior, where the CC-CCD rows and the MLS neighbourhoods are the symmetric ones).

usage: reports/taylor_green_error_map.py DIR/final.vti N T [NU=0.01]
(a committed copy is gzipped, final.vti.gz: read as it is)
"""
import base64
import gzip
import math
import re
import struct
import sys

import numpy as np


def cell_arrays(path):
    arrays = {}
    text = gzip.open(path, "rt").read() if path.endswith(".gz") else open(path).read()
    for name, data in re.findall(r'Name="(\w+)" NumberOfComponents="1" format="binary">([^<]*)<', text):
        raw = base64.b64decode(data)  # VTK inline binary: a UInt32 byte count, then the values
        arrays[name] = np.frombuffer(raw[4 : 4 + struct.unpack("<I", raw[:4])[0]], dtype="<f4")
    return arrays


def main(path, n, t, nu=0.01):
    a, x = cell_arrays(path), (np.arange(n) + 0.5) * math.pi / n
    xx, zz = x[None, :], x[:, None]  # the fields are stored x fastest, then y, then z
    decay = math.exp(-2 * nu * t)
    for name, exact in (("u", decay * np.sin(xx) * np.cos(zz)), ("w", -decay * np.cos(xx) * np.sin(zz))):
        err = np.abs(a[name].reshape(n, -1, n)[:, 1, :] - exact)
        k, i = np.unravel_index(err.argmax(), err.shape)
        inner = err[2:-2, 2:-2]
        wall = err.copy()
        wall[1:-1, 1:-1] = 0
        print(f"{name}: max {err.max():.2e} in cell (i, k) = ({i + 1}, {k + 1}); wall-cell layer max {wall.max():.2e}; "
              f"cells >= 2 cells from the walls: max {inner.max():.2e}, RMS {np.sqrt((inner ** 2).mean()):.2e}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), *map(float, sys.argv[4:]))
