"""Report section of issue 43's targets (studies/targets/stage_targets.yaml): one table, a row per row of the issue's
table, each measured at the size its target names from the study's own results on this machine, with the median and
the interquartile range over its calls (20 or more), the issue's H100 figure, the target, the verdict (met, not met,
or not measured: which result is missing) and the limiter an ncu profile named (the yaml's `limiter`).

The rows are data: the study file's `targets` list (validated here, load_targets). How each measure is computed is
written once, in its function below (MEASURES). Also a command line for scripts/device-run.sh's `targets` step:

    reports/stage_targets.py --ncu-targets RESULTS_FOLDER [--study FILE]

prints one `solver/stage:variant:tuning:precision:grid` line per row to profile: the best variant the results name for a
stage row, the yaml's `profile` entry for a whole-run row.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import poisson_report  # noqa: E402
import studylib  # noqa: E402
import urban  # noqa: E402
from common import fmt  # noqa: E402

MIN_CALLS = 20  # issue 43: the median and spread of 20 or more calls
TARGET_KEYS = {"row", "size", "group", "select", "measure", "stage", "scheme", "variant", "words_per_point", "h100",
               "issue_h200", "target", "limiter", "profile"}
REQUIRED_TARGET_KEYS = {"row", "size", "group", "measure", "target"}
STAGE_MEASURES = {"copy", "fp64_peak"}
PROFILE_KEYS = {"stage", "variant", "precision", "grid"}
WORD_BYTES = {"float": 4, "double": 8}
UNITS = {"copy": "% of copy", "fp64_peak": "% of FP64 peak", "cg_iteration": "% of copy",
         "sweep_equivalents": "sweep equivalents", "step_over_model": "x byte model"}  # of each measure's value
DEFAULT_STUDY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "studies", "targets",
                             "stage_targets.yaml")


def load_targets(study):
    """The study's `targets` list, checked: each row names a group of the study's runs, a known measure (a stage
    measure also its stage) and one bound (at_least or at_most); StudyError naming the file and the row otherwise.
    Each row comes back as a copy with _grid, its group's grid (NXxNYxNZ): the size its results must have."""
    path, targets = study.get("_path", study["study"]), study.get("targets")
    if not isinstance(targets, list) or not targets:
        raise studylib.StudyError(f"{path}: targets: a non-empty list of the issue's rows")
    groups = {g["group"]: (g.get("args") or {}).get("grid") for g in study["runs"]}
    for i, t in enumerate(targets):
        where = f"{path}: targets[{i}] ({t.get('row', '?') if isinstance(t, dict) else t!r})"
        if not isinstance(t, dict):
            raise studylib.StudyError(f"{where}: a mapping")
        bad, missing = set(t) - TARGET_KEYS, REQUIRED_TARGET_KEYS - set(t)
        if bad or missing:
            raise studylib.StudyError(f"{where}: unknown key(s) {sorted(bad)}, missing key(s) {sorted(missing)}; "
                                      f"known: {sorted(TARGET_KEYS)}")
        if t["group"] not in groups:
            raise studylib.StudyError(f"{where}: no run group '{t['group']}' in the study (groups: {sorted(groups)})")
        if t["measure"] not in MEASURES:
            raise studylib.StudyError(f"{where}: unknown measure '{t['measure']}'; known: {sorted(MEASURES)}")
        if t["measure"] in STAGE_MEASURES and str(t.get("stage", "")).count("/") != 1:
            raise studylib.StudyError(f"{where}: measure '{t['measure']}' needs the stage as solver/stage")
        bound = t["target"]
        if not (isinstance(bound, dict) and len(bound) == 1 and set(bound) <= {"at_least", "at_most"}
                and isinstance(next(iter(bound.values())), (int, float))):
            raise studylib.StudyError(f"{where}: target is {{at_least: N}} or {{at_most: N}}, not {bound!r}")
        if "profile" in t and (not isinstance(t["profile"], dict) or set(t["profile"]) != PROFILE_KEYS):
            raise studylib.StudyError(f"{where}: profile names exactly {sorted(PROFILE_KEYS)}")
        if not isinstance(groups[t["group"]], str):
            raise studylib.StudyError(f"{where}: its group '{t['group']}' must run one grid (the size the target names)")
    return [dict(t, _grid=groups[t["group"]]) for t in targets]


# ---------------------------------------------------------------- which results a row reads

def grid_of(result):
    g = (result.get("run") or {}).get("grid") or result.get("grid") or {}  # a run's run.grid, a stage benchmark's grid
    return f"{g.get('nx')}x{g.get('ny')}x{g.get('nz')}"


def group_results(results, t):
    """The results of the row's group at its size whose study.params hold the row's `select` (compared as text)."""
    want = {k: str(v) for k, v in (t.get("select") or {}).items()}
    out = []
    for rid, r in sorted(results.items()):
        study = r.get("study") or {}
        params = {k: str(v) for k, v in (study.get("params") or {}).items()}
        if (study.get("group") == t["group"] and grid_of(r) == t["_grid"]
                and all(params.get(k) == v for k, v in want.items())):
            out.append(r)
    return out


def stage_rows(result, t):
    """The stage benchmark rows of the row's stage (and scheme, variant name, where it names them)."""
    prefix = t["stage"] + "/"  # 'solver/stage/': the rows' variant ids are 'solver/stage/variant'
    return [row for row in result.get("rows", []) if row.get("variant", "").startswith(prefix)
            and ("scheme" not in t or row.get("scheme") == t["scheme"])
            and ("variant" not in t or common.variant_name(row["variant"]) == t["variant"])]


def quartiles(values):
    """(q1, median, q3) with linear interpolation between order statistics."""
    v = sorted(values)

    def at(q):
        x = q * (len(v) - 1)
        lo = int(x)
        return v[lo] + (v[min(lo + 1, len(v) - 1)] - v[lo]) * (x - lo)
    return at(0.25), at(0.5), at(0.75)


def call_quartiles(row):
    """(q1, median, q3) seconds of a stage row's calls: from its raw samples where all are kept, else its median
    and IQR (nsbench's, from every sample) as median -/+ IQR/2."""
    raw = row.get("raw_seconds") or []
    if raw and len(raw) == row.get("samples") and not row.get("raw_seconds_subsampled"):
        return quartiles(raw)
    half = (row.get("iqr_s") or 0.0) / 2
    return row["median_s"] - half, row["median_s"], row["median_s"] + half


def step_quartiles(result):
    """(q1, median, q3) seconds of a run's steps (median -/+ IQR/2 where the result has no quartiles)."""
    step = result["timing"]["step"]
    half = (step.get("iqr") or 0.0) / 2
    return step.get("q1", step["median"] - half), step["median"], step.get("q3", step["median"] + half)


# ---------------------------------------------------------------- the measures: each gives a Measurement

def measurement(rate, times, calls, what, unit):
    """A measure's value at the median time and its spread over the calls' interquartile range: rate(seconds) is
    the measure as a function of one call's seconds, monotonic (so the quartile times give the quartile values)."""
    q1, median, q3 = times
    lo, hi = sorted((rate(q1), rate(q3)))
    return {"value": rate(median), "low": lo, "high": hi, "calls": calls, "what": what, "unit": unit}


def copy_percent(result, row, t):
    """% of copy = 100 x model bytes / seconds / the copy bandwidth measured in the same run."""
    copy = common.gpu_copy_bandwidth(result)
    if not copy or not row.get("model_bytes"):
        return None
    return dict(measurement(lambda s: 100 * row["model_bytes"] / s / copy, call_quartiles(row), row.get("samples"),
                            _variant_label(row), UNITS["copy"]), row=row)


def fp64_peak_percent(result, row, t):
    """% of FP64 peak = 100 x model flops / seconds / (SMs x FP64 FMA lanes an SM x 2 x SM clock)."""
    peak = common.peak_flops((result.get("machine") or {}).get("gpu") or {}).get("double")
    if not peak or not row.get("model_flops"):
        return None
    return dict(measurement(lambda s: 100 * row["model_flops"] / s / peak, call_quartiles(row), row.get("samples"),
                            _variant_label(row), UNITS["fp64_peak"]), row=row)


def cg_iteration(result, t):
    """ms per iteration = solve seconds / its iterations (the checks every 10 iterations included);
    % of copy = 100 x words_per_point x word bytes x points / (seconds per iteration) / the copy bandwidth."""
    run, checks = result["run"], result.get("checks") or {}
    iterations, copy = checks.get("poisson_iterations"), common.gpu_copy_bandwidth(result)
    if not iterations or not copy:
        return None
    g = run["grid"]
    data = t["words_per_point"] * WORD_BYTES[run["precision"]] * g["nx"] * g["ny"] * g["nz"]
    m = measurement(lambda s: 100 * data / (s / iterations) / copy, step_quartiles(result),
                    result["timing"]["step"].get("count"), f"{run.get('poisson_method')}, {iterations} iterations",
                    UNITS["cg_iteration"])
    m["extra"] = f"{fmt(step_quartiles(result)[1] / iterations * 1e3)} ms an iteration"
    return m


def sweep_equivalents(result, t):
    """Sweep equivalents = solve seconds / one Jacobi sweep of the same grid in the same run
    (poisson_report.solve_rows: checks.jacobi_sweep_seconds)."""
    row = poisson_report.solve_rows({"r": result}, t["group"])[0]
    if not row["sweep"]:
        return None
    m = measurement(lambda s: s / row["sweep"], step_quartiles(result), result["timing"]["step"].get("count"),
                    f"{row['method']}, {row['iterations']} iterations", UNITS["sweep_equivalents"])
    m["extra"] = f"{fmt(row['seconds'] * 1e3)} ms a solve"
    if not row["reached"]:
        m["unreached"] = f"tolerance {fmt(row['tolerance'])} not reached (residual {fmt(row['residual'])})"
    return m


def step_over_model(result, t):
    """x of byte model = step seconds / (the stages' byte models a step at the copy bandwidth of the same run)."""
    model = urban.model_seconds(result)
    if not model:
        return None
    recipe = result["run"].get("recipe", "?")
    m = measurement(lambda s: s / model, step_quartiles(result), result["timing"]["step"].get("count"),
                    f"recipe {recipe}", UNITS["step_over_model"])
    m["extra"] = f"{fmt(step_quartiles(result)[1] * 1e3)} ms a step, model {fmt(model * 1e3)} ms"
    return m


def _variant_label(row):
    return f"{common.variant_name(row['variant'])}:{row.get('tuning', '')}" + \
        (f" ({row['scheme']})" if row.get("scheme") else "")


MEASURES = {"copy": copy_percent, "fp64_peak": fp64_peak_percent, "cg_iteration": cg_iteration,
            "sweep_equivalents": sweep_equivalents, "step_over_model": step_over_model}


def _better(t):
    """The key that sorts a row's candidates best first: the highest value for at_least, the lowest for at_most."""
    sign = -1 if "at_least" in t["target"] else 1
    return lambda m: sign * m["value"]


def measure(results, t):
    """(measurement, None) of the row's best candidate in its results, or (None, why it is not measured)."""
    found = group_results(results, t)
    if not found:
        sel = "".join(f", {k} {v}" for k, v in (t.get("select") or {}).items())
        return None, f"no result of group '{t['group']}'{sel} at {t['_grid']} on this machine (scripts/run-study " \
                     "stage_targets)"
    fn = MEASURES[t["measure"]]
    if t["measure"] in STAGE_MEASURES:
        candidates = [(r, row) for r in found for row in stage_rows(r, t)]
        if not candidates:
            return None, f"the group's results hold no row of {t['stage']}" + \
                (f" scheme {t['scheme']}" if "scheme" in t else "")
        ms = [dict(m, source=r) for m, r in ((fn(r, row, t), r) for r, row in candidates) if m]
    else:
        ms = [dict(m, source=r) for m, r in ((fn(r, t), r) for r in found if "timing" in r) if m]
    if not ms:
        return None, "its results lack what the measure needs (copy bandwidth, byte model, sweep or iteration count)"
    best = sorted(ms, key=_better(t))[0]
    if not best["calls"]:
        return None, "its result records no call count"
    if best["calls"] < MIN_CALLS:
        return None, f"{best['calls']} calls (fewer than {MIN_CALLS})"
    return best, None


def verdict(t, m, missing):
    if m is None:
        return f"not measured: {missing}"
    bound, limit = next(iter(t["target"].items()))
    met = m["value"] >= limit if bound == "at_least" else m["value"] <= limit
    if met and "unreached" in m:
        return f"not met: {m['unreached']}"
    return "met" if met else "not met"


def target_text(t):
    bound, limit = next(iter(t["target"].items()))
    return f"{'>=' if bound == 'at_least' else '<='} {fmt(limit)} {UNITS[t['measure']]}"


HEADERS = ["row", "size", "measured: median (IQR over the calls)", "best variant / run", "calls", "H100 (issue)",
           "H200 quick run (issue, not a result)", "target", "verdict", "limiter (ncu)"]


def table_rows(study, results):
    rows = []
    for t in load_targets(study):
        m, missing = measure(results, t)
        cell = "-" if m is None else (f"{fmt(m['value'])} {m['unit']} ({fmt(m['low'])}-{fmt(m['high'])})"
                                      + (f"; {m['extra']}" if m.get("extra") else ""))
        rows.append([t["row"], t["size"], cell, m["what"] if m else "-", m["calls"] if m else "-", t.get("h100", "-"),
                     t.get("issue_h200", "-"), target_text(t), verdict(t, m, missing),
                     t.get("limiter") or "not profiled yet"])
    return rows


def stage_targets(s, study, results, paper, out, all_results):
    """Issue 43's table measured on this machine."""
    s.table(HEADERS, table_rows(study, results))
    s.p("Each row is the best candidate of its group (the best variant and tuning of a stage benchmark, the faster "
        "method of a whole run) at the size the target names; the spread is the measure at the first and third "
        "quartile of its calls' times. Formulas: % of copy = 100 x model bytes / seconds / the copy bandwidth measured "
        "in the same run; % of FP64 peak = 100 x model flops / seconds / (SMs x 64 FP64 FMA a clock x 2 x SM clock); "
        "CG: seconds an iteration = solve / iterations, % of copy at 11 words a point; sweep equivalents = solve / one "
        "Jacobi sweep of the same grid in the same run; x byte model = step / (the stages' byte models at the copy "
        "bandwidth). A row is measured only with 20 or more calls. The H200 quick-run column is the issue's figure "
        "from a quick run, cited, not measured here. The limiter is the yaml's `limiter`, from an ncu profile "
        "(scripts/device-run.sh targets).")


# ---------------------------------------------------------------- what scripts/device-run.sh targets profiles

def ncu_targets(study, results):
    """'solver/stage:variant:tuning:precision:grid' lines: each stage row's best variant in the results, each whole-run
    row's `profile` entry; a stage row without its measurement is left out (named on stderr)."""
    lines = []
    for t in load_targets(study):
        if "profile" in t:
            p = t["profile"]
            lines.append(f"{p['stage']}:{p['variant']}::{p['precision']}:{p['grid']}")  # every tuning
            continue
        m, missing = measure(results, t)
        if m is None:
            print(f"stage_targets: {t['row']}: not profiled, not measured ({missing})", file=sys.stderr)
            continue
        row = m["row"]
        lines.append(f"{t['stage']}:{common.variant_name(row['variant'])}:{row.get('tuning', '')}:"
                     f"{m['source']['precision']}:{t['_grid']}")
    return list(dict.fromkeys(lines))  # a variant once (the two CC-CCD rows of one variant, say)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Issue 43's rows: the ncu targets of a results folder")
    ap.add_argument("--ncu-targets", metavar="RESULTS_FOLDER", required=True,
                    help="a results/stage_targets/<machine>/ folder")
    ap.add_argument("--study", default=DEFAULT_STUDY)
    args = ap.parse_args(argv)
    study = studylib.load_study(args.study)
    results, _ = studylib.load_results(args.ncu_targets)
    if not results:
        print(f"stage_targets: no results in {args.ncu_targets}", file=sys.stderr)
        return 1
    print("\n".join(ncu_targets(study, results)))
    return 0


BUILDERS = {"stage_targets": stage_targets}

if __name__ == "__main__":
    sys.exit(main())
