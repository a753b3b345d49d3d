"""The regression gate's statistics on synthetic result sets drawn from known distributions.

Realistic noise, on the pessimistic side of what the harness measured on an H200: per-sample scatter
of 1.5% (lognormal; the stage rows of results/roofline/nvidia-h200-x2 have a median coefficient of
variation of 0.37%), a shift of a whole run of 0.3% (two back-to-back 512^3 runs in
results/fig4_8_scaling/nvidia-h200-x2 differ by 0.07%), 50 samples per benchmark, a baseline of 5
repetitions."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "reports"))
import compare  # noqa: E402

CV, RUN_SHIFT, SAMPLES, BASE_REPS = 0.015, 0.003, 50, 5


def stages_result(rng, factor=1.0, n=SAMPLES, gpu="NVIDIA H200", driver=580159, medians=(1e-4,)):
    shift = 1 + rng.normal(0, RUN_SHIFT)
    rows = [{"variant": f"pressure/v{i}", "tuning": "t", "scheme": "euler",
             "raw_seconds": list(m * factor * shift * np.exp(rng.normal(0, CV, n)))} for i, m in enumerate(medians)]
    return {"schema": "nsbench.stages/1", "grid": {"nx": 256, "ny": 256, "nz": 256}, "precision": "float",
            "machine": {"gpu": {"name": gpu, "driver_version": driver, "sm_clock_khz": 1980000}},
            "build": {"cxx_flags": "-O3", "cuda_flags": "-O3", "cuda_architectures": "90", "build_type": "Release",
                      "git_commit": "abc"}, "rows": rows}


def verdicts(factor, trials=100, n=SAMPLES):
    out = []
    for seed in range(trials):
        rng = np.random.default_rng(1000 + seed)
        base = [stages_result(rng) for _ in range(BASE_REPS)]
        cur = [stages_result(rng, factor, n)]
        out.append(compare.compare(base, cur, seed=seed)["rows"][0]["verdict"])
    return out


def test_identical_builds_are_same():
    v = verdicts(1.0)
    assert v.count("same") >= 99, {x: v.count(x) for x in set(v)}


def test_a_five_percent_slowdown_is_slower():
    v = verdicts(1.05)
    assert v.count("slower") >= 95, {x: v.count(x) for x in set(v)}


def test_a_two_percent_change_is_never_slower():
    v = verdicts(1.02)
    assert "slower" not in v, {x: v.count(x) for x in set(v)}
    assert set(v) <= {"same", "ambiguous"}


def test_a_five_percent_speedup_is_faster():
    v = verdicts(0.95)
    assert v.count("faster") >= 95


def test_too_few_samples_is_ambiguous():
    v = verdicts(1.05, trials=10, n=5)
    assert set(v) == {"ambiguous"}


def test_a_baseline_without_repetitions_has_no_noise_and_is_ambiguous():
    rng = np.random.default_rng(1)
    r = compare.compare([stages_result(rng)], [stages_result(rng, 1.3)])
    assert r["rows"][0]["verdict"] == "ambiguous" and "one repetition" in r["rows"][0]["why"]
    assert r["exit_code"] == 2


def test_mismatched_metadata_is_not_comparable():
    rng = np.random.default_rng(2)
    base = [stages_result(rng) for _ in range(3)]
    for cur, what in ((stages_result(rng, gpu="NVIDIA H100 80GB HBM3"), "gpu"),
                      (stages_result(rng, driver=570000), "driver")):
        r = compare.compare(base, [cur])
        assert r["exit_code"] == 3 and not r["comparable"] and what in r["reason"]
        assert compare.compare(base, [cur], force=True)["comparable"]


def test_threshold_follows_the_measured_noise():
    rng = np.random.default_rng(3)
    base = [stages_result(rng) for _ in range(5)]
    noisy = []
    for k in range(5):  # a noisier GPU: 3% run-to-run
        r = stages_result(rng)
        r["rows"][0]["raw_seconds"] = [x * (1 + 0.03 * (k - 2)) for x in r["rows"][0]["raw_seconds"]]
        noisy.append(r)
    quiet_t = compare.compare(base, [stages_result(rng)])["rows"][0]["threshold"]
    noisy_t = compare.compare(noisy, [stages_result(rng)])["rows"][0]["threshold"]
    assert quiet_t == pytest.approx(compare.THRESHOLD_FLOOR)
    assert noisy_t > 0.05  # 3 x the measured noise


def write_set(folder, results):
    os.makedirs(folder, exist_ok=True)
    for i, r in enumerate(results):
        with open(os.path.join(folder, f"r{i}.json"), "w") as f:
            json.dump(r, f)


def cli(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "reports", "compare.py"), *args],
                          capture_output=True, text=True)


def test_exit_codes_and_outputs(tmp_path):
    rng = np.random.default_rng(4)
    meds = (1e-4, 2e-5, 5e-4)
    write_set(tmp_path / "base", [stages_result(rng, medians=meds) for _ in range(5)])
    write_set(tmp_path / "same", [stages_result(rng, medians=meds)])
    write_set(tmp_path / "slow", [stages_result(rng, 1.10, medians=meds)])
    write_set(tmp_path / "other", [stages_result(rng, gpu="NVIDIA H100", medians=meds)])
    write_set(tmp_path / "one", [stages_result(rng, medians=meds)])
    same = cli(str(tmp_path / "base"), str(tmp_path / "same"), "--json", str(tmp_path / "same.json"),
               "--markdown", str(tmp_path / "same.md"))
    assert same.returncode == 0, same.stdout
    assert "Performance gate: PASS" in (tmp_path / "same.md").read_text()
    assert len(json.load(open(tmp_path / "same.json"))["rows"]) == 3
    slow = cli(str(tmp_path / "base"), str(tmp_path / "slow"))
    assert slow.returncode == 1 and "FAIL: slower" in slow.stdout and "| slower |" in slow.stdout
    amb = cli(str(tmp_path / "one"), str(tmp_path / "slow"))
    assert amb.returncode == 2 and "AMBIGUOUS" in amb.stdout
    other = cli(str(tmp_path / "base"), str(tmp_path / "other"))
    assert other.returncode == 3 and "Not comparable" in other.stdout and "H100" in other.stdout


def test_update_baseline_keeps_provenance_and_refuses_single_runs(tmp_path):
    rng = np.random.default_rng(5)
    write_set(tmp_path / "cur", [stages_result(rng) for _ in range(3)])
    r = cli("--update-baseline", str(tmp_path / "cur"), "--baselines", str(tmp_path / "baselines"))
    assert r.returncode == 0, r.stderr
    prov = json.load(open(tmp_path / "baselines" / "nvidia-h200" / "provenance.json"))
    assert prov["repetitions"] == 3 and prov["driver_version"] == 580159 and prov["commit"] == "abc"
    write_set(tmp_path / "single", [stages_result(rng)])
    r = cli("--update-baseline", str(tmp_path / "single"), "--baselines", str(tmp_path / "b2"))
    assert r.returncode != 0 and "at least two repetitions" in r.stderr


def test_append_widens_the_noise_with_another_allocation(tmp_path):
    """Two machine allocations whose medians differ by 4% (seen on H200s for a 43 us kernel): a baseline
    from one allocation calls the other's unchanged run ambiguous or slower; appending the second
    allocation's repetitions makes the noise include that spread, and the same run passes."""
    rng = np.random.default_rng(11)
    first = [stages_result(rng) for _ in range(3)]
    second = [stages_result(rng, 1.04) for _ in range(3)]
    write_set(tmp_path / "a", first)
    write_set(tmp_path / "b", second)
    cur = [stages_result(rng, 1.04)]
    assert compare.compare(first, cur)["rows"][0]["verdict"] in ("slower", "ambiguous")
    assert cli("--update-baseline", str(tmp_path / "a"), "--baselines", str(tmp_path / "bl")).returncode == 0
    r = cli("--update-baseline", str(tmp_path / "b"), "--append", "--baselines", str(tmp_path / "bl"))
    assert r.returncode == 0, r.stderr
    prov = json.load(open(tmp_path / "bl" / "nvidia-h200" / "provenance.json"))
    assert prov["repetitions"] == 6 and len(prov["sessions"]) == 2
    merged = compare.load_files(str(tmp_path / "bl" / "nvidia-h200"))
    assert compare.compare(merged, cur)["rows"][0]["verdict"] == "same"
    # another commit's runs are not mixed into the baseline
    other = [stages_result(rng) for _ in range(2)]
    for o in other:
        o["build"]["git_commit"] = "def"
    write_set(tmp_path / "c", other)
    r = cli("--update-baseline", str(tmp_path / "c"), "--append", "--baselines", str(tmp_path / "bl"))
    assert r.returncode != 0 and "cannot append results of commit def" in r.stderr


def test_gpu_ci_says_when_there_is_no_gpu(tmp_path):
    if subprocess.run(["sh", "-c", "nvidia-smi -L"], capture_output=True).returncode == 0:
        pytest.skip("a GPU is here: scripts/gpu-ci would run for real")
    r = subprocess.run([os.path.join(ROOT, "scripts", "gpu-ci"), "--out", str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 4 and "no GPU here" in r.stderr
    r = subprocess.run([os.path.join(ROOT, "scripts", "gpu-ci"), "--bogus"], capture_output=True, text=True)
    assert r.returncode == 4 and "unknown argument '--bogus'" in r.stderr
