"""scripts/run-study: run the studies in studies/ with nsbench and store every run's result.

    scripts/run-study NAME|all [--quick|--full] [--nsbench PATH] [--results DIR] [--dry-run] [--again] [--fresh]

Your runs are yours: each run's JSON goes to results/local/<study>/<machine-id>/<run-id>.json (git
ignores results/local/). The reference results shipped in the repository (results/<study>/<machine-id>/)
are never read or written unless you pass --results results.

The runner never overwrites a result. A run whose newest result was made by this same build (git
commit, uncommitted-changes flag, compiler and flags) on this same machine (host, CPU, GPU name, count
and PCI bus) is kept and not run again, so an interrupted study resumes where it stopped; the runner
says which commit made it and when. A result made by another build or machine is run again, and the
new result is written as <run-id>.<UTC time>.json beside the old one (the newest counts). --again runs
every run anyway, also kept beside. --fresh first moves this machine's earlier results of the chosen
studies to <results>/aside/<UTC time>/<study>/<machine-id>/ (nothing is deleted) and runs everything.

A result file appears only when its run finished (written under a temporary name, then renamed). Runs
that need more GPUs than this machine has are not started; a <run-id>.skipped.json records why. A
failed run leaves <run-id>.failed.json with the end of its output, and the runner goes on.

Before it starts, the runner says how long it expects the runs to take: each run's wall time as the committed
results (results/<study>/<machine-id>/, study.wall_s) record it for this machine id, else for the closest machine
(the same GPU count, else any); a run that none records counts at the median of its group's (else its study's,
else all the chosen runs') referenced times. Runs to be skipped and runs kept from earlier count zero. At the
end it says how long they took, per study beside the expectation, and leaves a log of the invocation (every run's
outcome, wall time and expected time) in <results>/run-study/<machine-id>/<UTC time>-<mode>.json.
"""
import collections
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import studylib  # noqa: E402


def known_names(nsbench):
    try:
        out = subprocess.run([nsbench, "list", "--json"], capture_output=True, text=True, timeout=60, check=True)
        return json.loads(out.stdout)
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as e:
        raise SystemExit(f"run-study: cannot ask {nsbench} what it knows ({e}); build it first (scripts/build.sh)")


def this_build(nsbench):
    """(identity, None) of the build and machine this nsbench writes into its results, from a one-step run on
    an 8^3 grid on one CPU core (well under a second); (None, why) when that run fails."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "probe.json")
        argv = [nsbench, "run", "--backend", "cpu_serial", "--grid", "8x8x8", "--steps", "1", "--warmup", "0",
                "--quiet", "--json", path]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"{' '.join(argv)} could not run ({e})"
        try:
            return studylib.run_identity(common.read_result(path)), None
        except common.ResultFileError:
            tail = (proc.stdout + proc.stderr).strip()[-300:]
            return None, f"{' '.join(argv)} wrote no result (exit {proc.returncode}) {tail}".strip()


def fmt_time(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def utc_stamp():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def write_json(path, obj):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".partial")
    with open(tmp, "w") as f:
        json.dump(obj, f, separators=(",", ":"))  # one line, as nsbench writes them: committed results stay small
        f.write("\n")
    os.replace(tmp, path)


def move_aside(results_root, studies, machine):
    """--fresh: moves <results>/<study>/<machine>/ of each chosen study to <results>/aside/<UTC time>/<study>/<machine>/."""
    aside = os.path.join(results_root, "aside", utc_stamp())
    for s in studies:
        folder = os.path.join(results_root, s["study"], machine)
        if os.path.isdir(folder):
            target = os.path.join(aside, s["study"], machine)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.move(folder, target)
            print(f"run-study: --fresh: moved {folder} to {target}", flush=True)


def reuse_verdict(folder, rid, identity):
    """(earlier result to keep, None), or (None, why the run is made again), or (None, None): no earlier result."""
    paths = studylib.result_files(folder).get(rid)
    if not paths:
        return None, None
    try:
        earlier = common.read_result(paths[-1])
    except common.ResultFileError as e:
        return None, f"the earlier result is unreadable ({e.reason})"
    if identity is None:
        return None, f"the earlier result ({studylib.describe_run(earlier)}) cannot be matched to this build"
    diff = studylib.identity_differences(studylib.run_identity(earlier), identity)
    if diff:
        return None, f"the earlier result ({studylib.describe_run(earlier)}) is from another build or machine: {'; '.join(diff)}"
    return earlier, None


def skip_reason(run, gpus, known):
    if run["gpus"] > gpus:
        return (f"needs {run['gpus']} GPU(s), this machine has {gpus}" if gpus else
                f"needs {run['gpus']} GPU(s); this machine has none usable (CPU-only: GPU rows skipped)")
    if run["mpi_ranks"] and known is not None and not known.get("with_mpi"):
        return "needs the MPI driver; this nsbench was built without MPI"
    return None


def run_one(study, run, argv, folder, final, mode, machine):
    """Runs one nsbench command; returns (result, None, seconds) or (None, failure record, seconds). Both record the
    command's wall time (process start to exit: set-up, checks and writing included), so that a user can see
    where a study's time goes before choosing what to run."""
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    if run["mpi_ranks"]:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    tmp = final + ".tmp"
    if os.path.exists(tmp):  # left by an interrupted run: ours to replace (nsbench never overwrites a file)
        os.remove(tmp)
    start = time.time()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall_s = round(time.time() - start, 2)
    if proc.returncode not in (0, 2) or not os.path.exists(tmp):
        if os.path.exists(tmp):
            os.remove(tmp)
        return None, {"id": run["id"], "command": " ".join(argv), "exit_code": proc.returncode, "wall_s": wall_s,
                      "output_tail": (proc.stdout + proc.stderr)[-3000:]}, wall_s
    with open(tmp) as f:
        result = json.load(f)
    result["study"] = {"study": study["study"], "run_id": run["id"], "group": run["group"], "mode": mode,
                       "params": run["params"], "machine_id": machine, "command": " ".join(argv),
                       "wall_s": wall_s}
    write_json(final, result)
    os.remove(tmp)
    return result, None, wall_s


def expectation(plan, verdicts, estimates, gpus, known):
    """({study: expected seconds}, one line saying how long the runs should take and what that rests on): the runs
    to skip here and the runs kept from earlier count zero."""
    per_study, sources, skipping, keeping = {}, collections.Counter(), 0, 0
    for (s, r), (earlier, _), (seconds, source) in zip(plan, verdicts, estimates):
        if earlier is not None:
            keeping += 1
        elif skip_reason(r, gpus, known):
            skipping += 1
        else:
            per_study[s["study"]] = per_study.get(s["study"], 0.0) + seconds
            sources[source] += 1
    machines = [(m, n) for m, n in sources.most_common() if m and not m.endswith("median")]
    medians = [(m.split()[0], n) for m, n in sources.most_common() if m and m.endswith("median")]
    how = ([f"counted at the median of their {', '.join(f'{k} {n}' for k, n in medians)}"] if medians else []) + \
          ([f"{sources[None]} at 0 (no reference at all)"] if sources[None] else [])
    line = (f"run-study: expect about {fmt_time(sum(per_study.values()))} of runs: "
            f"{sum(n for _, n in machines)} timed by their committed results"
            + (f" ({', '.join(f'{n} of {m}' for m, n in machines)})" if machines else "")
            + f", {sum(n for _, n in medians) + sources[None]} with none" + (f" ({'; '.join(how)})" if how else "")
            + f"; {skipping} to skip and {keeping} kept from earlier count 0")
    return per_study, line


def summary_of_kept(kept):
    """'commit 03a8eac4bb, ran 2026-11-22T04:37:31Z to 2026-11-22T04:43:21Z' over the results kept from earlier."""
    if not kept:
        return ""
    commits = sorted({str((r.get("build") or {}).get("git_commit", "?"))[:10] for r in kept})
    stamps = sorted(r.get("timestamp", "?") for r in kept)
    return f" (made by this build: commit {', '.join(commits)}, ran {stamps[0]} to {stamps[-1]})"


class RunLog:
    """The runner's own record of one invocation: every run's outcome, wall time and expected time, the time per
    study and in all, written to <results>/run-study/<machine-id>/<UTC time>-<mode>.json after each run (so an
    interrupted invocation leaves its record too). It is what a claim such as "the quick form takes 9 minutes on
    one H200" traces to."""

    def __init__(self, results, machine, mode, name, identity, expectation_line):
        self.t0 = time.time()
        self.path = os.path.join(results, "run-study", machine, f"{utc_stamp()}-{mode}.json") if results else None
        build = {k: (identity or {}).get(k) for k in ("git_commit", "git_dirty")}
        self.record = {"schema": "nsbench.run-study-log/1", "studies": name, "mode": mode, "machine_id": machine,
                       "build": build, "started": utc_stamp(), "expectation": expectation_line, "runs": []}
        self.study_seconds = {}

    def elapsed(self):
        return time.time() - self.t0

    def add(self, study, run, outcome, expected_s, wall_s=None, check=None):
        self.record["runs"].append({"study": study["study"], "id": run["id"], "outcome": outcome,
                                    "expected_s": round(expected_s, 2), "wall_s": wall_s, "check": check})
        if wall_s is not None:
            self.study_seconds[study["study"]] = self.study_seconds.get(study["study"], 0.0) + wall_s
        self.write()

    def finish(self, counts):
        self.record.update(finished=utc_stamp(), counts={k: (len(v) if isinstance(v, list) else v)
                                                          for k, v in counts.items()})
        self.write()

    def write(self):
        if not self.path:
            return
        runs = self.record["runs"]
        self.record.update(elapsed_s=round(self.elapsed(), 1),
                           run_seconds=round(sum(r["wall_s"] or 0 for r in runs), 1),
                           expected_s=round(sum(r["expected_s"] for r in runs if r["outcome"] in ("ran", "failed")), 1),
                           study_seconds={k: round(v, 1) for k, v in sorted(self.study_seconds.items())})
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        write_json(self.path, self.record)


def run_plan(plan, verdicts, estimates, a, machine, gpus, known, log):
    """Runs (or, with --dry-run, prints) every run of the plan in order, with progress lines; returns the counts
    {ran, failed, skipped, kept: [results kept from earlier]}."""
    counts = {"ran": 0, "failed": 0, "skipped": 0, "kept": []}
    durations = []
    for i, ((s, r), (earlier, rerun_why), (expect_s, _)) in enumerate(zip(plan, verdicts, estimates), 1):
        folder = os.path.join(a.results, s["study"], machine)
        final = os.path.join(folder, r["id"] + ".json")
        head = f"[{i}/{len(plan)}] {s['study']} {r['id']}"
        if earlier is not None:
            counts["kept"].append(earlier)
            log.add(s, r, "kept", 0.0)
            print(f"{head}: kept, made earlier by this build ({studylib.describe_run(earlier)})", flush=True)
            continue
        if os.path.exists(final) or os.path.exists(final + ".gz"):  # never overwrite: the new result goes beside
            # the old one (or the committed <id>.json.gz), and is the newest
            final = os.path.join(folder, f"{r['id']}.{utc_stamp()}.json")
        reason = skip_reason(r, gpus, known)
        argv = studylib.command_line(r, a.nsbench, final + ".tmp")
        if a.dry_run:
            print(f"{head}: {'SKIP (' + reason + ')' if reason else ' '.join(argv)}")
            continue
        os.makedirs(folder, exist_ok=True)
        if reason:
            counts["skipped"] += 1
            write_json(os.path.join(folder, r["id"] + ".skipped.json"),
                       {"id": r["id"], "reason": reason, "command": " ".join(argv), "when": time.time()})
            log.add(s, r, "skipped", 0.0)
            print(f"{head}: SKIPPED, {reason}", flush=True)
            continue
        eta = f", about {fmt_time(sum(durations) / len(durations) * (len(plan) - i + 1))} left" if durations else ""
        print(f"{head}: running ({fmt_time(log.elapsed())} elapsed{eta})"
              + (f"; {rerun_why}, its file stays beside" if rerun_why else ""), flush=True)
        result, failure, seconds = run_one(s, r, argv, folder, final, a.mode, machine)
        durations.append(seconds)
        if failure:
            counts["failed"] += 1
            log.add(s, r, "failed", expect_s, seconds)
            write_json(os.path.join(folder, r["id"] + ".failed.json"), failure)
            tail = failure["output_tail"].strip()
            print(f"{head}: FAILED (exit {failure['exit_code']}): {tail.splitlines()[-1] if tail else ''}", flush=True)
            continue
        stale = os.path.join(folder, r["id"] + ".failed.json")
        if os.path.exists(stale):
            os.remove(stale)
        counts["ran"] += 1
        ref = result.get("checks", {}).get("reference", {})
        check = ("PASS" if ref.get("pass") else "FAIL") if ref.get("performed") else None
        log.add(s, r, "ran", expect_s, seconds, check)
        step = result.get("timing", {}).get("step", {}).get("median")
        print(f"{head}: {seconds:.1f} s" + (f", {common.fmt(step * 1e3, 4)} ms/step" if step else "")
              + (f", check {check}" if check else ""), flush=True)
    return counts


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="run-study", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("name", help="a study name (e.g. fig4_5_global_vs_optimal), a paper folder (thibault2009) or all")
    form = ap.add_mutually_exclusive_group()
    form.add_argument("--quick", action="store_const", dest="mode", const="quick",
                      help="the same experiments at smaller cost (default)")
    form.add_argument("--full", action="store_const", dest="mode", const="full",
                      help="the paper's sizes and step counts where feasible")
    ap.add_argument("--nsbench", default=os.environ.get("NSBENCH", "build/nsbench"))
    ap.add_argument("--studies", default="studies")
    ap.add_argument("--results", default=studylib.LOCAL_RESULTS,
                    help=f"results root (default {studylib.LOCAL_RESULTS}: your own runs, ignored by git)")
    ap.add_argument("--reference", default=studylib.SHIPPED_RESULTS,
                    help=f"the committed results whose wall times give the expected duration (default "
                         f"{studylib.SHIPPED_RESULTS})")
    ap.add_argument("--machine-id", default=None, help="results folder name (default: from the GPUs or the CPU)")
    ap.add_argument("--gpus", type=int, default=None, help="GPUs to assume (default: what nvidia-smi sees)")
    ap.add_argument("--groups", default=None,
                    help="run only these groups of the study, comma-separated (e.g. mg_settings,solve_double); "
                         "the others' results are left as they are")
    ap.add_argument("--match", default=None,
                    help="run only the runs whose id holds one of these texts, comma-separated (e.g. ranks3: the runs "
                         "a study gained, without redoing the others; --dry-run lists the ids)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    again = ap.add_mutually_exclusive_group()
    again.add_argument("--again", action="store_true", help="run even where a result exists (kept beside it)")
    again.add_argument("--fresh", action="store_true",
                       help="start over: move this machine's earlier results of these studies to <results>/aside/<time>/")
    a = ap.parse_args(argv)
    a.mode = a.mode or "quick"
    return a


def main(argv=None):
    a = parse_args(argv)
    known = None if a.dry_run and not os.path.exists(a.nsbench) else known_names(a.nsbench)
    paths = studylib.find_studies(a.studies, a.name)
    if not paths:
        raise SystemExit(f"run-study: no study named '{a.name}' in {a.studies}/ "
                         f"(known: {', '.join(os.path.basename(p)[:-5] for p in studylib.find_studies(a.studies, 'all'))})")
    try:
        studies = [studylib.load_study(p, known) for p in paths]
    except studylib.StudyError as e:
        raise SystemExit(f"run-study: {e}")
    gpus, gpu_name = studylib.gpu_inventory()
    if a.gpus is not None:
        gpus = a.gpus
    machine = a.machine_id or studylib.machine_id(gpus, gpu_name)
    if known is not None and not known.get("with_cuda"):
        gpus = 0  # a CPU-only build cannot use the GPUs it sees
    if a.dry_run:
        identity = None
        print("run-study: dry run: every command is printed; which earlier results would be kept is not checked")
    else:
        identity, unknown_why = this_build(a.nsbench)
        if unknown_why:
            print(f"run-study: cannot tell which build this is, so no earlier result is kept: {unknown_why}", flush=True)
    if a.fresh and not a.dry_run:
        move_aside(a.results, studies, machine)

    plan = [(s, r) for s in studies for r in studylib.expand(s, a.mode)]
    if a.groups:
        wanted = set(a.groups.split(","))
        unknown = wanted - {r["group"] for _, r in plan}
        if unknown:
            raise SystemExit(f"run-study: no group {', '.join(sorted(unknown))} in {a.name} ({a.mode}; groups: "
                             f"{', '.join(sorted({r['group'] for _, r in plan}))})")
        plan = [(s, r) for s, r in plan if r["group"] in wanted]
    if a.match:
        texts = [t for t in a.match.split(",") if t]
        plan = [(s, r) for s, r in plan if any(t in r["id"] for t in texts)]
        if not plan:
            raise SystemExit(f"run-study: no run of {a.name} ({a.mode}) has an id holding {' or '.join(texts)} "
                             f"(--dry-run lists the ids)")
    print(f"run-study: {len(plan)} runs in {len(studies)} studies ({a.mode}), machine {machine}, {gpus} GPU(s), "
          f"results under {a.results}/", flush=True)
    verdicts = [(None, None) if a.again or a.dry_run else
                reuse_verdict(os.path.join(a.results, s["study"], machine), r["id"], identity) for s, r in plan]
    estimates = studylib.estimate_runs(plan, a.reference, machine)
    expected, line = expectation(plan, verdicts, estimates, gpus, known)
    print(line, flush=True)
    log = RunLog(None if a.dry_run else a.results, machine, a.mode, a.name, identity, line)
    counts = run_plan(plan, verdicts, estimates, a, machine, gpus, known, log)
    log.finish(counts)
    ran, kept, skipped, failed = counts["ran"], counts["kept"], counts["skipped"], counts["failed"]
    if len(log.study_seconds) > 1:
        print("run-study: time by study (expected): " + ", ".join(
            f"{name} {fmt_time(sec)} ({fmt_time(expected.get(name, 0))})"
            for name, sec in sorted(log.study_seconds.items(), key=lambda kv: -kv[1])))
    print(f"run-study: {ran} run, {len(kept)} kept from earlier{summary_of_kept(kept)}, {skipped} skipped, "
          f"{failed} failed in {fmt_time(log.elapsed())} (expected {fmt_time(sum(expected.values()))}); "
          f"results under {a.results}/<study>/{machine}/" + (f"; run log {log.path}" if log.path else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
