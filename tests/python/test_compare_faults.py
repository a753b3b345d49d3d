"""The regression gate against the changes that once passed every test (issue 39): each part of the comparability
fingerprint, 0-second samples, the bootstrap term of the interval; and its exit codes where they collided: an
unwritable --json/--markdown, no numpy, gpu-ci's --out without a value, --append of the same files twice, a reused
output folder mixing commits."""
import os
import shutil
import subprocess

import numpy as np
import pytest

from test_compare import ROOT, cli, stages_result, write_set
import compare


@pytest.mark.parametrize("where, key, value", [
    ("gpu", "sm_clock_khz", 1755000), ("build", "cxx_flags", "-O2"), ("build", "cuda_flags", "-O3 -lineinfo"),
    ("build", "cuda_architectures", "80"), ("build", "build_type", "Debug")])
def test_every_part_of_the_fingerprint_makes_results_not_comparable(where, key, value):
    rng = np.random.default_rng(21)
    base = [stages_result(rng) for _ in range(3)]
    cur = stages_result(rng)
    (cur["machine"]["gpu"] if where == "gpu" else cur["build"])[key] = value
    r = compare.compare(base, [cur])
    assert r["exit_code"] == compare.EXIT_NOT_COMPARABLE and key in r["reason"] and repr(value) in r["reason"]


@pytest.mark.parametrize("bad", [0.0, -1e-6])
def test_a_zero_or_negative_sample_is_an_input_error(tmp_path, bad):
    rng = np.random.default_rng(22)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])
    cur = stages_result(rng)
    cur["rows"][0]["raw_seconds"][3] = bad
    write_set(tmp_path / "cur", [cur])
    r = cli(str(tmp_path / "base"), str(tmp_path / "cur"))
    assert r.returncode == compare.EXIT_INPUT_ERROR and "not a list of positive times" in r.stderr


def test_the_interval_holds_the_sampling_error_not_only_the_run_to_run_noise():
    """A baseline of three identical repetitions (no run-to-run noise: the interval is the bootstrap's alone) and a
    current run 6% slower whose samples scatter by 20%: the interval is far too wide to call it slower."""
    rng = np.random.default_rng(23)
    rep = stages_result(rng)
    rep["rows"][0]["raw_seconds"] = list(1e-4 * np.exp(rng.normal(0, 0.2, 50)))
    cur = stages_result(rng)
    cur["rows"][0]["raw_seconds"] = [x * 1.06 for x in rep["rows"][0]["raw_seconds"]]
    row = compare.compare([rep, rep, rep], [cur])["rows"][0]
    assert row["noise"] == 0 and row["ratio"] == pytest.approx(1.06)
    assert row["sigma"] > 0.02 and row["verdict"] == "ambiguous", row


def base_and_current(tmp_path, seed):
    rng = np.random.default_rng(seed)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])
    write_set(tmp_path / "cur", [stages_result(rng, 1.10)])


def test_an_unwritable_output_prints_the_verdict_then_its_own_code(tmp_path):
    base_and_current(tmp_path, 24)
    for option in ("--json", "--markdown"):
        r = cli(str(tmp_path / "base"), str(tmp_path / "cur"), option, str(tmp_path / "no" / "such" / "out"))
        assert r.returncode == compare.EXIT_WRITE_ERROR == 8, r.stderr
        assert "FAIL: slower" in r.stdout  # the verdict, printed first
        assert f"compare: write error: cannot write {tmp_path / 'no' / 'such' / 'out'}" in r.stderr
        assert "the verdict above stands: slower (exit 1" in r.stderr and "Traceback" not in r.stderr


def test_no_numpy_is_could_not_run_not_ambiguous(tmp_path):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    shutil.copy(os.path.join(ROOT, "scripts", "compare"), scripts / "compare")
    (scripts / "py").write_text("#!/bin/sh\necho 'nsbench: no python3 with PyYAML, matplotlib and numpy found' >&2\n"
                                "exit 2\n")  # what scripts/py says on a machine without them
    (scripts / "py").chmod(0o755)
    r = subprocess.run([str(scripts / "compare"), "a", "b"], capture_output=True, text=True)
    assert r.returncode == compare.EXIT_COULD_NOT_RUN == 7 and "could not run" in r.stderr
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "nonumpy"))
    (tmp_path / "nonumpy").mkdir()
    (tmp_path / "nonumpy" / "numpy.py").write_text("raise ImportError('no numpy here')\n")
    r = subprocess.run(["python3", os.path.join(ROOT, "reports", "compare.py"), "a", "b"], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 7 and "numpy is missing" in r.stderr


@pytest.mark.parametrize("option", ["--out", "--base-ref", "--repetitions", "--cmake"])
def test_gpu_ci_option_without_its_value_is_a_usage_error(option):
    for argv in ([option], [option, "--long"]):
        r = subprocess.run([os.path.join(ROOT, "scripts", "gpu-ci"), *argv], capture_output=True, text=True)
        assert r.returncode == compare.EXIT_USAGE_ERROR and f"gpu-ci: {option} needs a value" in r.stderr


def test_appending_the_same_files_twice_is_refused(tmp_path):
    rng = np.random.default_rng(25)
    write_set(tmp_path / "a", [stages_result(rng) for _ in range(3)])
    write_set(tmp_path / "b", [stages_result(rng) for _ in range(3)])
    bl = str(tmp_path / "bl")
    assert cli("--update-baseline", str(tmp_path / "a"), "--baselines", bl).returncode == 0
    assert cli("--update-baseline", str(tmp_path / "b"), "--append", "--baselines", bl).returncode == 0
    before = sorted(os.listdir(tmp_path / "bl" / "nvidia-h200"))
    r = cli("--update-baseline", str(tmp_path / "b"), "--append", "--baselines", bl)
    assert r.returncode == compare.EXIT_INPUT_ERROR and "in the baseline at" in r.stderr and "twice" in r.stderr
    assert sorted(os.listdir(tmp_path / "bl" / "nvidia-h200")) == before


def test_a_side_mixing_two_commits_is_not_comparable():
    rng = np.random.default_rng(26)
    base = [stages_result(rng) for _ in range(3)]
    cur = [stages_result(rng), stages_result(rng)]
    cur[1]["build"]["git_commit"] = "def"
    r = compare.compare(base, cur)
    assert r["exit_code"] == compare.EXIT_NOT_COMPARABLE and "the current results mix commits abc, def" in r["reason"]
    base[0]["build"]["git_commit"] = "def"  # a baseline of another commit than the current one's is fine
    assert compare.compare(base[:1] + base[:1], [stages_result(rng)])["comparable"]


def test_gpu_ci_moves_an_earlier_run_of_another_build_aside_before_a_study():
    text = open(os.path.join(ROOT, "scripts", "gpu-ci")).read()
    body = text[text.index("\ntake_over() {"):text.index("\n}\n", text.index("\ntake_over() {"))]
    # another build's folder is not resumed into (its results must not be pooled); this build's is (test_gpu_ci.py)
    assert 'if [ "$foreign" = 1 ]; then\n    mv "$dir" "$dir.earlier-' in body
    # and every folder the study fills is taken over before its first repetition, in either mode
    for call, times in (('take_over "$NSB" "$OUT/baseline-run"', 1), ('take_over "$BASE_NSB" "$OUT/base"', 1),
                        ('take_over "$NSB" "$OUT/current"', 2)):
        assert text.count(call) == times, call
