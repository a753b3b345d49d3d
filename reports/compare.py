"""scripts/compare: is CURRENT slower than BASELINE? One verdict per benchmark and one exit code.

    scripts/compare BASELINE CURRENT [--json OUT] [--markdown OUT] [--force] [--min-coverage F] [--seed N]
                    [--aliases FILE]
    scripts/compare --update-baseline CURRENT [--append] [--baselines baselines]

BASELINE and CURRENT are result files or folders of them, any nesting: nsbench `run` and `stages`
results (schemas nsbench.run/1-2 and nsbench.stages/1-2), as .json or gzip-compressed .json.gz (the form
results are stored in). *.skipped.json, *.failed.json, provenance.json and variant-aliases.json are not
results and are left out. Any other file, a Google Benchmark JSON included, is an input error, as is an
unreadable or truncated one, named in the message.

Benchmarks: every stage row of a `stages` result (variant:tuning:scheme at its grid and precision) and
the step time of every `run` result (case, grid, precision, recipe, launch, ranks). Variant ids name
the solver first ("projection/pressure/jacobi_global_2d_zloop"); results written before the solver
was part of the id say "pressure/jacobi_global_2d_zloop". An id of two parts is read as one of the
projection solver (the only solver then), so that an old baseline and a new result compare.

Renamed variants: a variant renamed since the baseline was recorded keeps its old name as an alias
(`nsbench list` shows them). The alias table (--aliases, default baselines/variant-aliases.json beside
the baselines, kept equal to the registry's by test_harness) maps old ids to new ones on both sides
before benchmarks are matched, and the summary says how many rows it renamed. --aliases also takes the
output of `nsbench list --json`.

Coverage: CURRENT must hold at least --min-coverage (default 0.9) of the baseline's benchmarks, or
the comparison is an input error (exit 4) that says the share found: comparing nothing, or a few rows
of a set that lost the rest (a crashed run, a renamed variant), must not pass as "no regression".

Statistic. For each benchmark: the ratio of medians r = median(current) / median(baseline), with a 95%
percentile-bootstrap confidence interval from the raw samples (resampling each side). Why bootstrap
rather than Mann-Whitney U: timing samples are skewed and often multimodal, so a test built on normal
theory is off; and the verdict is about *how much* slower, which the interval of the ratio answers
directly, while a rank test answers "is there any shift" and, with hundreds of samples, calls a 0.3%
shift significant.

Noise and threshold. The baseline holds several repetitions of every benchmark (scripts/gpu-ci
--record-baseline makes 5); the run-to-run noise is the relative standard deviation of their medians.
The bootstrap interval only knows the scatter of samples within one run, so the interval used is
r (1 +- 1.96 sigma), sigma^2 = s^2 + b^2: s the bootstrap standard error of the ratio, b = noise x
sqrt(1/n_current + 1/n_baseline) the run-to-run part (n: repetitions pooled on each side; a re-run of
the current build makes n_current 2). The noise is estimated from a few repetitions and can come out
low; the 3% floor of the threshold is what keeps such an underestimate from calling 2% slower. The
threshold is t = 3 x noise, but at least 3%: the gate is meant to catch 5% regressions and to let a 2%
change pass as noise; a GPU whose noise is larger raises t. A baseline with a single repetition has no
measured noise and is refused.

Smallest detectable slowdown. A row is called slower when its whole interval lies above 1 + t, i.e.
r (1 - 1.96 sigma) > 1 + t. With the row's sigma (its noise and sample counts; a uniform slowdown
scales the samples and their scatter alike, so sigma stays), the smallest slowdown it could have
detected is d = (1 + t) / (1 - 1.96 sigma) - 1, shown for every row ("none" when 1.96 sigma >= 1, or
when the row has no interval). At exactly d the measured ratio clears the bar about half the time;
clearly beyond d, reliably. The summary says how many rows cannot detect a 5% slowdown (d > 5%).

Verdicts: slower (the whole interval above 1 + t), ambiguous (the ratio above 1 + t but the interval
reaching back below it, or fewer than --min-samples samples on a side, or no measured noise), same
(the ratio within 1 +- t), faster (the ratio below 1 - t; listed, and a pass: the gate asks only
whether CURRENT is slower).

Comparability: results whose GPU model, driver, maximum SM clock or build (compiler flags, CUDA
architectures, build type) differ are refused (exit 3) unless --force: a regression gate must not
compare an H100 with an H200, or a debug build with a release one. So is a side whose results come from
more than one commit (a reused output folder): its pooled repetitions would not be one build's.

Exit codes:
  0  pass: every benchmark compared is the same or faster (faster rows are listed)
  1  slower: at least one benchmark confirmed slower
  2  ambiguous: none slower, at least one ambiguous (scripts/gpu-ci re-runs once on this code only)
  3  not comparable: different GPU, driver, clock or build (--force compares anyway)
  4  input error: a file unreadable, truncated or of an unknown format (a Google Benchmark JSON),
     no result files, CURRENT holding less than --min-coverage of the baseline's benchmarks (nothing
     in common included); --update-baseline: results that cannot make a baseline
  5  usage error: bad arguments; --update-baseline whose results and destination overlap
  6  internal error: a bug in compare.py (traceback printed), never a verdict
  7  could not run: no Python with numpy (scripts/compare says so; scripts/gpu-ci uses 7 for its own
     "could not run" too)
  8  could not write --json or --markdown: the verdict was printed first, and the message names it
"""
import argparse
import datetime
import gzip
import json
import os
import shutil
import statistics
import sys
import traceback

try:
    import numpy as np
except ImportError as e:  # not "ambiguous" (2), which scripts/gpu-ci answers with a re-run
    print(f"compare: could not run: numpy is missing ({e}); scripts/setup.sh installs it", file=sys.stderr)
    sys.exit(7)

NOISE_FACTOR = 3.0      # threshold = 3 x the measured run-to-run noise of the medians ...
THRESHOLD_FLOOR = 0.03  # ... but never below 3%: the gate catches 5% regressions and lets 2% pass
GATE_TARGET = 0.05      # the slowdown the gate is meant to catch; rows that cannot are counted
Z95 = 1.96              # two-sided 95% normal quantile of the interval r (1 +- Z95 sigma)
DEFAULT_MIN_COVERAGE = 0.9
LEGACY_SOLVER = "projection"  # the solver of variant ids written as "stage/variant"
BENCHMARK_SCHEMAS = ("nsbench.stages/1", "nsbench.stages/2", "nsbench.run/1", "nsbench.run/2")
NOT_RESULTS = (".skipped.json", ".failed.json", ".skipped.json.gz", ".failed.json.gz")
NOT_RESULT_FILES = ("provenance.json", "variant-aliases.json")  # what a baselines folder holds besides results

EXIT_PASS, EXIT_SLOWER, EXIT_AMBIGUOUS, EXIT_NOT_COMPARABLE, EXIT_INPUT_ERROR, EXIT_USAGE_ERROR, \
    EXIT_INTERNAL_ERROR, EXIT_COULD_NOT_RUN, EXIT_WRITE_ERROR = range(9)
VERDICT_NAMES = {EXIT_PASS: "pass", EXIT_SLOWER: "slower", EXIT_AMBIGUOUS: "ambiguous",
                 EXIT_NOT_COMPARABLE: "not comparable"}


class InputError(Exception):
    """Results the gate cannot use (exit 4)."""


class UsageError(Exception):
    """Arguments that cannot be meant (exit 5)."""


class WriteError(Exception):
    """--json or --markdown could not be written (exit 8); the verdict, printed before, is in the message."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse exits 2 on bad arguments, which is the gate's "ambiguous": a usage error gets its own code."""

    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"compare: usage error: {message}", file=sys.stderr)
        sys.exit(EXIT_USAGE_ERROR)


def result_paths(path):
    """The result files at PATH: PATH itself, or the .json and .json.gz files under it."""
    if os.path.isfile(path):
        return [path]
    if not os.path.isdir(path):
        raise InputError(f"{path}: no such file or folder")
    out = []
    for root, dirs, names in os.walk(path):
        dirs.sort()
        out += [os.path.join(root, n) for n in sorted(names) if n.endswith((".json", ".json.gz"))
                and not n.endswith(NOT_RESULTS) and n not in NOT_RESULT_FILES]
    if not out:
        raise InputError(f"{path}: no result files (*.json, *.json.gz) in it")
    return out


def describe_format(data):
    if isinstance(data, dict) and "benchmarks" in data and "context" in data:
        return "a Google Benchmark JSON, not an nsbench result (Google Benchmark's compare.py reads those)"
    if isinstance(data, dict) and "schema" in data:
        return f"an unknown format (schema {data['schema']!r})"
    return "an unknown format (no 'schema')"


def read_result(path):
    """One result file, checked: readable, complete JSON, a known schema, every field the gate reads."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            data = json.load(f)
    except (OSError, EOFError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{path}: unreadable or truncated ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict) or data.get("schema") not in BENCHMARK_SCHEMAS:
        raise InputError(f"{path}: {describe_format(data)}; the gate reads {' and '.join(BENCHMARK_SCHEMAS)}")
    try:
        samples = benchmarks([data])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise InputError(f"{path}: an incomplete {data['schema']} result ({type(e).__name__}: {e})") from None
    for name, repetitions in samples.items():
        for raw in repetitions:
            if not isinstance(raw, list) or not raw or not all(is_duration(x) for x in raw):
                raise InputError(f"{path}: {name}: the raw samples are not a list of positive times")
    return data


def is_duration(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and 0 < x < float("inf")


def load_files(path):
    return [read_result(p) for p in result_paths(path)]


def canonical_variant(variant_id, aliases=None):
    """'stage/variant' (before the solver was part of the id) -> 'projection/stage/variant'; an old name
    in ALIASES ({old id: new id}) -> the variant's name now."""
    full = f"{LEGACY_SOLVER}/{variant_id}" if variant_id.count("/") == 1 else variant_id
    return (aliases or {}).get(full, full)


def load_aliases(path):
    """{old variant id: new id} from an alias table ({"aliases": {old: new}}) or from the output of
    `nsbench list --json` (each variant's "aliases"). Ids of two parts are read as the projection solver's."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"--aliases {path}: unreadable ({type(e).__name__}: {e})") from None
    if isinstance(data, dict) and isinstance(data.get("aliases"), dict):
        pairs = data["aliases"].items()
    elif isinstance(data, dict) and isinstance(data.get("variants"), list):
        pairs = [(f"{v['id'].rsplit('/', 1)[0]}/{old}", v["id"]) for v in data["variants"] for old in v.get("aliases", [])]
    else:
        raise InputError(f"--aliases {path}: neither an alias table ({{\"aliases\": {{old: new}}}}) nor nsbench list --json")
    return {canonical_variant(old): canonical_variant(new) for old, new in pairs}


def default_aliases_path():
    """The alias table committed beside the baselines."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "baselines",
                        "variant-aliases.json")


def benchmarks(results, aliases=None):
    """{benchmark name: [list of raw-sample lists, one per repetition]}; variant ids under their name now."""
    out = {}
    for r in results:
        if r["schema"].startswith("nsbench.stages/"):
            g = r["grid"]
            grid = f"{g['nx']}x{g['ny']}x{g['nz']}"
            for row in r["rows"]:
                if "raw_seconds" in row:
                    variant = canonical_variant(row["variant"], aliases)
                    name = (f"stage {variant}:{row['tuning']}:{row.get('scheme') or 'euler'} "
                            f"{grid} {r['precision']}")
                    out.setdefault(name, []).append(row["raw_seconds"])
        elif r["schema"].startswith("nsbench.run/"):
            run = r["run"]
            g = run["grid"]
            ranks = run.get("decomposition", {}).get("ranks", 1)
            name = (f"run {run['case']} {g['nx']}x{g['ny']}x{g['nz']} {run['precision']} {run['recipe']} "
                    f"{run['launch']} x{ranks}")
            out.setdefault(name, []).append(r["timing"]["step_raw_seconds"])
    return out


def fingerprint(results):
    """What must match for two result sets to be comparable."""
    keys = set()
    for r in results:
        gpu = (r.get("machine") or {}).get("gpu") or {}
        b = r.get("build", {})
        keys.add((("gpu", gpu.get("name")), ("driver", gpu.get("driver_version")),
                  ("sm_clock_khz", gpu.get("sm_clock_khz")), ("cxx_flags", b.get("cxx_flags")),
                  ("cuda_flags", b.get("cuda_flags")), ("cuda_architectures", b.get("cuda_architectures")),
                  ("build_type", b.get("build_type"))))
    return keys


def commits(results):
    return sorted({str((r.get("build") or {}).get("git_commit"))[:10] for r in results})


def comparable(base, cur):
    for side, results in (("baseline", base), ("current results", cur)):
        if len(commits(results)) > 1:
            return f"the {side} mix commits {', '.join(commits(results))} (a reused output folder?)"
    fb, fc = fingerprint(base), fingerprint(cur)
    if len(fb) > 1:
        return f"the baseline mixes machines or builds: {sorted(fb)}"
    if len(fc) > 1:
        return f"the current results mix machines or builds: {sorted(fc)}"
    if fb != fc:
        b, c = dict(next(iter(fb))), dict(next(iter(fc)))
        diffs = [f"{k}: baseline {b[k]!r}, current {c[k]!r}" for k in b if b[k] != c[k]]
        return "; ".join(diffs)
    return None


def check_coverage(base, cur, min_coverage):
    """The share of the baseline's benchmarks that CURRENT holds; an InputError below min_coverage."""
    common = set(base) & set(cur)
    share = len(common) / len(base) if base else 0.0
    if not common or share < min_coverage:
        absent = sorted(set(base) - common)
        examples = "; ".join(absent[:3]) + (f"; ... ({len(absent) - 3} more)" if len(absent) > 3 else "")
        raise InputError(f"CURRENT holds {len(common)} of the baseline's {len(base)} benchmarks ({share:.1%}); at "
                         f"least {min_coverage:.0%} are needed (--min-coverage {min_coverage:g}). Not in CURRENT: "
                         f"{examples or '-'}")
    return {"baseline_benchmarks": len(base), "current_benchmarks": len(cur), "in_common": len(common),
            "share": share}


def bootstrap_ratio(base, cur, rng, resamples=2000):
    """Relative standard error of median(cur) / median(base) from a bootstrap of the raw samples."""
    b, c = np.asarray(base), np.asarray(cur)
    mb = np.median(b[rng.integers(0, len(b), (resamples, len(b)))], axis=1)
    mc = np.median(c[rng.integers(0, len(c), (resamples, len(c)))], axis=1)
    r = mc / mb
    return float(np.std(r) / np.median(r))


def run_to_run_noise(reps):
    """Relative standard deviation of the repetitions' medians (None with fewer than two)."""
    if len(reps) < 2:
        return None
    meds = [statistics.median(r) for r in reps]
    m = statistics.mean(meds)
    return statistics.stdev(meds) / m if m > 0 else None


def smallest_detectable_slowdown(threshold, sigma):
    """The slowdown d at which r (1 - Z95 sigma) > 1 + t starts to hold at r = 1 + d (see the module
    docstring); None when no slowdown is detectable (the interval always reaches down to 1 + t)."""
    if Z95 * sigma >= 1:
        return None
    return (1 + threshold) / (1 - Z95 * sigma) - 1


def compare_row(name, base_reps, cur_reps, rng, min_samples):
    """The verdict on one benchmark, with everything it was made from."""
    noise = run_to_run_noise(base_reps)
    b = [x for r in base_reps for x in r]
    c = [x for r in cur_reps for x in r]
    row = {"benchmark": name, "baseline_median": statistics.median(b), "current_median": statistics.median(c),
           "ratio": statistics.median(c) / statistics.median(b), "baseline_samples": len(b),
           "current_samples": len(c), "baseline_repetitions": len(base_reps), "detectable_slowdown": None}
    if noise is None:
        return dict(row, verdict="ambiguous", why="the baseline has one repetition: no measured run-to-run noise")
    t = max(NOISE_FACTOR * noise, THRESHOLD_FLOOR)
    row["noise"], row["threshold"] = noise, t
    if min(len(b), len(c)) < min_samples:
        return dict(row, verdict="ambiguous", why=f"fewer than {min_samples} samples on a side")
    # The interval holds both the sampling error (bootstrap) and the run-to-run noise of the pooled
    # repetitions on each side (a re-run of the current build adds one).
    sampling = bootstrap_ratio(b, c, rng)
    between = noise * (1 / len(cur_reps) + 1 / len(base_reps)) ** 0.5
    sigma = (sampling ** 2 + between ** 2) ** 0.5
    r = row["ratio"]
    lo, hi = r * (1 - Z95 * sigma), r * (1 + Z95 * sigma)
    row.update(ci_low=lo, ci_high=hi, sigma=sigma, detectable_slowdown=smallest_detectable_slowdown(t, sigma))
    if lo > 1 + t:
        row["verdict"] = "slower"
    elif r > 1 + t:
        row.update(verdict="ambiguous", why="beyond the threshold, but not by more than the noise")
    elif r < 1 - t:
        row["verdict"] = "faster"
    else:
        row["verdict"] = "same"
    return row


def renamed_variants(results, aliases):
    """{old id: new id} for the variants of RESULTS' stage rows that ALIASES renames."""
    ids = {canonical_variant(row["variant"]) for r in results if r["schema"].startswith("nsbench.stages/")
           for row in r["rows"]}
    return {old: aliases[old] for old in sorted(ids) if old in aliases}


def compare(base_results, cur_results, min_samples=10, seed=1, force=False, min_coverage=DEFAULT_MIN_COVERAGE,
            aliases=None):
    why = comparable(base_results, cur_results)
    if why and not force:
        return {"comparable": False, "reason": why, "rows": [], "exit_code": EXIT_NOT_COMPARABLE}
    base, cur = benchmarks(base_results, aliases), benchmarks(cur_results, aliases)
    coverage = check_coverage(base, cur, min_coverage)
    rng = np.random.default_rng(seed)
    rows = [compare_row(name, base[name], cur[name], rng, min_samples) for name in sorted(set(base) & set(cur))]
    verdicts = {r["verdict"] for r in rows}
    code = EXIT_SLOWER if "slower" in verdicts else EXIT_AMBIGUOUS if "ambiguous" in verdicts else EXIT_PASS
    blind = [r for r in rows if r["detectable_slowdown"] is None or r["detectable_slowdown"] > GATE_TARGET]
    return {"comparable": True, "forced": bool(why), "reason": why, "rows": rows, "exit_code": code,
            "coverage": coverage, "not_in_both": sorted(set(base) ^ set(cur)),
            "renamed": renamed_variants(base_results + cur_results, aliases or {}),
            "cannot_detect_target": {"target_slowdown": GATE_TARGET, "rows": len(blind)},
            "method": "ratio of medians; 95% interval from a bootstrap of the raw samples (2000 resamples) "
                      f"combined with the baseline's run-to-run noise; threshold {NOISE_FACTOR:g} x that noise, at "
                      f"least {THRESHOLD_FLOOR:.1%}; smallest detectable slowdown (1 + threshold) / "
                      f"(1 - {Z95} sigma) - 1"}


def percent(x):
    return "none" if x is None else f"+{100 * x:.1f}%"


def markdown(result):
    if not result["comparable"]:
        return f"**Not comparable**: {result['reason']} (use --force to compare anyway)\n"
    counts = {}
    for r in result["rows"]:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    verdict = {EXIT_PASS: "PASS", EXIT_SLOWER: "FAIL: slower", EXIT_AMBIGUOUS: "AMBIGUOUS"}[result["exit_code"]]
    cov, blind = result["coverage"], result["cannot_detect_target"]
    lines = [f"**Performance gate: {verdict}** ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))})", "",
             f"Compared {cov['in_common']} of the baseline's {cov['baseline_benchmarks']} benchmarks "
             f"({cov['share']:.1%}). {blind['rows']} of {len(result['rows'])} rows cannot detect a "
             f"{blind['target_slowdown']:.0%} slowdown (their smallest detectable slowdown is larger, or none).", "",
             f"Method: {result['method']}.", ""]
    if result.get("forced"):
        lines += [f"Compared despite: {result['reason']}", ""]
    if result.get("renamed"):
        lines += ["Variants read under their name now: " +
                  ", ".join(f"{old} -> {new}" for old, new in result["renamed"].items()), ""]
    lines += ["| benchmark | baseline median | current median | ratio | 95% CI | threshold | detectable slowdown "
              "| verdict |", "|---|---|---|---|---|---|---|---|"]
    order = {"slower": 0, "ambiguous": 1, "faster": 2, "same": 3}
    for r in sorted(result["rows"], key=lambda r: (order[r["verdict"]], r["benchmark"])):
        ci = f"{r['ci_low']:.3f} - {r['ci_high']:.3f}" if "ci_low" in r else r.get("why", "-")
        th = f"±{100 * r['threshold']:.1f}%" if "threshold" in r else "-"
        lines.append(f"| {r['benchmark']} | {r['baseline_median'] * 1e6:.2f} us | {r['current_median'] * 1e6:.2f} us | "
                     f"{r['ratio']:.3f} | {ci} | {th} | {percent(r['detectable_slowdown'])} | {r['verdict']} |")
    if result["not_in_both"]:
        lines += ["", f"In only one of the two sets (not compared): {len(result['not_in_both'])}"]
    return "\n".join(lines) + "\n"


def gpu_model_slug(results):
    for r in results:
        gpu = (r.get("machine") or {}).get("gpu")
        if gpu:
            return "".join(ch if ch.isalnum() else "-" for ch in gpu["name"].lower()).strip("-")
    raise InputError("the results name no GPU; a baseline is stored per GPU model")


def refuse_overlap(source, dest):
    """Writing a baseline replaces DEST; when it holds SOURCE (or SOURCE holds it) that deletes the very
    results being kept (scripts/compare --update-baseline baselines/nvidia-h200 --baselines baselines)."""
    s, d = os.path.realpath(source), os.path.realpath(dest)
    if os.path.commonpath([s, d]) in (s, d):
        raise UsageError(f"--update-baseline would write {dest} while reading {source}, and one holds the other; "
                         "give results recorded elsewhere (scripts/gpu-ci --record-baseline writes them under its "
                         "--out folder)")


def refuse_appended_twice(kept, results, current, dest):
    """The same result files appended twice would count as another recording and shrink the measured noise."""
    def key(r):
        return json.dumps(r, sort_keys=True)
    there = {key(r) for r in kept}
    twice = [p for p, r in zip(result_paths(current), results) if key(r) in there]
    if twice:
        raise InputError(f"{len(twice)} of the results to append are in the baseline at {dest} already (e.g. "
                         f"{twice[0]}): the same runs appended twice would count as another recording")


def update_baseline(current, root, append=False):
    """Keeps CURRENT as the baseline of its GPU model. With append, CURRENT's repetitions join the
    baseline already there (same commit and build, e.g. recorded on another machine allocation), so
    the noise the threshold is built on includes the spread between allocations, not only within one."""
    results = load_files(current)
    dest = os.path.join(root, gpu_model_slug(results))
    refuse_overlap(current, dest)
    kept = load_files(dest) if append and os.path.isdir(dest) else []
    if append and not kept:
        raise InputError(f"--append needs a baseline to append to; none at {dest}")
    if kept:
        c_old, c_new = kept[0]["build"].get("git_commit"), results[0]["build"].get("git_commit")
        if c_old != c_new:
            raise InputError(f"cannot append results of commit {str(c_new)[:10]} to a baseline of commit "
                             f"{str(c_old)[:10]}: record a new baseline instead")
        refuse_appended_twice(kept, results, current, dest)
    combined = kept + results
    reps = {len(v) for v in benchmarks(combined).values()}
    if not reps or min(reps) < 2:
        raise InputError("a baseline needs at least two repetitions of every benchmark (the run-to-run noise sets "
                         "the threshold); record it with scripts/gpu-ci --record-baseline")
    why = comparable(combined, combined)
    if why:
        raise InputError(f"cannot make a baseline of mixed results: {why}")
    prov_path = os.path.join(dest, "provenance.json")
    sessions = []
    if kept:
        with open(prov_path) as f:
            sessions = json.load(f).get("sessions", [])
        tag = datetime.datetime.utcnow().strftime("appended%Y%m%dT%H%M%SZ")
        for path in result_paths(current):
            shutil.copy(path, os.path.join(dest, f"{tag}-{os.path.basename(path)}"))
    else:
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        shutil.copytree(current, dest) if os.path.isdir(current) else (os.makedirs(dest), shutil.copy(current, dest))
    r0 = results[0]
    gpu = r0["machine"]["gpu"]
    now = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
    sessions.append({"recorded": now, "files": len(results), "host": r0["machine"].get("hostname"),
                     "pci_bus_id": gpu.get("pci_bus_id")})
    prov = {"recorded": now,
            "commit": r0["build"].get("git_commit"), "dirty": r0["build"].get("git_dirty"),
            "gpu": gpu["name"], "driver_version": gpu.get("driver_version"), "sm_clock_khz": gpu.get("sm_clock_khz"),
            "memory_clock_khz": gpu.get("memory_clock_khz"), "build": r0["build"],
            "repetitions": min(reps), "benchmarks": len(benchmarks(combined)), "sessions": sessions}
    with open(prov_path, "w") as f:
        json.dump(prov, f, indent=1)
    print(f"compare: baseline for {gpu['name']} {'extended' if kept else 'written'} in {dest} "
          f"({prov['benchmarks']} benchmarks, {prov['repetitions']} repetitions over {len(sessions)} recording(s), "
          f"commit {str(prov['commit'])[:10]})")


def coverage_fraction(text):
    """A --min-coverage value: a fraction in (0, 1]."""
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not a share in (0, 1]")
    return value


def parse_args(argv):
    ap = ArgumentParser(prog="compare", description=__doc__.split("\n\n")[0], epilog=__doc__,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="BASELINE CURRENT, or CURRENT with --update-baseline")
    ap.add_argument("--update-baseline", action="store_true")
    ap.add_argument("--append", action="store_true",
                    help="with --update-baseline: add these repetitions to the baseline of the same commit (another "
                         "machine allocation), so that the measured noise includes the spread between allocations")
    ap.add_argument("--baselines", default="baselines")
    ap.add_argument("--json", help="write the comparison as JSON here")
    ap.add_argument("--markdown", help="write the Markdown table here (a pull-request comment)")
    ap.add_argument("--force", action="store_true", help="compare results from different machines or builds")
    ap.add_argument("--min-samples", type=int, default=10)
    ap.add_argument("--min-coverage", type=coverage_fraction, default=DEFAULT_MIN_COVERAGE,
                    help="the share of the baseline's benchmarks CURRENT must hold (default %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--aliases", help="variant renames: an alias table or the output of `nsbench list --json` "
                                      "(default: baselines/variant-aliases.json, when there)")
    a = ap.parse_args(argv)
    if a.update_baseline and len(a.paths) != 1:
        ap.error("--update-baseline takes one path: the results to keep as the baseline")
    if not a.update_baseline and len(a.paths) != 2:
        ap.error("give BASELINE and CURRENT")
    return a


def run(a):
    if a.update_baseline:
        update_baseline(a.paths[0], a.baselines, a.append)
        return EXIT_PASS
    aliases_path = a.aliases or default_aliases_path()
    aliases = load_aliases(aliases_path) if a.aliases or os.path.isfile(aliases_path) else {}
    result = compare(load_files(a.paths[0]), load_files(a.paths[1]), a.min_samples, a.seed, a.force, a.min_coverage,
                     aliases)
    text = markdown(result)
    print(text, flush=True)
    for path, write in ((a.markdown, lambda f: f.write(text)), (a.json, lambda f: json.dump(result, f, indent=1))):
        if path:
            try:
                with open(path, "w") as f:
                    write(f)
            except OSError as e:
                raise WriteError(f"cannot write {path} ({e.strerror or e}); the verdict above stands: "
                                 f"{VERDICT_NAMES[result['exit_code']]} (exit {result['exit_code']} had the file "
                                 f"been written)") from None
    return result["exit_code"]


def main(argv=None):
    a = parse_args(argv)
    try:
        return run(a)
    except InputError as e:
        print(f"compare: input error: {e}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except UsageError as e:
        print(f"compare: usage error: {e}", file=sys.stderr)
        return EXIT_USAGE_ERROR
    except WriteError as e:
        print(f"compare: write error: {e}", file=sys.stderr)
        return EXIT_WRITE_ERROR
    except Exception:  # a bug here must not read as a verdict (Python's own exit code 1 is "slower")
        traceback.print_exc()
        print("compare: internal error (a bug in compare.py, not a verdict)", file=sys.stderr)
        return EXIT_INTERNAL_ERROR


if __name__ == "__main__":
    sys.exit(main())
