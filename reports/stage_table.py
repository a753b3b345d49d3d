#!/usr/bin/env python3
"""Best tuning of every stage variant from `nsbench stages` result files, as a Markdown table.

    reports/stage_table.py results/stages_512x512x512_float.json [...]

For each file (one grid and precision) and each stage variant (and time scheme), the row of its
fastest tuning: median time, IQR, achieved GB/s from the modelled bytes, fraction of the measured
device-to-device copy bandwidth, registers. Numbers come from the files only.
"""
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


def table(result):
    g = result["grid"]
    gpu = result["machine"]["gpu"]
    copy = gpu["copy_bandwidth"]["bytes_per_second"]
    lines = [
        f"### {g['nx']}x{g['ny']}x{g['nz']}, {result['precision']}, {gpu['name']} "
        f"(copy bandwidth {copy / 1e9:.0f} GB/s)",
        "",
        "| stage | variant | scheme | best tuning | median us | IQR us | GB/s | % of copy | registers |",
        "|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for (stage, variant, scheme), r in sorted(best_rows(result).items()):
        regs = r["kernels"][0]["registers"] if r.get("kernels") else "-"
        lines.append(
            f"| {stage} | {variant} | {scheme if stage == 'momentum' else ''} | {r['tuning']} | "
            f"{r['median_s'] * 1e6:.1f} | {r['iqr_s'] * 1e6:.1f} | {r['bytes_per_second'] / 1e9:.0f} | "
            f"{100 * r['fraction_of_copy_bandwidth']:.1f} | {regs} |")
    return "\n".join(lines)


def main(paths):
    return print_tables(paths, table, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
