#!/usr/bin/env python3
"""Difference of two cavity centre-line files (nsbench run --output DIR: DIR/final_centre_lines.csv),
e.g. the imle solver against the projection solver: for each line, the first file's points compared with
the second's linearly interpolated there (max and RMS of the difference, in units of the lid speed),
and each line's extreme values.

usage: reports/centre_line_diff.py FIRST.csv SECOND.csv
"""
import csv
import sys


def load(path):
    lines = {}
    with open(path) as f:
        for row in csv.reader(r for r in f if not r.startswith("#")):
            if row[0] != "line":
                lines.setdefault(row[0], []).append((float(row[1]), float(row[2])))
    return lines


def at(points, x):
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            return y0 + (x - x0) / (x1 - x0) * (y1 - y0)
    raise ValueError(f"position {x} outside the second file's line")


def main(first, second):
    a, b = load(first), load(second)
    print("| line | max abs difference | RMS difference | min (first / second) | max inside (first / second) |")
    print("|---|---:|---:|---:|---:|")
    for name, pts in a.items():
        d = [abs(v - at(b[name], x)) for x, v in pts]
        inside = lambda p: [v for x, v in p if 0 < x < 1]  # noqa: E731 (centres only: no walls, no ghosts)
        print(f"| {name} | {max(d):.4f} | {(sum(e * e for e in d) / len(d)) ** 0.5:.4f} | "
              f"{min(inside(pts)):.4f} / {min(inside(b[name])):.4f} | {max(inside(pts)):.4f} / {max(inside(b[name])):.4f} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
