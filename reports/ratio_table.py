#!/usr/bin/env python3
"""The thesis's Fig. 4.4 question asked again: per stage, how much faster is shared memory than global
memory, and a 2D thread block than a flat 1D one? From `nsbench stages` result files.

    reports/ratio_table.py results/.../stages_256x32x256_float.json [...]

For every stage, the fastest tuning of each memory kind (tag memory=global|shared|register) and of
each block shape among global-memory variants (tag cta=1d|2d). Ratios are times: shared/global < 1
means shared memory is faster. Momentum uses the Euler rows (the thesis's cavity).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import print_tables, variant_name  # noqa: E402


def fastest(rows, **tags):
    best = None
    for r in rows:
        if "error" in r or r.get("scheme", "euler") != "euler":
            continue
        if all(r["tags"].get(k) == v for k, v in tags.items()):
            if best is None or r["median_s"] < best["median_s"]:
                best = r
    return best


def describe(r):
    return f"{variant_name(r['variant'])}:{r['tuning']} {r['median_s'] * 1e6:.1f} us" if r else "-"


def table(result):
    g = result["grid"]
    rows = result["rows"]
    out = [f"### {g['nx']}x{g['ny']}x{g['nz']}, {result['precision']}, {result['machine']['gpu']['name']}", "",
           "| stage | best global | best shared/register | shared/global | thesis 16x16x2 shared/global "
           "| best 2D (global) | best 1D (global) | 2D/1D |",
           "|---|---|---|---:|---:|---|---|---:|"]
    for stage in sorted({r["stage"] for r in rows}):
        srows = [r for r in rows if r["stage"] == stage]
        glob = fastest(srows, memory="global")
        onchip = min((x for x in (fastest(srows, memory="shared"), fastest(srows, memory="register")) if x),
                     key=lambda r: r["median_s"], default=None)
        two = fastest(srows, memory="global", cta="2d")
        one = fastest(srows, memory="global", cta="1d")
        ratio_mem = f"{onchip['median_s'] / glob['median_s']:.2f}" if onchip and glob else "-"
        ratio_cta = f"{two['median_s'] / one['median_s']:.2f}" if two and one else "-"
        # The thesis's own pair: the shared-memory z-loop tile against global memory, both 16x16, SIZE_Z 2.
        thesis = [next((r for r in srows if variant_name(r["variant"]) == name and r["tuning"] == "bx16_by16_sz2"
                        and r.get("scheme", "euler") == "euler" and "error" not in r), None)
                  for name in ("shared_zloop", "global_2d_zloop")]
        ratio_thesis = f"{thesis[0]['median_s'] / thesis[1]['median_s']:.2f}" if all(thesis) else "-"
        out.append(f"| {stage} | {describe(glob)} | {describe(onchip)} | {ratio_mem} | {ratio_thesis} | {describe(two)} | "
                   f"{describe(one)} | {ratio_cta} |")
    return "\n".join(out)


def main(paths):
    return print_tables(paths, table, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
