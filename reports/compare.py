"""scripts/compare: is CURRENT slower than BASELINE? One verdict per benchmark and one exit code.

    scripts/compare BASELINE CURRENT [--json OUT] [--markdown OUT] [--force] [--seed N]
    scripts/compare --update-baseline CURRENT [--append] [--baselines baselines]

BASELINE and CURRENT are result files or folders of them (nsbench run / stages JSON, any nesting).
Benchmarks: every stage row of a `stages` result (variant:tuning:scheme at its grid and precision) and
the step time of every `run` result (case, grid, precision, recipe, ranks).

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
low; the 3% floor of the threshold is what keeps such an underestimate from calling 2% slower. The threshold is t = 3 x noise, but at
least 3%: the gate is meant to catch 5% regressions and to let a 2% change pass as noise; a GPU whose
noise is larger raises t, and the table shows t for every benchmark, so a reader sees what could and
could not be detected. A baseline with a single repetition has no measured noise and is refused.

Verdicts: slower (the whole interval above 1 + t), faster (below 1 - t), same (the ratio within
1 +- t), ambiguous (the ratio beyond t but the interval reaching back inside it, or fewer than
--min-samples samples on a side).

Comparability: results whose GPU model, driver, maximum SM clock or build (compiler flags, CUDA
architectures, build type) differ are refused (exit 3) unless --force: a regression gate must not
compare an H100 with an H200, or a debug build with a release one.

Exit code: 0 every benchmark same or faster; 1 at least one confirmed slower; 2 none slower but at
least one ambiguous (scripts/gpu-ci re-runs once before it reports this); 3 not comparable.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import sys

import numpy as np

NOISE_FACTOR = 3.0      # threshold = 3 x the measured run-to-run noise of the medians ...
THRESHOLD_FLOOR = 0.03  # ... but never below 3%: the gate catches 5% regressions and lets 2% pass


def load_paths(path):
    out = []
    for root, _, names in os.walk(path):
        out += [os.path.join(root, n) for n in sorted(names)
                if n.endswith(".json") and not n.endswith((".skipped.json", ".failed.json")) and n != "provenance.json"]
    return out


def load_files(path):
    files = load_paths(path) if os.path.isdir(path) else [path]
    out = []
    for f in files:
        with open(f) as fh:
            try:
                out.append(json.load(fh))
            except json.JSONDecodeError as e:
                raise SystemExit(f"compare: {f} is not JSON ({e})")
    return out


def benchmarks(results):
    """{benchmark name: [list of raw-sample lists, one per repetition]}."""
    out = {}
    for r in results:
        schema = r.get("schema", "")
        if schema == "nsbench.stages/1":
            g = r["grid"]
            grid = f"{g['nx']}x{g['ny']}x{g['nz']}"
            for row in r["rows"]:
                if "raw_seconds" in row:
                    name = f"stage {row['variant']}:{row['tuning']}:{row.get('scheme', 'euler')} {grid} {r['precision']}"
                    out.setdefault(name, []).append(row["raw_seconds"])
        elif schema == "nsbench.run/1":
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


def comparable(base, cur):
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


def compare(base_results, cur_results, min_samples=10, seed=1, force=False):
    why = comparable(base_results, cur_results)
    if why and not force:
        return {"comparable": False, "reason": why, "rows": [], "exit_code": 3}
    base, cur = benchmarks(base_results), benchmarks(cur_results)
    rng = np.random.default_rng(seed)
    rows = []
    for name in sorted(set(base) & set(cur)):
        reps = base[name]
        noise = run_to_run_noise(reps)
        b = [x for r in reps for x in r]
        c = [x for r in cur[name] for x in r]
        row = {"benchmark": name, "baseline_median": statistics.median(b), "current_median": statistics.median(c),
               "ratio": statistics.median(c) / statistics.median(b), "baseline_samples": len(b),
               "current_samples": len(c), "baseline_repetitions": len(reps)}
        if noise is None:
            row.update(verdict="ambiguous", why="the baseline has one repetition: no measured run-to-run noise")
            rows.append(row)
            continue
        t = max(NOISE_FACTOR * noise, THRESHOLD_FLOOR)
        row["noise"], row["threshold"] = noise, t
        if min(len(b), len(c)) < min_samples:
            row.update(verdict="ambiguous", why=f"fewer than {min_samples} samples on a side")
            rows.append(row)
            continue
        # The interval holds both the sampling error (bootstrap) and the run-to-run noise of the pooled
        # repetitions on each side (a re-run of the current build adds one).
        sampling = bootstrap_ratio(b, c, rng)
        between = noise * (1 / len(cur[name]) + 1 / len(reps)) ** 0.5
        sigma = (sampling ** 2 + between ** 2) ** 0.5
        r = row["ratio"]
        lo, hi = r * (1 - 1.96 * sigma), r * (1 + 1.96 * sigma)
        row["ci_low"], row["ci_high"], row["sigma"] = lo, hi, sigma
        if lo > 1 + t:
            row["verdict"] = "slower"
        elif hi < 1 - t:
            row["verdict"] = "faster"
        elif abs(r - 1) <= t:
            row["verdict"] = "same"
        else:
            row["verdict"] = "ambiguous"
            row["why"] = "beyond the threshold, but not by more than the noise"
        rows.append(row)
    only = sorted(set(base) ^ set(cur))
    verdicts = {r["verdict"] for r in rows}
    code = 1 if "slower" in verdicts else 2 if "ambiguous" in verdicts else 0
    return {"comparable": True, "forced": bool(why), "reason": why, "rows": rows, "exit_code": code,
            "not_in_both": only, "method": "ratio of medians; 95% interval from a bootstrap of the raw samples "
            "(2000 resamples) combined with the baseline's run-to-run noise; threshold "
            f"{NOISE_FACTOR:g} x that noise, at least {THRESHOLD_FLOOR:.1%}"}


def markdown(result):
    if not result["comparable"]:
        return f"**Not comparable**: {result['reason']} (use --force to compare anyway)\n"
    counts = {}
    for r in result["rows"]:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    verdict = {0: "PASS", 1: "FAIL: slower", 2: "AMBIGUOUS"}[result["exit_code"]]
    lines = [f"**Performance gate: {verdict}** ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))})", "",
             f"Method: {result['method']}.", ""]
    if result.get("forced"):
        lines += [f"Compared despite: {result['reason']}", ""]
    lines += ["| benchmark | baseline median | current median | ratio | 95% CI | threshold | verdict |",
              "|---|---|---|---|---|---|---|"]
    order = {"slower": 0, "ambiguous": 1, "faster": 2, "same": 3}
    for r in sorted(result["rows"], key=lambda r: (order[r["verdict"]], r["benchmark"])):
        ci = f"{r['ci_low']:.3f} - {r['ci_high']:.3f}" if "ci_low" in r else r.get("why", "-")
        th = f"±{100 * r['threshold']:.1f}%" if "threshold" in r else "-"
        lines.append(f"| {r['benchmark']} | {r['baseline_median'] * 1e6:.2f} us | {r['current_median'] * 1e6:.2f} us | "
                     f"{r['ratio']:.3f} | {ci} | {th} | {r['verdict']} |")
    if result.get("not_in_both"):
        lines += ["", f"In only one of the two sets (not compared): {len(result['not_in_both'])}"]
    return "\n".join(lines) + "\n"


def gpu_model_slug(results):
    for r in results:
        gpu = (r.get("machine") or {}).get("gpu")
        if gpu:
            return "".join(ch if ch.isalnum() else "-" for ch in gpu["name"].lower()).strip("-")
    raise SystemExit("compare: the results name no GPU; a baseline is stored per GPU model")


def update_baseline(current, root, append=False):
    """Keeps CURRENT as the baseline of its GPU model. With append, CURRENT's repetitions join the
    baseline already there (same commit and build, e.g. recorded on another machine allocation), so
    the noise the threshold is built on includes the spread between allocations, not only within one."""
    results = load_files(current)
    dest = os.path.join(root, gpu_model_slug(results)) if results else None
    kept = load_files(dest) if append and dest and os.path.isdir(dest) else []
    if append and not kept:
        raise SystemExit(f"compare: --append needs a baseline to append to; none at {dest}")
    if kept:
        c_old, c_new = kept[0]["build"].get("git_commit"), results[0]["build"].get("git_commit")
        if c_old != c_new:
            raise SystemExit(f"compare: cannot append results of commit {str(c_new)[:10]} to a baseline of commit "
                             f"{str(c_old)[:10]}: record a new baseline instead")
    combined = kept + results
    reps = {len(v) for v in benchmarks(combined).values()}
    if not reps or min(reps) < 2:
        raise SystemExit("compare: a baseline needs at least two repetitions of every benchmark (the run-to-run "
                         "noise sets the threshold); record it with scripts/gpu-ci --record-baseline")
    why = comparable(combined, combined)
    if why:
        raise SystemExit(f"compare: cannot make a baseline of mixed results: {why}")
    prov_path = os.path.join(dest, "provenance.json")
    sessions = []
    if kept:
        with open(prov_path) as f:
            sessions = json.load(f).get("sessions", [])
        tag = datetime.datetime.utcnow().strftime("appended%Y%m%dT%H%M%SZ")
        for path in (load_paths(current) if os.path.isdir(current) else [current]):
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


def main(argv=None):
    ap = argparse.ArgumentParser(prog="compare", description=__doc__.split("\n\n")[0], epilog=__doc__,
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
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    if a.update_baseline:
        if len(a.paths) != 1:
            ap.error("--update-baseline takes one path: the results to keep as the baseline")
        update_baseline(a.paths[0], a.baselines, a.append)
        return 0
    if len(a.paths) != 2:
        ap.error("give BASELINE and CURRENT")
    result = compare(load_files(a.paths[0]), load_files(a.paths[1]), a.min_samples, a.seed, a.force)
    text = markdown(result)
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return result["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
