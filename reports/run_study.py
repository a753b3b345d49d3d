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
outcome, wall time and expected time) in <results>/run-study/<machine-id>/<UTC time>-<mode>.json. While it runs, the
"about ... left" of each progress line is the runs still to make at their expected times, scaled by how the runs made
so far compared with theirs.

One run-study at a time per study and results folder: it holds <results>/run-study/<machine-id>/<study>.lock, and a
second one refuses, naming the first's pid. A run past --timeout seconds (default: the study's timeout_s, else none)
is stopped and recorded as failed. MPI runs of more ranks than the machine has CPU cores (--mpi-slots) are skipped
with the reason. A finished run whose result cannot be stored (a full disk) stops the runner with the reason; its
complete result stays as <run-id>.json.tmp, and the next run-study stores it instead of running it again. Ctrl-C stops
the runner in one line; the results finished before it are kept.

A run that nsbench declines with exit 4 (this machine has no tuned recipe for it) is recorded as skipped with nsbench's
reason. Exit codes: 0 every run ran (or was kept or skipped) and passed its reference check; 1 a run failed (nsbench's exit
3, a blow-up; any exit but 0, 2 and 4; a timeout), failed its reference check (nsbench's exit 2: the result is kept and
says FAIL) or could not be stored, or another run-study holds the study; 2 bad options; 130 Ctrl-C.
"""
import collections
import argparse
import datetime
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import machines  # noqa: E402
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


def write_json(path, obj, replace=True):
    """Writes `obj` to `path` whole or not at all (a hidden .partial-PID file, then moved into place; a failed write
    removes it, so a full disk keeps no half file). replace=False never replaces a file: FileExistsError where
    `path` exists (a result is never overwritten, even by a run-study that lost a race)."""
    tmp = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.partial-{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            json.dump(obj, f, separators=(",", ":"))  # one line, as nsbench writes them: committed results stay small
            f.write("\n")
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


class StoreError(Exception):
    """A finished run's result that could not be stored (a full disk, a read-only folder): the message names the
    file, the reason and where the run's complete result stays."""


def lock_studies(results_root, machine, studies):
    """Takes <results>/run-study/<machine>/<study>.lock (an flock, freed when this process ends however it ends) for
    every chosen study, so that two run-study processes on one results folder never run a study at once (each would
    run every run and write over the other's .json.tmp); refuses, naming the holder's pid, when one is taken. Returns
    the open lock files, to be kept open while the runs go on."""
    folder = os.path.join(results_root, "run-study", machine)
    os.makedirs(folder, exist_ok=True)
    held = []
    for name in sorted({s["study"] for s in studies}):
        path = os.path.join(folder, name + ".lock")
        f = open(path, "a+")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            holder = f.read().strip() or "?"
            raise SystemExit(f"run-study: another run-study (pid {holder}) holds {path}: it is running {name} into "
                             f"{results_root}/; wait until it ends (or stop it), then run this again")
        f.seek(0)
        f.truncate()
        f.write(f"{os.getpid()}\n")
        f.flush()
        held.append(f)
    return held


def study_record(study, run, argv, mode, machine, wall_s):
    """The `study` section run-study adds to each result: which run of which study made it, and its wall time."""
    return {"study": study["study"], "run_id": run["id"], "group": run["group"], "mode": mode, "params": run["params"],
            "machine_id": machine, "command": " ".join(argv), "wall_s": wall_s}


def store_result(tmp, final, record):
    """Adds the study record to nsbench's result `tmp` and stores it as `final` (or, where `final` appeared, as
    <id>.<UTC time>.json beside it); returns (result, path). StoreError where it cannot, `tmp` left in place."""
    with open(tmp) as f:
        result = json.load(f)
    result["study"] = record
    if os.path.exists(final):
        final = stamped(os.path.dirname(final), record["run_id"])
    try:
        write_json(final, result, replace=False)
    except OSError as e:
        raise StoreError(f"cannot store the result of {record['run_id']} as {final}: {e.strerror or e}; the run's "
                         f"complete result stays in {tmp}, and the next run-study stores it without running it again")
    os.remove(tmp)
    return result, final


def stamped(folder, rid):
    """<folder>/<id>.<UTC time>.json: a new result beside an older one of the same run."""
    return os.path.join(folder, f"{rid}.{utc_stamp()}.json")


def store_pending(folder, study, run, mode, machine, nsbench):
    """Stores the complete results an earlier run-study left as <id>[.<stamp>].json.tmp (nsbench writes its --json
    whole or not at all, so one that reads is complete: a run that finished but could not be stored, say on a full
    disk), so that they are kept and not run again. Their wall time is unknown (wall_s null)."""
    if not os.path.isdir(folder):
        return
    pattern = re.compile(re.escape(run["id"]) + r"(\.[0-9]{8}T[0-9]{6}Z)?\.json\.tmp$")
    for name in sorted(f for f in os.listdir(folder) if pattern.match(f)):
        tmp = os.path.join(folder, name)
        try:
            common.read_result(tmp)
        except common.ResultFileError as e:
            print(f"run-study: {tmp} is not a complete result ({e.reason}); left as it is", flush=True)
            continue
        argv = studylib.command_line(run, nsbench, tmp)
        record = dict(study_record(study, run, argv, mode, machine, None), stored_later=True)
        _, path = store_result(tmp, tmp[:-len(".tmp")], record)
        print(f"run-study: stored {tmp} as {path}: a complete result an earlier run-study could not store "
              f"(its wall time is unknown)", flush=True)


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


# nsbench's exit 4: this machine lacks what the run needs, found only once nsbench looks (a tuned recipe for the run's
# GPU, driver and grid class: harness/tune_cache.hpp); nothing ran, so the run is a skip with nsbench's reason.
NOT_RUN_HERE = 4


def not_run_reason(output):
    """nsbench's reason for exit 4, from its 'not run:' to the end (the command that would make the run possible)."""
    text = output[output.rfind("not run:") + len("not run:"):] if "not run:" in output else output
    return " ".join(text.split())[:400]


def record_skip(study, run, folder, argv, reason, counts, log, head):
    counts["skipped"] += 1
    write_json(os.path.join(folder, run["id"] + ".skipped.json"),
               {"id": run["id"], "reason": reason, "command": " ".join(argv), "when": time.time()})
    log.add(study, run, "skipped", 0.0)
    print(f"{head}: SKIPPED, {reason}", flush=True)


def skip_reason(run, gpus, known, mpi_slots):
    if run["gpus"] > gpus:
        return (f"needs {run['gpus']} GPU(s), this machine has {gpus}" if gpus else
                f"needs {run['gpus']} GPU(s); this machine has none usable (CPU-only: GPU rows skipped)")
    if run["mpi_ranks"] and known is not None and not known.get("with_mpi"):
        return "needs the MPI driver; this nsbench was built without MPI"
    if run["mpi_ranks"] > mpi_slots:
        return (f"needs {run['mpi_ranks']} MPI processes, one a CPU core; this machine has {mpi_slots} "
                f"(mpirun refuses more processes than slots; --mpi-slots N to try anyway)")
    return None


def cpu_cores():
    """The CPU cores this process may use: mpirun's slots on this machine."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def failure_line(output):
    """The line that says why a command failed: its last line, or, where the output ends in a message boxed by
    lines of dashes (as mpirun writes them: "There are not enough slots available ..."), the box's first paragraph,
    not its line of dashes."""
    lines = [line.rstrip() for line in output.strip().splitlines()]
    dashes = [i for i, line in enumerate(lines) if re.fullmatch(r"\s*[-=*]{5,}\s*", line)]
    if len(dashes) >= 2 and dashes[-1] == len(lines) - 1:
        box = lines[dashes[-2] + 1:dashes[-1]]
        first = []
        for line in box:
            if not line.strip() and first:
                break
            if line.strip():
                first.append(line.strip())
        return " ".join(first)[:400]
    return lines[-1].strip() if lines else ""


def run_command(argv, env, timeout_s):
    """Runs one command in a session of its own; (exit code, output, seconds). A command past timeout_s is stopped
    (its whole process group: mpirun and its ranks) and its exit code is None. On Ctrl-C the command is stopped
    too, and the KeyboardInterrupt goes on up."""
    start = time.time()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        out, code = stop(proc, signal.SIGTERM), None
    except KeyboardInterrupt:
        stop(proc, signal.SIGINT)
        raise
    return code, out, round(time.time() - start, 2)


def stop(proc, sig):
    """Stops a command's process group with `sig`, then SIGKILL after 10 s; returns what it printed."""
    for s in (sig, signal.SIGKILL):
        try:
            os.killpg(proc.pid, s)
        except ProcessLookupError:
            break
        try:
            return proc.communicate(timeout=10)[0] or ""
        except subprocess.TimeoutExpired:
            continue
    return proc.communicate()[0] or ""


def run_one(study, run, argv, final, mode, machine, timeout_s, machine_env=None):
    """Runs one nsbench command; returns (result, None, seconds) or (None, failure record, seconds). Both record the
    command's wall time (process start to exit: set-up, checks and writing included), so that a user can see
    where a study's time goes before choosing what to run. A result is stored when nsbench exits 0 or 2 (its
    reference check failed: the result says so); any other exit (3: the run blew up), a timeout or no result file
    is a failure. StoreError where a finished run's result cannot be stored."""
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
    env.update(machine_env or {})
    if run["mpi_ranks"]:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    tmp = final + ".tmp"  # nsbench writes it whole or not at all, and never over a file
    code, output, wall_s = run_command(argv, env, timeout_s)
    if code not in (0, 2) or not os.path.exists(tmp):
        if os.path.exists(tmp):
            os.remove(tmp)  # the result of a run that failed (a blow-up writes one): recorded as the failure instead
        if code is None:
            output += f"\nrun-study: timed out: stopped after {timeout_s:g} s (--timeout, or the study's timeout_s)"
        return None, {"id": run["id"], "command": " ".join(argv), "exit_code": "timeout" if code is None else code,
                      "wall_s": wall_s, "output_tail": output[-3000:]}, wall_s
    result, _ = store_result(tmp, final, study_record(study, run, argv, mode, machine, wall_s))
    return result, None, wall_s


def expectation(plan, verdicts, estimates, gpus, known, mpi_slots):
    """({study: expected seconds}, one line saying how long the runs should take and what that rests on): the runs
    to skip here and the runs kept from earlier count zero."""
    per_study, sources, skipping, keeping = {}, collections.Counter(), 0, 0
    for (s, r), (earlier, _), (seconds, source) in zip(plan, verdicts, estimates):
        if earlier is not None:
            keeping += 1
        elif skip_reason(r, gpus, known, mpi_slots):
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


def time_left(todo, done):
    """Seconds the runs still to do should take: their expected times (committed wall times), scaled by how the runs
    done so far compare with theirs (this machine may be faster or slower than the reference); `todo` expected
    seconds, `done` (expected, actual) pairs."""
    expected_done = sum(e for e, _ in done)
    scale = sum(a for _, a in done) / expected_done if expected_done > 0 else 1.0
    return sum(todo) * scale


def run_plan(plan, verdicts, estimates, a, machine, gpus, known, log, counts):
    """Runs (or, with --dry-run, prints) every run of the plan in order, with progress lines; fills the counts
    {ran, failed, skipped, kept: [results kept from earlier], check_failed: [run ids]} as it goes (so that an
    interrupted plan's counts hold what finished)."""
    to_run = [earlier is None and not skip_reason(r, gpus, known, a.mpi_slots)
              for (s, r), (earlier, _) in zip(plan, verdicts)]
    done = []  # (expected, actual seconds) of the runs made
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
            final = stamped(folder, r["id"])
        reason = skip_reason(r, gpus, known, a.mpi_slots)
        argv = studylib.command_line(r, a.nsbench, final + ".tmp", a.launcher)
        if a.dry_run:
            print(f"{head}: {'SKIP (' + reason + ')' if reason else ' '.join(argv)}")
            continue
        os.makedirs(folder, exist_ok=True)
        if reason:
            record_skip(s, r, folder, argv, reason, counts, log, head)
            continue
        todo = [e for (e, _), run_it in zip(estimates[i - 1:], to_run[i - 1:]) if run_it]
        eta = f", about {fmt_time(time_left(todo, done))} left" if done or sum(todo) else ""
        print(f"{head}: running ({fmt_time(log.elapsed())} elapsed{eta})"
              + (f"; {rerun_why}, its file stays beside" if rerun_why else ""), flush=True)
        timeout_s = a.timeout or s.get("timeout_s")
        result, failure, seconds = run_one(s, r, argv, final, a.mode, machine, timeout_s, a.machine_env)
        done.append((expect_s, seconds))
        if failure and failure["exit_code"] == NOT_RUN_HERE:
            record_skip(s, r, folder, argv, not_run_reason(failure["output_tail"]), counts, log, head)
            continue
        if failure:
            counts["failed"] += 1
            log.add(s, r, "failed", expect_s, seconds)
            write_json(os.path.join(folder, r["id"] + ".failed.json"), failure)
            print(f"{head}: FAILED (exit {failure['exit_code']}): {failure_line(failure['output_tail'])}", flush=True)
            continue
        stale = os.path.join(folder, r["id"] + ".failed.json")
        if os.path.exists(stale):
            os.remove(stale)
        counts["ran"] += 1
        ref = result.get("checks", {}).get("reference", {})
        check = ("PASS" if ref.get("pass") else "FAIL") if ref.get("performed") else None
        if check == "FAIL":
            counts["check_failed"].append(f"{s['study']} {r['id']}")
        log.add(s, r, "ran", expect_s, seconds, check)
        step = result.get("timing", {}).get("step", {}).get("median")
        print(f"{head}: {seconds:.1f} s" + (f", {common.fmt(step * 1e3, 4)} ms/step" if step else "")
              + (f", check {check}" if check else ""), flush=True)
    return counts


def positive_seconds(text):
    try:
        v = float(text)
    except ValueError:
        v = 0
    if v <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive number of seconds")
    return v


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
    ap.add_argument("--gpus", type=int, default=None,
                    help="GPUs to assume (default: the SLURM job's, else the machine file's, else what the CUDA driver "
                         "shows this process: CUDA_VISIBLE_DEVICES honoured)")
    ap.add_argument("--machine-file", default=None,
                    help="a machine file (scripts/machines/<name>.yaml, or its name: slurm-srun, local-mpirun, "
                         "mpich-mpiexec): the launcher of the MPI runs, GPUs a node, nodes and environment")
    ap.add_argument("--emit-batch", metavar="FILE", default=None,
                    help="with --machine-file: write an sbatch script to FILE that runs this study's multi-GPU "
                         "groups inside an allocation large enough for the largest, then stop (submit it with sbatch)")
    ap.add_argument("--groups", default=None,
                    help="run only these groups of the study, comma-separated (e.g. mg_settings,solve_double); "
                         "the others' results are left as they are")
    ap.add_argument("--match", default=None,
                    help="run only the runs whose id holds one of these texts, comma-separated (e.g. ranks3: the runs "
                         "a study gained, without redoing the others; --dry-run lists the ids)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--timeout", type=positive_seconds, default=None,
                    help="stop a run after this many seconds and record it as failed (default: the study's "
                         "timeout_s, else none)")
    ap.add_argument("--mpi-slots", type=int, default=int(os.environ.get("NSB_MPI_SLOTS") or cpu_cores()),
                    help="MPI processes this machine runs at once (default: its CPU cores, or $NSB_MPI_SLOTS); an MPI "
                         "run of more ranks is skipped with the reason")
    again = ap.add_mutually_exclusive_group()
    again.add_argument("--again", action="store_true", help="run even where a result exists (kept beside it)")
    again.add_argument("--fresh", action="store_true",
                       help="start over: move this machine's earlier results of these studies to <results>/aside/<time>/")
    a = ap.parse_args(argv)
    a.mode = a.mode or "quick"
    if a.machine_id is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", a.machine_id):
        ap.error(f"bad --machine-id {a.machine_id!r}: letters, digits, _, - and . (it names a folder)")
    return a


def choose_runs(studies, a):
    """The plan: (study, run) of every run of the chosen studies in this form, narrowed by --groups and --match."""
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
    return plan


def main(argv=None):
    a = parse_args(argv)
    known = None if a.dry_run and not os.path.exists(a.nsbench) else known_names(a.nsbench)
    paths = studylib.find_studies(a.studies, a.name)
    if not paths:
        names = ", ".join(os.path.basename(p)[:-5] for p in studylib.find_studies(a.studies, "all", reported=True))
        raise SystemExit(f"run-study: no study named '{a.name}' in {a.studies}/ (known: {names})")
    try:
        studies = [studylib.load_study(p, known) for p in paths]
        plan = choose_runs(studies, a)
    except studylib.StudyError as e:
        raise SystemExit(f"run-study: {e}")
    machine_file = load_machine_file(a)
    if a.emit_batch:
        return emit_batch(a, machine_file, plan)
    gpus, gpu_source = machines.allocated_gpus(machine_file)
    _, gpu_name = studylib.gpu_inventory()
    if a.gpus is not None:
        gpus, gpu_source = a.gpus, "--gpus"
    machine = a.machine_id or studylib.machine_id(gpus, gpu_name)
    if known is not None and not known.get("with_cuda"):
        gpus = 0  # a CPU-only build cannot use the GPUs it sees
    if a.dry_run:
        identity = None
        print("run-study: dry run: every command is printed; which earlier results would be kept is not checked")
    else:
        held = lock_studies(a.results, machine, studies)  # noqa: F841 (held open until this process ends)
        identity, unknown_why = this_build(a.nsbench)
        if unknown_why:
            print(f"run-study: cannot tell which build this is, so no earlier result is kept: {unknown_why}", flush=True)
        if a.fresh:
            move_aside(a.results, studies, machine)
        for s, r in plan:
            store_pending(os.path.join(a.results, s["study"], machine), s, r, a.mode, machine, a.nsbench)

    print(f"run-study: {len(plan)} runs in {len(studies)} studies ({a.mode}), machine {machine}, {gpus} GPU(s) "
          f"(from {gpu_source})" + (f", MPI runs through {machine_file['path']}" if machine_file else "")
          + f", results under {a.results}/", flush=True)
    verdicts = [(None, None) if a.again or a.dry_run else
                reuse_verdict(os.path.join(a.results, s["study"], machine), r["id"], identity) for s, r in plan]
    estimates = studylib.estimate_runs(plan, a.reference, machine)
    expected, line = expectation(plan, verdicts, estimates, gpus, known, a.mpi_slots)
    print(line, flush=True)
    log = RunLog(None if a.dry_run else a.results, machine, a.mode, a.name, identity, line)
    counts = {"ran": 0, "failed": 0, "skipped": 0, "kept": [], "check_failed": []}
    run_plan(plan, verdicts, estimates, a, machine, gpus, known, log, counts)
    log.finish(counts)
    return report_end(a, machine, log, counts, expected)


def load_machine_file(a):
    """The --machine-file, checked (None without one); its launcher and environment go to every run (a.launcher,
    a.machine_env)."""
    a.launcher, a.machine_env = None, {}
    if not a.machine_file:
        return None
    try:
        m = machines.load(a.machine_file)
    except machines.MachineFileError as e:
        raise SystemExit(f"run-study: {e}")
    a.launcher, a.machine_env = (lambda ranks: machines.launcher_argv(m, ranks)), m["env"]
    if m["gpus_per_node"]:  # the launcher places ranks over the allocation's nodes, not this node's cores
        a.mpi_slots = max(a.mpi_slots, m["gpus_per_node"] * m["nodes"])
    return m


def emit_batch(a, machine_file, plan):
    """--emit-batch FILE: the sbatch script of the study's multi-GPU groups (runs that need 2 or more GPUs)."""
    if machine_file is None:
        raise SystemExit("run-study: --emit-batch needs --machine-file (the launcher, GPUs a node and nodes come from it)")
    multi = [(s, r) for s, r in plan if max(r["gpus"], r["mpi_ranks"]) > 1]
    if not multi:
        raise SystemExit(f"run-study: {a.name} ({a.mode}) has no run that needs more than one GPU: nothing to batch")
    groups = sorted({r["group"] for _, r in multi})
    ranks = max(max(r["gpus"], r["mpi_ranks"]) for _, r in multi)
    args = [f"--{a.mode}", "--groups", ",".join(groups), "--results", os.path.abspath(a.results)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(a.emit_batch, "w") as f:
        f.write(machines.batch_script(machine_file, a.name, ranks, args, root))
    print(f"run-study: wrote {a.emit_batch}: {len(multi)} runs of {len(groups)} group(s) ({', '.join(groups)}), "
          f"{machines.nodes_for(machine_file, ranks)} node(s) for {ranks} GPUs; submit it with: sbatch {a.emit_batch}")
    return 0


def report_end(a, machine, log, counts, expected):
    """The closing lines (the time by study, what ran, was kept, skipped, failed) and the exit code: 1 where a run
    failed (any exit but 0 and 2: 3 is a blow-up; a timeout) or failed its reference check (nsbench's exit 2)."""
    ran, kept, skipped, failed, bad = (counts[k] for k in ("ran", "kept", "skipped", "failed", "check_failed"))
    if len(log.study_seconds) > 1:
        print("run-study: time by study (expected): " + ", ".join(
            f"{name} {fmt_time(sec)} ({fmt_time(expected.get(name, 0))})"
            for name, sec in sorted(log.study_seconds.items(), key=lambda kv: -kv[1])))
    print(f"run-study: {ran} run" + (f" ({len(bad)} failing its reference check)" if bad else "")
          + f", {len(kept)} kept from earlier{summary_of_kept(kept)}, {skipped} skipped, "
          f"{failed} failed in {fmt_time(log.elapsed())} "
          f"(expected {fmt_time(sum(expected.values()))}); results under {a.results}/<study>/{machine}/"
          + (f"; run log {log.path}" if log.path else ""))
    if bad:
        print(f"run-study: reference check FAILED: {', '.join(bad)}")
    return 1 if failed or bad else 0


def entry(argv=None):
    """main() with the endings a person meets said in one line: Ctrl-C (the results finished before it are kept) and
    a result that cannot be written (a full disk)."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("\nrun-study: interrupted (Ctrl-C): the results finished before it are kept; run the same command "
              "again to go on from there", file=sys.stderr, flush=True)
        return 130
    except StoreError as e:
        print(f"run-study: stopped: {e}", file=sys.stderr, flush=True)
        return 1
    except OSError as e:
        print(f"run-study: stopped: cannot write {e.filename or '?'}: {e.strerror or e}; the results finished before "
              f"are kept", file=sys.stderr, flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(entry())
