#!/usr/bin/env python3
"""Best tuning of every stage variant from `nsbench stages` result files, as a Markdown table.

    reports/stage_table.py results/stages_512x512x512_float.json [...]

For each file (one grid and precision) and each stage variant (and time scheme), the row of its
fastest tuning: median time, IQR, achieved GB/s from the modelled bytes, fraction of the measured
device-to-device copy bandwidth, registers. Numbers come from the files only.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import print_tables  # noqa: E402


def best_rows(result):
    best = {}
    for row in result["rows"]:
        if "error" in row:
            continue
        key = (row["stage"], row["variant"], row.get("scheme", "euler"))
        if key not in best or row["median_s"] < best[key]["median_s"]:
            best[key] = row
    return best


def of_copy(fraction):
    return f"{100 * fraction:.1f}" if isinstance(fraction, (int, float)) and math.isfinite(fraction) else "-"


def table(result):
    g = result["grid"]
    gpu = result["machine"].get("gpu") or {}  # a CPU run (stages --backend cpu_omp) has no GPU and no copy bandwidth
    copy = (gpu.get("copy_bandwidth") or {}).get("bytes_per_second")
    where = gpu.get("name") or f"CPU {(result['machine'].get('cpu') or {}).get('model', '?')}"
    lines = [
        f"### {g['nx']}x{g['ny']}x{g['nz']}, {result['precision']}, {where}"
        + (f" (copy bandwidth {copy / 1e9:.0f} GB/s)" if copy else ""),
        "",
        "| stage | variant | scheme | best tuning | median us | IQR us | GB/s | % of copy | registers |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for (stage, variant, scheme), r in sorted(best_rows(result).items()):
        regs = r["kernels"][0]["registers"] if r.get("kernels") else "-"
        lines.append(
            f"| {stage} | {variant} | {scheme if stage == 'momentum' else ''} | {r['tuning']} | "
            f"{r['median_s'] * 1e6:.1f} | {r['iqr_s'] * 1e6:.1f} | {r['bytes_per_second'] / 1e9:.0f} | "
            f"{of_copy(r.get('fraction_of_copy_bandwidth'))} | {regs} |")
    return "\n".join(lines)


def main(paths):
    return print_tables(paths, table, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
