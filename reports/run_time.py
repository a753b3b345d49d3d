"""Where a main job's time went: the runs of run-study's logs for one machine, by study, by the host phases that
nsbench times inside each run (run.phase_seconds: set-up, reference check, validation, ...), and the slowest runs.

    scripts/py reports/run_time.py [--results DIR] [--machine ID] [--top N]

Reads <results>/run-study/<machine>/*.json[.gz] (the logs of the newest log's build: every invocation of that main
job; a run kept from an earlier invocation counts where it ran) and, for the phases, each run's newest result in <results>/<study>/<machine>/. Prints Markdown.
"""
import argparse
import collections
import glob
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import studylib  # noqa: E402


def build_of(log):
    return (log.get("build") or {}).get("git_commit")


def logged_runs(results, machine):
    """[(log path, run record)] of every run that ran (or failed) in the logs of the newest log's build, oldest log
    first: one main job, resumed over several invocations, is one build's; the logs of earlier builds (earlier
    main jobs kept beside it) are left out, or their runs would be counted twice."""
    logs = [(path, common.read_json(path))
            for path in sorted(glob.glob(os.path.join(results, "run-study", machine, "*.json*")))]
    newest = build_of(logs[-1][1]) if logs else None
    return [(path, r) for path, log in logs if build_of(log) == newest
            for r in log.get("runs", []) if r.get("outcome") in ("ran", "failed")]


def phases_of(results, machine, run):
    """{phase: seconds} of the run's newest result, {} for a stage benchmark or a result without phase timers."""
    paths = studylib.result_files(os.path.join(results, run["study"], machine)).get(run["id"])
    if not paths:
        return {}
    phases = (common.read_result(paths[-1]).get("run") or {}).get("phase_seconds") or {}
    return {k: v for k, v in phases.items() if isinstance(v, (int, float))}


def tables(results, machine, top):
    runs = logged_runs(results, machine)
    if not runs:
        raise SystemExit(f"run_time: no run-study log in {results}/run-study/{machine}/")
    total = sum(r["wall_s"] or 0 for _, r in runs)
    by_study, by_phase = collections.Counter(), collections.Counter()
    for _, r in runs:
        by_study[r["study"]] += r["wall_s"] or 0
        for phase, sec in phases_of(results, machine, r).items():
            by_phase[phase] += sec
    logs = sorted({os.path.relpath(p) for p, _ in runs})
    out = [f"{len(runs)} runs on {machine}, {total:.0f} s ({total / 60:.1f} min) of runs, from {', '.join(logs)}", "",
           "| study | seconds | share |", "|---|---|---|"]
    out += [f"| {s} | {sec:.1f} | {100 * sec / total:.0f}% |" for s, sec in by_study.most_common()]
    out += ["", "| phase inside the runs (nsbench's host timers) | seconds |", "|---|---|"]
    out += [f"| {p} | {sec:.1f} |" for p, sec in by_phase.most_common()]
    out += ["", f"| slowest runs | seconds |", "|---|---|"]
    out += [f"| {r['study']}/{r['id']} | {r['wall_s']:.1f} |"
            for _, r in sorted(runs, key=lambda pr: -(pr[1]["wall_s"] or 0))[:top]]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=studylib.LOCAL_RESULTS)
    ap.add_argument("--machine", default=None, help="machine id (default: this machine's)")
    ap.add_argument("--top", type=int, default=15)
    a = ap.parse_args(argv)
    print(tables(a.results, a.machine or studylib.machine_id(), a.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
