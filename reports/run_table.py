#!/usr/bin/env python3
"""Whole-solver runs side by side, from `nsbench run --json` result files.

    reports/run_table.py results/.../run_*.json

One row per file: case, grid, precision, recipe, launch mode, median time per step (IQR), GFLOPS, the
CPU-reference verdict, and the per-step time of each stage (stream launches only).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def stage_columns(results):
    """Every stage the results timed per step, in their step order (timing.stage_order), first seen first."""
    columns = []
    for r in results:
        for s in r["timing"]["stage_order"]:
            if s not in columns and "per_step" in r["timing"]["stages"].get(s, {}):
                columns.append(s)
    return columns


def row(r, stages):
    run, t = r["run"], r["timing"]
    g = run["grid"]
    ref = r["checks"]["reference"]
    verdict = ("PASS" if ref["pass"] else "FAIL") if ref.get("performed") else "-"
    cells = [run["case"], f"{g['nx']}x{g['ny']}x{g['nz']}", run["precision"], run["recipe"], run.get("launch", "stream"),
             f"{t['step']['median'] * 1e3:.3f} ({t['step']['iqr'] * 1e3:.3f})", f"{t['gflops']:.0f}", verdict]
    for s in stages:
        st = t["stages"].get(s, {})
        cells.append(f"{st['per_step']['median'] * 1e6:.0f}" if "per_step" in st else "-")
    return "| " + " | ".join(cells) + " |"


def main(paths):
    if not paths:
        print(__doc__)
        return 2
    results = [common.read_result(p) for p in paths]
    stages = stage_columns(results)
    gpu = results[0]["machine"].get("gpu") or {}
    print(f"GPU: {gpu.get('name', 'none')}; times in ms per step (IQR); stage columns: us per step")
    print()
    print("| case | grid | precision | recipe | launch | ms/step (IQR) | GFLOPS | vs CPU | " + " | ".join(common.stage_name(s) for s in stages) + " |")
    print("|" + "---|" * (8 + len(stages)))
    for r in sorted(results, key=lambda r: (r["run"]["grid"]["nx"], r["run"]["precision"], r["run"]["recipe"],
                                            r["run"].get("launch", "stream"))):
        print(row(r, stages))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
