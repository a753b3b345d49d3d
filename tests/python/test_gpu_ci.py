"""scripts/gpu-ci's --base-src verdict in one device call, or two: both sides run this tree's regression study, in
turns and as many times each, a second call with the same --out keeps the base build and the repetitions of the same
build (reports/gpu_ci.py), the line that says up front how long it should take, --time-limit's check, and which
verdicts earn a re-run (issues 36, 40, 42, 43)."""
import json
import os
import shutil
import stat
import subprocess

import pytest
import yaml

from test_compare import ROOT
import gpu_ci
import studylib

GPU_CI = os.path.join(ROOT, "scripts", "gpu-ci")


def dry_run(out, *args, env=None):
    e = dict(os.environ, GPU_CI_MODEL="nvidia-h200", **(env or {}))
    r = subprocess.run([GPU_CI, "--dry-run", "--tested", "--out", str(out), *args], capture_output=True, text=True,
                       env=e, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def base_src(tmp_path, commit="2c11884aaaa"):
    src = tmp_path / "base-src"
    src.mkdir(exist_ok=True)
    (src / "SOURCE_COMMIT").write_text(commit + "\n")
    return src


def fake_base_build(out, commit):
    build = out / "base-build"
    build.mkdir(parents=True)
    nsb = build / "nsbench"
    nsb.write_text("#!/bin/sh\nexit 1\n")  # never run: the dry run only looks at it
    nsb.chmod(nsb.stat().st_mode | stat.S_IXUSR)
    (build / "gpu-ci-base-commit").write_text(commit + "\n")


def test_the_base_runs_this_trees_regression_study_in_turns_with_the_current(tmp_path):
    out = dry_run(tmp_path / "out", "--base-src", str(base_src(tmp_path)), "--repetitions", "2")
    studies = [line for line in out.splitlines() if "scripts/run-study regression" in line]
    sides = [("base" if line.startswith(f"NSBENCH={tmp_path}/out/base-build/nsbench ") else
              "current" if line.startswith(f"NSBENCH={ROOT}/build-gpu-ci/nsbench ") else line) for line in studies]
    assert sides == ["base", "current", "base", "current"]  # base 1, current 1, base 2, current 2
    assert [line.endswith(" --again") for line in studies] == [False, False, True, True]
    for line in studies:  # the base's nsbench, never the base tree's study file
        assert f"--studies {ROOT}/studies " in line
    assert f"base build: {tmp_path}/base-src into {tmp_path}/out/base-build" in out
    assert "[base and current in turns: base 2 of 2 repetitions to make, current 2 of 2; one more pair" in out


def test_against_a_recorded_baseline_the_current_runs_once(tmp_path):
    out = dry_run(tmp_path / "out", "--repetitions", "3")
    studies = [line for line in out.splitlines() if "scripts/run-study regression" in line]
    assert len(studies) == 1 and studies[0].startswith(f"NSBENCH={ROOT}/build-gpu-ci/nsbench ")
    assert "[current: 1 of 1 repetition to make; one more if ambiguous]" in out


def test_a_base_build_of_the_same_commit_is_kept_and_another_is_rebuilt(tmp_path):
    src = base_src(tmp_path)
    fake_base_build(tmp_path / "out", "2c11884aaaa")
    out = dry_run(tmp_path / "out", "--base-src", str(src))
    assert f"base build: kept ({tmp_path}/out/base-build, base commit 2c11884aaaa)" in out
    assert "base build" not in out.splitlines()[1]  # not in what the expectation counts
    src_other = base_src(tmp_path, "0123456789")
    out = dry_run(tmp_path / "out", "--base-src", str(src_other))
    assert "base build: kept" not in out and f"{tmp_path}/base-src into" in out
    assert "base build" in out.splitlines()[1]


def test_without_source_commit_the_base_build_is_never_kept(tmp_path):
    src = base_src(tmp_path)
    os.remove(src / "SOURCE_COMMIT")
    fake_base_build(tmp_path / "out", "")
    assert "base build: kept" not in dry_run(tmp_path / "out", "--base-src", str(src))


def result(commit="abc", gpu="NVIDIA H200"):
    return {"schema": "nsbench.stages/2", "timestamp": "2026-11-29T19:00:00Z", "grid": {"nx": 8, "ny": 8, "nz": 8},
            "precision": "float", "rows": [],
            "build": {"git_commit": commit, "git_dirty": False, "compiler": "GNU 12", "cxx_flags": "-O3",
                      "build_type": "Release", "with_cuda": True},
            "machine": {"cpu": {"model": "x"}, "gpu": {"name": gpu, "count": 1, "driver_version": "580"}}}


def write(folder, name, r):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "w") as f:
        json.dump(r, f)


def test_repetitions_count_this_builds_complete_ones_and_name_the_runs_a_broken_one_lacks(tmp_path):
    ids = ["quick-stages-a", "quick-stages-b", "quick-two_gpus"]
    mine = studylib.run_identity(result())
    folder = str(tmp_path / "regression" / "runner")
    assert gpu_ci.repetitions(folder, mine, ids) == (0, False, [])  # nothing yet: all of it to make
    write(folder, "quick-two_gpus.skipped.json", {"reason": "needs 2 GPU(s)"})
    write(folder, "quick-stages-a.json", result())
    assert gpu_ci.repetitions(folder, mine, ids) == (0, False, ["quick-stages-b"])  # the first, broken off
    write(folder, "quick-stages-b.json", result())
    assert gpu_ci.repetitions(folder, mine, ids) == (1, False, [])  # a skipped run counts for none
    write(folder, "quick-stages-b.20261129T190000Z.json", result())
    assert gpu_ci.repetitions(folder, mine, ids) == (1, False, ["quick-stages-a"])
    write(folder, "quick-stages-a.20261129T190100Z.json", result())
    assert gpu_ci.repetitions(folder, mine, ids) == (2, False, [])
    write(folder, "quick-stages-a.20261129T190200Z.json", result(commit="def"))  # another build's
    assert gpu_ci.repetitions(folder, mine, ids) == (2, True, [])
    assert gpu_ci.repetitions(folder, studylib.run_identity(result(gpu="NVIDIA H100")), ids)[:2] == (0, True)


def test_the_regression_studys_run_ids_come_from_this_tree():
    ids = gpu_ci.study_run_ids()
    assert "quick-stages_grid2d-solverstreamvort" in ids and "quick-stages_imle" in ids


def test_the_expectation_adds_each_phase_at_its_median_recorded_time(tmp_path):
    out = str(tmp_path)
    for phase, seconds in [("build", 13), ("base-build", 84), ("study", 70), ("study", 80), ("study", 75),
                           ("compare", 4)]:
        gpu_ci.record(out, phase, seconds)
    line = gpu_ci.expectation(out, "nvidia-h200", ["build", "base-build", "studyx3", "compare"])
    # 13 + 84 + 3 x 75 + 4 = 326 s
    assert line.startswith("gpu-ci: expect about 5m26s (build 13 s, base build 84 s, regression study 3 x 75 s, "
                           "compare 4 s; timed by ")
    assert "not timed" not in line
    line = gpu_ci.expectation(out, "nvidia-h200", ["studyx0", "compare"])
    assert line.startswith("gpu-ci: expect about 0m04s (compare 4 s;")
    os.remove(os.path.join(out, "timings.json"))
    line = gpu_ci.expectation(out, "no-such-gpu", ["build", "studyx2"])
    assert "expect about 0m00s plus the phases not timed by any record" in line
    assert "build, regression study 2 x" in line


def test_fits_and_keep(tmp_path, monkeypatch):
    monkeypatch.setattr(gpu_ci, "ROOT", str(tmp_path / "tree"))
    out = str(tmp_path / "out")
    os.makedirs(out)
    assert gpu_ci.main(["fits", out, "--model", "nvidia-h200", "--seconds-left", "10", "study"]) == 0  # unknown
    for s in range(1, 8):
        gpu_ci.record(out, "study", s * 10)
    assert gpu_ci.main(["fits", out, "--model", "nvidia-h200", "--seconds-left", "40", "study"]) == 0
    assert gpu_ci.main(["fits", out, "--model", "nvidia-h200", "--seconds-left", "39", "study"]) == 1
    path = gpu_ci.keep(out, "nvidia-h200")
    assert path == str(tmp_path / "tree" / "baselines" / "timings" / "nvidia-h200.json")
    kept = json.load(open(path))["phases"]["study"]
    assert kept == [30.0, 40.0, 50.0, 60.0, 70.0]  # the newest KEEP_TIMES
    assert json.load(open(os.path.join(out, "timings", "nvidia-h200.json")))["phases"]["study"] == kept
    os.remove(os.path.join(out, "timings.json"))  # another --out: the committed file answers
    assert gpu_ci.phase_seconds(str(tmp_path / "elsewhere"), "nvidia-h200", "study") == (50.0, path)


@pytest.mark.parametrize("value", ["0", "5m", "-3"])
def test_time_limit_needs_whole_seconds(value, tmp_path):
    r = subprocess.run([GPU_CI, "--time-limit", value, "--out", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 5 and "gpu-ci: --time-limit needs whole seconds" in r.stderr


def test_the_regression_study_keeps_every_solver_and_times_the_planes_on_a_plane():
    study = yaml.safe_load(open(os.path.join(ROOT, "studies", "regression", "regression.yaml")))
    groups = {g["group"]: g for g in study["runs"]}
    solvers = []
    for g in study["runs"]:
        if g["command"] == "stages":
            s = g["args"]["solver"]
            solvers += s if isinstance(s, list) else [s]
    assert sorted(solvers) == sorted(["projection", "poisson", "tridiag", "fracstep", "multiblock", "ogrid",
                                      "streamvort", "wave", "imle"])
    # streamvort's and ogrid's fixture builds its O-grid on the host, once a stage kind and workload (8 of them): at
    # 256^3 (a 256 x 65536 plane) that was about 90 s of the 170 s a repetition took on the H200
    plane = groups["stages_grid2d"]["args"]
    assert sorted(plane["solver"]) == ["ogrid", "streamvort"]
    nx, ny, nz = (int(n) for n in plane["grid"].split("x"))
    assert nz == 1 and nx * ny <= 2 * 1024 * 1024


FAKE_NVIDIA_SMI = """#!/bin/sh
case "$*" in *query-gpu*) echo "NVIDIA H200" ;; *) echo "GPU 0: NVIDIA H200 (UUID: GPU-fake)" ;; esac
"""
# cmake -S SRC -B DIR ... makes DIR; cmake --build DIR ... puts the fake nsbench there and notes the call.
FAKE_CMAKE = """#!/bin/sh
echo "$*" >>"$FAKE_CMAKE_LOG"
if [ "$1" = --build ]; then ln -sf "$FAKE_NSBENCH" "$2/nsbench"; exit 0; fi
while [ $# -gt 0 ]; do [ "$1" = -B ] && mkdir -p "$2"; shift; done
"""


TWO_RUN_STUDY = """study: regression
title: two runs of the fake nsbench
reproduces: nothing
baseline: none
report: regression
runs:
  - group: stages
    command: stages
    gpus: 1
    args: {grid: 16x16x16, precision: float, samples: 12, warmup: 1, solver: [projection, wave]}
"""


def scratch_tree(tmp_path):
    """A folder laid out like the repository (scripts and reports linked; its own regression study and baselines/),
    so that gpu-ci's history and timings land there, with a fake nvidia-smi and cmake first on PATH."""
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    os.symlink(os.path.join(ROOT, "reports"), tree / "reports")
    (tree / "studies" / "regression").mkdir(parents=True)  # a regression study of two quick runs
    (tree / "studies" / "regression" / "regression.yaml").write_text(TWO_RUN_STUDY)
    for name in os.listdir(os.path.join(ROOT, "scripts")):  # all but setup.sh, which has nothing to install here
        if name != "setup.sh":
            os.symlink(os.path.join(ROOT, "scripts", name), tree / "scripts" / name)
    (tree / "scripts" / "setup.sh").write_text("#!/bin/sh\n")
    (tree / "scripts" / "setup.sh").chmod(0o755)
    (tree / "baselines").mkdir()
    shutil.copy(os.path.join(ROOT, "baselines", "variant-aliases.json"), tree / "baselines")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("nvidia-smi", FAKE_NVIDIA_SMI), ("cmake", FAKE_CMAKE)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}",
               FAKE_NSBENCH=os.path.join(ROOT, "tests", "python", "fake_nsbench.py"),
               FAKE_CMAKE_LOG=str(tmp_path / "cmake.log"), GPU_CI_BUILD=str(tmp_path / "build"),
               SLURM_JOB_ID="1", SLURM_GPUS_ON_NODE="1")
    return tree, env


def gpu_ci_call(tree, env, out, *args):
    return subprocess.run([str(tree / "scripts" / "gpu-ci"), "--tested", "--out", str(out), "--repetitions", "2",
                           *args], capture_output=True, text=True, env=env, cwd=str(tree))


def test_a_second_call_keeps_the_base_build_and_resumes_the_repetitions(tmp_path):
    tree, env = scratch_tree(tmp_path)
    src, out = base_src(tmp_path), tmp_path / "out"
    out.mkdir()
    gpu_ci.write_timings(str(out / "timings.json"), {"study": [1000.0]})  # a repetition that cannot fit
    first = gpu_ci_call(tree, env, out, "--base-src", str(src), "--time-limit", "500")
    assert first.returncode == 9, first.stdout + first.stderr
    summary = (out / "summary.md").read_text()
    assert "**gpu-ci: unfinished** (repetition 1 of 2 of the regression study (base) did not fit" in summary
    assert (out / "base-build" / "gpu-ci-base-commit").read_text().strip() == "2c11884aaaa"
    os.remove(out / "timings.json")  # this machine's study is fast after all

    second = gpu_ci_call(tree, env, out, "--base-src", str(src))
    # the fake's stage rows have no raw samples, so the comparison is an input error (4): a comparison all the same
    assert second.returncode == 4, second.stdout + second.stderr
    assert "gate exit code" in (out / "gpu-ci.log").read_text()
    builds = [line for line in (tmp_path / "cmake.log").read_text().splitlines() if line.startswith("--build")]
    assert len([b for b in builds if "base-build" in b]) == 1  # built by the first call only
    assert "base build of 2c11884aaaa kept from an earlier call" in (out / "gpu-ci.log").read_text()
    runner = out / "base" / "regression" / "runner"
    counts = {rid: len(paths) for rid, paths in studylib.result_files(str(runner)).items()}
    assert set(counts.values()) == {2}, counts

    # a third call after a repetition broken off: it makes only the run that lacks its second result
    broken = sorted(studylib.result_files(str(runner))["quick-stages-solverwave"])[-1]
    os.remove(broken)
    third = gpu_ci_call(tree, env, out, "--base-src", str(src))
    assert third.returncode == 4, third.stdout + third.stderr
    assert "base: 1 of 2 repetition(s) kept from an earlier call, the next one resumed" in (out / "gpu-ci.log").read_text()
    counts = {rid: len(paths) for rid, paths in studylib.result_files(str(runner)).items()}
    assert set(counts.values()) == {2}, counts
    # the committed timings hold each timed phase once, though two calls kept them (a broken-off repetition: none)
    committed = json.load(open(tree / "baselines" / "timings" / "nvidia-h200.json"))["phases"]
    mine = json.load(open(out / "timings.json"))
    assert committed["study"] == mine["phases"]["study"][-gpu_ci.KEEP_TIMES:] and len(mine["phases"]["study"]) >= 3
    assert mine["kept"]["study"] == len(mine["phases"]["study"])
    assert len(committed["build"]) == 2 and "base-build" not in committed  # its time went with the first --out's file


# scripts/compare's stand-in: exits with the next of FAKE_COMPARE_EXITS (one a call; the last repeated), notes each
# call.
FAKE_COMPARE = """#!/usr/bin/env python3
import os, sys
log = os.environ["FAKE_COMPARE_LOG"]
calls = open(log).read().splitlines() if os.path.exists(log) else []
with open(log, "a") as f:
    f.write(" ".join(sys.argv[1:]) + "\\n")
codes = os.environ["FAKE_COMPARE_EXITS"].split()
code = int(codes[min(len(calls), len(codes) - 1)])
markdown = sys.argv[sys.argv.index("--markdown") + 1]
with open(markdown, "w") as f:
    f.write(f"**Performance gate: fake verdict {code}**\\n")
sys.exit(code)
"""


def with_fake_compare(tree, env, tmp_path, exits):
    os.remove(tree / "scripts" / "compare")
    (tree / "scripts" / "compare").write_text(FAKE_COMPARE)
    (tree / "scripts" / "compare").chmod(0o755)
    return dict(env, FAKE_COMPARE_LOG=str(tmp_path / "compare.calls"), FAKE_COMPARE_EXITS=exits)


def sides_in_order(out):
    """The side of every result file of both sides in the order they were written, each run of sides shown once:
    ['base', 'current', 'base', 'current'] for two repetitions in turns."""
    written = []
    for side in ("base", "current"):
        for paths in studylib.result_files(str(out / side / "regression" / "runner")).values():
            written += [(os.stat(p).st_mtime_ns, side) for p in paths]
    order = [side for _, side in sorted(written)]
    return [side for k, side in enumerate(order) if k == 0 or order[k - 1] != side]


def repetitions_of(folder):
    counts = {len(paths) for paths in studylib.result_files(str(folder / "regression" / "runner")).values()}
    assert len(counts) == 1, counts  # every run of the study as often
    return counts.pop()


# first verdict -> repetitions each side makes, calls of compare: slower or ambiguous earn one more pair, then the
# verdict
@pytest.mark.parametrize("exits, reps, compares", [("0", 2, 1), ("1 1", 3, 2), ("2 0", 3, 2)])
def test_back_to_back_the_sides_take_turns_and_slower_or_ambiguous_earns_one_more_pair(tmp_path, exits, reps,
                                                                                        compares):
    tree, env = scratch_tree(tmp_path)
    env = with_fake_compare(tree, env, tmp_path, exits)
    out = tmp_path / "out"
    r = gpu_ci_call(tree, env, out, "--base-src", str(base_src(tmp_path)))
    assert r.returncode == int(exits.split()[-1]), r.stdout + r.stderr
    assert repetitions_of(out / "base") == reps and repetitions_of(out / "current") == reps
    assert sides_in_order(out) == ["base", "current"] * reps
    calls = (tmp_path / "compare.calls").read_text().splitlines()
    assert len(calls) == compares
    assert all(c.startswith(f"{out}/base/regression/runner {out}/current/regression/runner ") for c in calls)
    if compares == 2:
        assert f"(first comparison: exit {exits.split()[0]}, **Performance gate: fake verdict" in \
            (out / "summary.md").read_text()


# against a recorded baseline: one current repetition; ambiguous earns a second, slower none
@pytest.mark.parametrize("exits, reps, compares", [("1", 1, 1), ("2 0", 2, 2)])
def test_against_a_baseline_only_ambiguous_earns_a_rerun(tmp_path, exits, reps, compares):
    tree, env = scratch_tree(tmp_path)
    env = with_fake_compare(tree, env, tmp_path, exits)
    (tree / "baselines" / "nvidia-h200").mkdir()
    out = tmp_path / "out"
    r = gpu_ci_call(tree, env, out)
    assert r.returncode == int(exits.split()[-1]), r.stdout + r.stderr
    assert repetitions_of(out / "current") == reps and not (out / "base").exists()
    assert len((tmp_path / "compare.calls").read_text().splitlines()) == compares
