"""One verdict per paper: what the committed results reproduce, what deviates and why, what is only modelled
and what is missing, one row per table and figure of the paper.

    scripts/py reports/reproduction.py [--results results] [--studies studies] [--out results/report/reproduction]
    scripts/py reports/reproduction.py --summary      # each paper's counts, one line each (scripts/main-job.sh)

The items of a paper are data: studies/<paper>/paper/reproduction.yaml, one entry per table or figure named in
the paper's notes, with the study that covers it, the paper's number and how this machine's number is measured
(`measure`). Nothing here is typed as a verdict: for every item the status is computed from the result files
of every committed machine (results/<study>/<machine>/), with the thresholds in RULES:

- missing: no listed study has a result on any machine (or the item lists none);
- modelled: the item's number comes from a model (`evidence: model`), and its input runs exist;
- reproduced: here / paper within the item's `within` (default DEFAULT_WITHIN), or the stated claim holds;
- deviates: outside it; the cause is computed from measured hardware ratios where the item names one;
- not judged: results exist but the item has no measure of the paper's number yet (said, never hidden).

The best machine of an item is the one whose number is closest to the paper's (log ratio).
"""
import argparse
import math
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import studylib  # noqa: E402
from common import fmt  # noqa: E402
from report_page import verdict  # noqa: E402

STATUSES = ["reproduced", "deviates", "modelled", "not judged", "missing"]
DEFAULT_WITHIN = 0.25  # here / paper in [1 / 1.25, 1.25]: "reproduced"
PLAN_NAME = os.path.join("paper", "reproduction.yaml")
ITEM_KEYS = {"item", "what", "paper", "paper_value", "studies", "measure", "evidence", "within", "claim",
             "scales_with", "note"}


class PlanError(ValueError):
    """A reproduction.yaml that cannot be read, with the file and the problem named."""


def find_plans(studies_root):
    """[(paper folder name, path)] of every paper that has a reproduction plan."""
    return [(p, os.path.join(studies_root, p, PLAN_NAME)) for p in sorted(os.listdir(studies_root))
            if os.path.isfile(os.path.join(studies_root, p, PLAN_NAME))]


def load_plan(path):
    with open(path) as f:
        plan = yaml.safe_load(f)
    if not isinstance(plan, dict) or not isinstance(plan.get("items"), list) or not plan.get("paper"):
        raise PlanError(f"{path}: needs 'paper' and a list of 'items'")
    for n, item in enumerate(plan["items"]):
        unknown = set(item) - ITEM_KEYS
        if unknown or "item" not in item:
            raise PlanError(f"{path}: item {n + 1}: needs 'item'; unknown keys {sorted(unknown)}")
        if item.get("measure") and item["measure"].get("kind") not in MEASURES:
            raise PlanError(f"{path}: {item['item']}: unknown measure kind {item['measure'].get('kind')!r} "
                            f"(known: {', '.join(sorted(MEASURES))})")
    return plan


# ---------------------------------------------------------------- reading the committed results

class Results:
    """results/<study>/<machine>/ read once each."""

    def __init__(self, root):
        self.root, self.cache = root, {}

    def machines(self, study):
        folder = os.path.join(self.root, study)
        return sorted(m for m in os.listdir(folder) if os.path.isdir(os.path.join(folder, m))) \
            if os.path.isdir(folder) else []

    def of(self, study, machine):
        key = (study, machine)
        if key not in self.cache:
            self.cache[key] = studylib.load_results(os.path.join(self.root, study, machine))[0]
        return self.cache[key]


def grid_text(r):
    g = (r.get("run") or {}).get("grid") or r.get("grid") or {}
    return f"{g.get('nx')}x{g.get('ny')}x{g.get('nz')}"


def matches(r, flt):
    """A result against a filter {group, recipe, backend, grid, ranks}: every given key equal."""
    run = r.get("run") or {}
    have = {"group": (r.get("study") or {}).get("group"), "recipe": run.get("recipe"), "backend": run.get("backend"),
            "grid": grid_text(r), "ranks": (run.get("decomposition") or {}).get("ranks", 1)}
    return all(have[k] == v for k, v in flt.items())


def step_s(r):
    return r["timing"]["step"]["median"]


def fastest(results, flt):
    hits = [r for r in results.values() if "timing" in r and "step" in r["timing"] and matches(r, flt)]
    return min(hits, key=step_s) if hits else None


# ---------------------------------------------------------------- measures: this machine's number of an item

def measure_step_ratio(m, results):
    """step(num) / step(den) of the fastest matching runs, on the largest grid both have (or m['grid'])."""
    grids = sorted({grid_text(r) for r in results.values() if matches(r, m["num"])}
                   & {grid_text(r) for r in results.values() if matches(r, m["den"])},
                   key=lambda g: math.prod(int(x) for x in g.split("x")))
    if m.get("grid"):
        grids = [g for g in grids if g == m["grid"]]
    if not grids:
        return None
    num, den = fastest(results, dict(m["num"], grid=grids[-1])), fastest(results, dict(m["den"], grid=grids[-1]))
    value = step_s(num) / step_s(den) / m.get("divide_by", 1)
    return {"value": value, "runs": [num, den],
            "how": f"{m.get('label', 'step time ratio')} at {grids[-1]}: {fmt(step_s(num) * 1e3)} / "
                   f"{fmt(step_s(den) * 1e3)} ms" + (f" / {m['divide_by']}" if m.get("divide_by") else "")}


def measure_value(m, results):
    """A number at a dotted path of the fastest matching run (e.g. timing.gflops)."""
    r = fastest(results, m.get("select", {}))
    if r is None:
        return None
    v = r
    for key in m["path"].split("."):
        v = v.get(key) if isinstance(v, dict) else None
    if not isinstance(v, (int, float)):
        return None
    return {"value": v * m.get("scale", 1), "runs": [r], "how": f"{m['path']} of {grid_text(r)}"}


def measure_bandwidth(m, results):
    """A transfer's bandwidth (MB/s) at the message size nearest m['bytes'], from a `bandwidth` result."""
    rows = [x for r in results.values() for x in r.get("rows", []) if x.get("transfer") == m["transfer"]]
    if not rows:
        return None
    row = min(rows, key=lambda x: abs(x["bytes"] - m["bytes"]))
    return {"value": row["bytes_per_second"] / 1e6 * m.get("factor", 1), "runs": [],
            "how": f"{m['transfer']} at {row['bytes'] >> 20} MiB"}


def measure_stage_ratio(m, results):
    """median(num) / median(den) of `nsbench stages` rows, each side {variant: id ending, tuning}, on m['grid'] or
    else the largest grid that has both sides (a result's top-level grid; results without one count as one grid)."""
    def pick(rows, side):
        return next((x for x in rows if x["variant"].endswith(side["variant"]) and x["tuning"] == side["tuning"]
                     and (x.get("scheme") or "euler") == "euler"), None)
    by_grid = {}
    for r in results.values():
        g = r.get("grid") or {}
        key = (g.get("nx", 0) * g.get("ny", 0) * g.get("nz", 0), f"{g.get('nx')}x{g.get('ny')}x{g.get('nz')}" if g else "")
        by_grid.setdefault(key, []).extend(x for x in r.get("rows", []) if x.get("median_s"))
    pairs = [(key, pick(rows, m["num"]), pick(rows, m["den"])) for key, rows in sorted(by_grid.items())
             if not m.get("grid") or key[1] == m["grid"]]
    pairs = [p for p in pairs if p[1] and p[2]]
    if not pairs:
        return None
    (_, grid), num, den = pairs[-1]
    return {"value": num["median_s"] / den["median_s"], "runs": list(results.values()),
            "how": f"{m['num']['variant']}:{m['num']['tuning']} / {m['den']['variant']}:{m['den']['tuning']} per call"
                   + (f" at {grid}" if grid else "")}


def measure_best_fraction(m, results):
    """The highest fraction of the copy bandwidth any `nsbench stages` row of the given stages reached."""
    rows = [x for r in results.values() for x in r.get("rows", []) if x.get("fraction_of_copy_bandwidth")
            and (not m.get("stages") or x.get("stage") in m["stages"])]
    if not rows:
        return None
    best = max(rows, key=lambda x: x["fraction_of_copy_bandwidth"])
    return {"value": best["fraction_of_copy_bandwidth"], "runs": list(results.values()),
            "how": f"{best['variant']}:{best['tuning']}"}


def measure_checks(m, results):
    """The share of the study's runs whose correctness check passed (a claim of correctness)."""
    judged = [verdict(r) for r in results.values() if "checks" in r]
    judged = [v for v in judged if v.startswith(("PASS", "FAIL"))]
    if not judged:
        return None
    passed = sum(v.startswith("PASS") for v in judged)
    return {"value": passed / len(judged), "runs": list(results.values()),
            "how": f"{passed} of {len(judged)} checked runs PASS"}


MEASURES = {"step_ratio": measure_step_ratio, "value": measure_value, "bandwidth": measure_bandwidth,
            "stage_ratio": measure_stage_ratio, "checks": measure_checks,
            "best_fraction": measure_best_fraction}


# ---------------------------------------------------------------- judging an item

def judge(item, value):
    """(status, the rule as text) of one measured number against the paper's."""
    claim = item.get("claim")
    if claim:  # {at_least: X} or {at_most: X}
        op, bound = next(iter(claim.items()))
        ok = value >= bound if op == "at_least" else value <= bound
        return ("reproduced" if ok else "deviates"), f"{op.replace('_', ' ')} {fmt(bound)}"
    within = item.get("within", DEFAULT_WITHIN)
    ratio = value / float(item["paper_value"])
    ok = 1 / (1 + within) <= ratio <= 1 + within
    return ("reproduced" if ok else "deviates"), f"here / paper = {fmt(ratio)} (reproduced if within x{fmt(1 + within)})"


def distance(item, value):
    """How far a machine's number is from the paper's (for picking the best machine)."""
    if item.get("claim"):
        return 0.0 if judge(item, value)[0] == "reproduced" else 1.0
    return abs(math.log(max(value, 1e-300) / float(item["paper_value"])))


def gpu_of(runs):
    """The GPU record of the first run that measured its copy bandwidth (a CPU run on a GPU machine may not)."""
    return next((r["machine"]["gpu"] for r in runs
                 if ((r.get("machine") or {}).get("gpu") or {}).get("copy_bandwidth")), None)


def cause(plan, item, value, runs):
    """Why a number deviates, from measured hardware ratios where the item says which one scales it."""
    scales = item.get("scales_with")
    hw = plan.get("hardware") or {}
    if scales == "gpu_bandwidth" and hw.get("gpu_bandwidth_GBps"):
        gpu = gpu_of(runs)
        copy = ((gpu or {}).get("copy_bandwidth") or {}).get("bytes_per_second")
        if not copy:
            return "no run behind this number recorded a measured copy bandwidth"
        hw_ratio = copy / 1e9 / hw["gpu_bandwidth_GBps"]
        ratio = value / float(item["paper_value"])
        explained = 1 / 2 <= ratio / hw_ratio <= 2
        return (f"{gpu['name']} measured copy bandwidth {fmt(copy / 1e9)} GB/s = {fmt(hw_ratio)}x the "
                f"{hw['gpu']}'s nominal {hw['gpu_bandwidth_GBps']} GB/s; here / paper = {fmt(ratio)}: "
                + ("explained by the bandwidth ratio (within 2x)" if explained else
                   "not explained by the bandwidth ratio alone (more than 2x from it)"))
    if scales == "link" and hw.get("link_GBps"):
        ratio = value / float(item["paper_value"])
        return (f"here / paper = {fmt(ratio)} against the paper's nominal {hw['link_GBps']} GB/s {hw.get('link', 'link')}"
                f" (this machine: {(gpu_of(runs) or {}).get('name', '?')}; see its Table A.1 bandwidth study)")
    return item.get("note", "no hardware ratio is named for this item")


def check_summary(runs, study, machine):
    """'2 PASS, 1 not checked ([study on machine](link))' for the runs behind a number."""
    verdicts = [verdict(r) for r in runs if "checks" in r]
    counts = {}
    for v in verdicts:
        key = "PASS" if v.startswith("PASS") else "FAIL" if v.startswith("FAIL") else "not checked"
        counts[key] = counts.get(key, 0) + 1
    text = ", ".join(f"{n} {k}" for k, n in sorted(counts.items())) or "no run checks"
    return f"{text} ([{study} on {machine}](../{machine}/report.md#{study}))"


def evaluate(plan, item, results):
    """The page's row of one item, as a dict (status computed from the committed results)."""
    row = {"item": item["item"], "what": item.get("what", ""), "paper": str(item.get("paper", "-")),
           "here": "-", "machine": "-", "status": "missing", "why": "", "check": "-"}
    studies = item.get("studies") or []
    have = {st: [m for m in results.machines(st) if results.of(st, m)] for st in studies}
    if not any(have.values()):
        row["why"] = ("no study covers it" if not studies else
                      f"no committed result of {', '.join(studies)} on any machine")
        return row
    if item.get("evidence") == "model":
        st = next(s for s in studies if have[s])
        m = have[st][-1]
        row.update(status="modelled", machine=m, why=f"modelled; inputs: the runs of {', '.join(s for s in studies if have[s])}"
                   + (f" ({item['note']})" if item.get("note") else ""),
                   check=check_summary(list(results.of(st, m).values()), st, m))
        return row
    measure = item.get("measure")
    if not measure:
        st = next(s for s in studies if have[s])
        row.update(status="not judged", machine=", ".join(have[st]),
                   why="results exist, but no measure of the paper's number is encoded for this item")
        return row
    st = measure.get("study", studies[0])
    best = None
    for m in results.machines(st):
        got = MEASURES[measure["kind"]](measure, results.of(st, m))
        if got and (best is None or distance(item, got["value"]) < distance(item, best[1]["value"])):
            best = (m, got)
    if best is None:
        row.update(status="missing", why=f"no run of {st} on any machine matches the measure ({measure['kind']})")
        return row
    m, got = best
    status, rule = judge(item, got["value"])
    row.update(here=f"{fmt(got['value'])} ({got['how']})", machine=m, status=status,
               why=rule + ("" if status == "reproduced" else "; cause: " + cause(plan, item, got["value"], got["runs"])),
               check=check_summary(got["runs"] or list(results.of(st, m).values()), st, m))
    return row


def evaluate_plan(plan, results):
    return [evaluate(plan, item, results) for item in plan["items"]]


def counts(rows):
    return {s: sum(1 for r in rows if r["status"] == s) for s in STATUSES}


# ---------------------------------------------------------------- the pages

HEADERS = ["item", "what", "paper", "here (best machine)", "machine", "status", "rule / cause", "correctness"]


def page(name, plan, rows):
    c = counts(rows)
    lines = [f"# Reproduction: {plan['paper']}", "",
             f"Generated by reports/reproduction.py from studies/{name}/{PLAN_NAME} and the committed results "
             "(results/<study>/<machine>/); do not edit by hand. One row per table and figure named in the paper's "
             "notes. Status rules: reproduced = here / paper within the item's factor (default "
             f"x{fmt(1 + DEFAULT_WITHIN)}) or the stated claim holds; deviates = outside it, with the cause computed "
             "from measured hardware ratios where the item names one; modelled = the number comes from a model "
             "whose input runs exist; not judged = results exist, no measure encoded; missing = no results.", "",
             "Counts: " + ", ".join(f"{n} {s}" for s, n in c.items()) + f" (of {len(rows)} items).", "",
             f"Paper hardware: {(plan.get('hardware') or {}).get('text', 'n/a')}.", "",
             "| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
    for r in rows:
        cells = [r["item"], r["what"], r["paper"], r["here"], r["machine"], r["status"], r["why"], r["check"]]
        lines.append("| " + " | ".join(str(x).replace("|", "/").replace("\n", " ") for x in cells) + " |")
    return "\n".join(lines) + "\n"


def write_pages(results_root, studies_root, out, link_prefix):
    """Write every paper's page into `out`; return the summary rows
    [[paper link, reproduced, deviates, modelled, not judged, missing, items]]."""
    results = Results(results_root)
    rows_out = []
    os.makedirs(out, exist_ok=True)
    for name, path in find_plans(studies_root):
        plan = load_plan(path)
        rows = evaluate_plan(plan, results)
        with open(os.path.join(out, f"{name}.md"), "w") as f:
            f.write(page(name, plan, rows))
        rows_out.append([f"[{plan['paper']}]({link_prefix}{name}.md)", *counts(rows).values(), len(rows)])
    return rows_out


SUMMARY_HEADERS = ["paper (reproduction page)", *STATUSES, "items"]


def verdict_share(results_root, studies_root):
    """{machine: (timed GPU runs, of them with a PASS/FAIL verdict)} over the studies' committed results: the runs
    of `nsbench run` on a GPU backend with a step time; a verdict is any check report_page.verdict judges."""
    results = Results(results_root)
    share = {}
    for path in studylib.find_studies(studies_root, "all"):
        study = os.path.basename(path)[:-5]
        for m in results.machines(study):
            for r in results.of(study, m).values():
                if (r.get("run") or {}).get("backend") == "cuda" and "step" in (r.get("timing") or {}):
                    v = verdict(r)
                    total, judged = share.get(m, (0, 0))
                    share[m] = (total + 1, judged + (v.startswith("PASS") or v.startswith("FAIL")))
    return share


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=studylib.SHIPPED_RESULTS)
    ap.add_argument("--studies", default="studies")
    ap.add_argument("--out", default=None, help="default: <results>/report/reproduction")
    ap.add_argument("--summary", action="store_true",
                    help="print each paper's counts and the share of timed GPU runs with a verdict; write no page")
    a = ap.parse_args(argv)
    results = Results(a.results)
    for name, path in find_plans(a.studies):
        plan = load_plan(path)
        c = counts(evaluate_plan(plan, results))
        print(f"reproduction: {plan['paper']}: " + ", ".join(f"{n} {s}" for s, n in c.items())
              + f" of {len(plan['items'])} items (from {a.results})")
    share = verdict_share(a.results, a.studies)
    total, judged = sum(t for t, _ in share.values()), sum(j for _, j in share.values())
    print(f"reproduction: timed GPU runs with a correctness verdict: {judged} of {total}"
          f" ({fmt(100 * judged / total) if total else '-'}%; " +
          ", ".join(f"{m} {j}/{t}" for m, (t, j) in sorted(share.items())) + ")")
    if not a.summary:
        out = a.out or os.path.join(a.results, "report", "reproduction")
        write_pages(a.results, a.studies, out, "")
        print(f"reproduction: pages in {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
