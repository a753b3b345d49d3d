#!/usr/bin/env python3
"""The fastest variant:tuning of every stage in a stage benchmark, as a recipe entry for recipes.json.

    scripts/py reports/best_recipe.py STAGES_JSON[.gz] --name best --gpu-model "NVIDIA H100 80GB HBM3"

Reads one `nsbench stages --json` result (schema nsbench.stages/1 or /2), takes per stage the row with
the smallest median time (for momentum, its `--scheme`, euler by default), and prints the recipe entry
with the file it came from in its description, so a recipe for a GPU model is made from measurements,
not typed. Variant names of older results are mapped to today's through baselines/variant-aliases.json.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import read_result, variant_id  # noqa: E402


def aliases():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "baselines", "variant-aliases.json")
    if not os.path.exists(path):
        return {}
    table = json.load(open(path))
    return table.get("aliases", table)


def best_rows(result, scheme):
    """Per stage, the fastest row; momentum's rows only of the chosen scheme."""
    best = {}
    for row in result["rows"]:
        if "median_s" not in row:
            continue
        stage = variant_id(row["variant"]).split("/")[1]
        if stage == "momentum" and row.get("scheme") != scheme:
            continue
        if stage not in best or row["median_s"] < best[stage]["median_s"]:
            best[stage] = row
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stages_json")
    ap.add_argument("--name", default="best")
    ap.add_argument("--gpu-model", required=True, help="the GPU name the recipe is for (nvidia-smi's name)")
    ap.add_argument("--scheme", default="euler", choices=["euler", "ab2"], help="momentum's time scheme")
    a = ap.parse_args(argv)
    result = read_result(a.stages_json)
    gpu = (result.get("machine", {}).get("gpu") or {}).get("name")
    if gpu != a.gpu_model:
        sys.exit(f"best_recipe: {a.stages_json} was measured on {gpu!r}, not {a.gpu_model!r}")
    rename = aliases()
    stages = {}
    for stage, row in sorted(best_rows(result, a.scheme).items()):
        vid = variant_id(row["variant"])
        variant = rename.get(vid, vid).split("/")[-1]
        stages[stage] = f"{variant}:{row['tuning']}"
    g = result["grid"]
    entry = {"name": a.name, "backend": "cuda", "gpu_model": a.gpu_model,
             "description": f"fastest measured variant per stage on an {a.gpu_model} ({g['nx']}x{g['ny']}x{g['nz']} "
                            f"{result['precision']}, momentum {a.scheme}; {a.stages_json}, "
                            f"commit {result['build']['git_commit'][:7]}; made by reports/best_recipe.py)",
             "stages": stages}
    print(json.dumps(entry))


if __name__ == "__main__":
    main()
