"""scripts/gpu-ci's bookkeeping: what an --out folder already holds (so that a second call resumes where the first
stopped), what each phase took, and how long the rest should take.

    scripts/py reports/gpu_ci.py repetitions FOLDER --nsbench PATH   (or --identity-of RESULT: a test's stand-in)
    scripts/py reports/gpu_ci.py record OUT PHASE SECONDS
    scripts/py reports/gpu_ci.py expect OUT --model MODEL PHASE[xN]...
    scripts/py reports/gpu_ci.py fits OUT --model MODEL --seconds-left S PHASE
    scripts/py reports/gpu_ci.py keep OUT --model MODEL

repetitions: FOLDER is <results>/regression/runner/ of one side (base or current). It prints one line for the shell,
`DONE FOREIGN MISSING`: DONE the complete repetitions of the regression study that this nsbench made there (every run
of the current tree's study that is not recorded as skipped has DONE results of this build, as run-study's own
identity check tells: the same commit, flags and GPU), FOREIGN 1 when a result there is another build's (gpu-ci moves
the folder aside then: a base commit's repetitions must not be pooled with another's), and MISSING the comma-separated
run ids that still lack repetition DONE + 1 where that repetition was begun and broken off (it resumes with only
those), else `-` (the whole next repetition is to make).

record: adds SECONDS to PHASE in OUT/timings.json (gpu-ci times its phases: build, base-build, study (one repetition
of the regression study, either side), compare).

expect: the line gpu-ci prints before it starts: each PHASE (PHASExN: N times) at the median of its recorded times,
first OUT/timings.json (this call's and an earlier call's with the same --out, on this machine), else
baselines/timings/<model>.json (kept by `keep`, committed like baselines/history/); a phase neither records is named as
not timed, never counted as zero silently. fits: exit 0 when PHASE's expected time fits in S seconds (or is not known:
it is started then), 1 when it does not (gpu-ci then stops and says to run it again with the same --out).

keep: a finished gpu-ci adds OUT/timings.json to baselines/timings/<model>.json (the newest KEEP_TIMES of each phase)
and copies that file to OUT/timings/, for a runner whose tree does not come back.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import studylib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDY = os.path.join(ROOT, "studies", "regression", "regression.yaml")
MODE = "quick"  # gpu-ci runs the regression study in run-study's default form
KEEP_TIMES = 5  # per phase in baselines/timings/<model>.json: recent machines and code, not all history
PHASE_NAMES = {"build": "build", "base-build": "base build", "study": "regression study", "compare": "compare"}


def study_run_ids(study_path=STUDY):
    """The run ids of the regression study as the current tree defines it (both sides run these)."""
    return [r["id"] for r in studylib.expand(studylib.load_study(study_path), MODE)]


def repetitions(folder, identity, run_ids):
    """(complete repetitions by the build of `identity`, another build's result present?, the run ids still lacking
    the next repetition where it was begun, else []) in a results/regression/<machine>/ folder."""
    files = studylib.result_files(folder)
    foreign, counts = False, {}
    for rid in run_ids:
        mine = 0
        for path in files.get(rid, []):
            try:
                earlier = studylib.run_identity(common.read_result(path))
            except common.ResultFileError:
                continue  # a broken file is no repetition; run-study makes the run again
            if studylib.identity_differences(earlier, identity):
                foreign = True
            else:
                mine += 1
        skipped = os.path.exists(os.path.join(folder, f"{rid}.skipped.json"))
        if mine or not skipped:
            counts[rid] = mine
    done = min(counts.values()) if counts else 0
    if not any(n > done for n in counts.values()):
        return done, foreign, []  # repetition done + 1 not begun: all of it is to make
    return done, foreign, [rid for rid, n in counts.items() if n == done]


def read_timings(path, key="phases"):
    try:
        with open(path) as f:
            return json.load(f).get(key, {})
    except (OSError, ValueError):
        return {}


def write_timings(path, phases, kept=None):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    record = {"note": "seconds of each phase of scripts/gpu-ci (reports/gpu_ci.py)", "phases": phases}
    if kept is not None:  # OUT/timings.json: how many of each phase's times are already in the committed file
        record["kept"] = kept
    with open(path + ".tmp", "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def record(out, phase, seconds):
    path = os.path.join(out, "timings.json")
    phases = read_timings(path)
    phases.setdefault(phase, []).append(round(float(seconds), 1))
    write_timings(path, phases, read_timings(path, "kept"))


def committed_timings(model):
    return os.path.join(ROOT, "baselines", "timings", f"{model}.json")


def keep(out, model):
    """Adds this run's phase times to the committed file of its GPU model (the newest KEEP_TIMES a phase)."""
    path, mine = committed_timings(model), os.path.join(out, "timings.json")
    phases, kept = read_timings(path), read_timings(mine, "kept")
    ours = read_timings(mine)
    for phase, times in ours.items():  # only the times no earlier call with this --out kept
        phases[phase] = (phases.get(phase, []) + times[kept.get(phase, 0):])[-KEEP_TIMES:]
    write_timings(path, phases)
    write_timings(mine, ours, {phase: len(times) for phase, times in ours.items()})
    write_timings(os.path.join(out, "timings", f"{model}.json"), phases)
    return path


def timing_sources(out, model):
    return [os.path.join(out, "timings.json"), committed_timings(model)]


def phase_seconds(out, model, phase):
    """(median recorded seconds of PHASE, the file it comes from), or (None, None)."""
    for path in timing_sources(out, model):
        times = read_timings(path).get(phase)
        if times:
            return statistics.median(times), path
    return None, None


def parse_phase(text):
    name, _, times = text.partition("x")
    if name not in PHASE_NAMES or (times and not times.isdigit()):
        raise SystemExit(f"gpu_ci: bad phase {text!r} (one of {', '.join(PHASE_NAMES)}, optionally xN)")
    return name, int(times or 1)


def expectation(out, model, phases):
    """The line gpu-ci prints before it starts: the expected total and what each part rests on."""
    parts, untimed, total, sources = [], [], 0.0, set()
    for name, times in (parse_phase(p) for p in phases):
        if times == 0:
            continue
        seconds, source = phase_seconds(out, model, name)
        label = PHASE_NAMES[name] + (f" {times} x" if times > 1 else "")
        if seconds is None:
            untimed.append(label)
            continue
        total += times * seconds
        sources.add(os.path.relpath(source, ROOT) if source.startswith(ROOT + os.sep) else source)
        parts.append(f"{label} {seconds:.0f} s")
    line = f"gpu-ci: expect about {int(total) // 60}m{int(total) % 60:02d}s"
    line += f" ({', '.join(parts)}; timed by {', '.join(sorted(sources))})" if parts else ""
    if untimed:
        line += (f"{' plus' if parts else ' plus the phases'} not timed by any record (this --out's timings.json, "
                 f"{os.path.relpath(committed_timings(model), ROOT)}): {', '.join(untimed)}")
    return line


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    reps = sub.add_parser("repetitions")
    reps.add_argument("folder")
    who = reps.add_mutually_exclusive_group(required=True)
    who.add_argument("--nsbench")
    who.add_argument("--identity-of", help="a result file whose build and machine stand for this nsbench's")
    reps.add_argument("--study", default=STUDY)
    rec = sub.add_parser("record")
    rec.add_argument("out"), rec.add_argument("phase", choices=sorted(PHASE_NAMES)), rec.add_argument("seconds", type=float)
    exp = sub.add_parser("expect")
    exp.add_argument("out"), exp.add_argument("--model", required=True), exp.add_argument("phases", nargs="+")
    fit = sub.add_parser("fits")
    fit.add_argument("out"), fit.add_argument("--model", required=True)
    fit.add_argument("--seconds-left", type=float, required=True), fit.add_argument("phase")
    kp = sub.add_parser("keep")
    kp.add_argument("out"), kp.add_argument("--model", required=True)
    a = ap.parse_args(argv)
    if a.command == "repetitions":
        if a.nsbench:
            import run_study  # its probe of the build is the one run-study keeps earlier results by
            identity, why = run_study.this_build(a.nsbench)
            if identity is None:
                raise SystemExit(f"gpu_ci: cannot tell which build {a.nsbench} is: {why}")
        else:
            identity = studylib.run_identity(common.read_result(a.identity_of))
        done, foreign, missing = repetitions(a.folder, identity, study_run_ids(a.study))
        print(done, int(foreign), ",".join(missing) or "-")
    elif a.command == "record":
        record(a.out, a.phase, a.seconds)
    elif a.command == "expect":
        print(expectation(a.out, a.model, a.phases))
    elif a.command == "keep":
        print(f"timings: {keep(a.out, a.model)} updated")
    else:
        seconds, _ = phase_seconds(a.out, a.model, parse_phase(a.phase)[0])
        return 0 if seconds is None or seconds <= a.seconds_left else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
