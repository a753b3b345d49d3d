#!/usr/bin/env python3
"""Whole-solver runs side by side, from `nsbench run --json` result files.

    reports/run_table.py results/.../run_*.json

One row per file: case, grid, precision, recipe, launch mode, median time per step (IQR), GFLOPS, the
CPU-reference verdict, and the per-step time of each stage (stream launches only).
"""
import json
import sys

STAGES = ["momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction"]


def row(r):
    run, t = r["run"], r["timing"]
    g = run["grid"]
    ref = r["checks"]["reference"]
    verdict = ("PASS" if ref["pass"] else "FAIL") if ref.get("performed") else "-"
    cells = [run["case"], f"{g['nx']}x{g['ny']}x{g['nz']}", run["precision"], run["recipe"], run.get("launch", "stream"),
             f"{t['step']['median'] * 1e3:.3f} ({t['step']['iqr'] * 1e3:.3f})", f"{t['gflops']:.0f}", verdict]
    for s in STAGES:
        st = t["stages"][s]
        cells.append(f"{st['per_step']['median'] * 1e6:.0f}" if "per_step" in st else "-")
    return "| " + " | ".join(cells) + " |"


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    results = []
    for p in paths:
        with open(p) as f:
            results.append(json.load(f))
    gpu = results[0]["machine"].get("gpu") or {}
    print(f"GPU: {gpu.get('name', 'none')}; times in ms per step (IQR); stage columns: us per step")
    print()
    print("| case | grid | precision | recipe | launch | ms/step (IQR) | GFLOPS | vs CPU | " + " | ".join(STAGES) + " |")
    print("|" + "---|" * (8 + len(STAGES)))
    for r in sorted(results, key=lambda r: (r["run"]["grid"]["nx"], r["run"]["precision"], r["run"]["recipe"],
                                            r["run"].get("launch", "stream"))):
        print(row(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
