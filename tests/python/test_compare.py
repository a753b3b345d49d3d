"""The regression gate's statistics on synthetic result sets drawn from known distributions.

Realistic noise, on the pessimistic side of what the harness measured on an H200: per-sample scatter
of 1.5% (lognormal; the stage rows of results/roofline/nvidia-h200-x2 have a median coefficient of
variation of 0.37%), a shift of a whole run of 0.3% (two back-to-back 512^3 runs in
results/fig4_8_scaling/nvidia-h200-x2 differ by 0.07%), 50 samples per benchmark, a baseline of 5
repetitions."""
import gzip
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
    assert r.returncode == 7 and "no GPU here" in r.stderr  # could not run: not a verdict
    r = subprocess.run([os.path.join(ROOT, "scripts", "gpu-ci"), "--bogus"], capture_output=True, text=True)
    assert r.returncode == compare.EXIT_USAGE_ERROR and "unknown argument '--bogus'" in r.stderr


# ---------------------------------------------------------------- exit codes mean what they say

def many_medians(n):
    return tuple(1e-5 * (1 + i) for i in range(n))


def noisy_baseline(rng, medians, run_to_run):
    """BASE_REPS repetitions whose medians are spread by about run_to_run (relative standard deviation)."""
    spread = run_to_run / np.std(range(BASE_REPS), ddof=1)
    out = []
    for k in range(BASE_REPS):
        r = stages_result(rng, medians=medians)
        for row in r["rows"]:
            row["raw_seconds"] = [x * (1 + spread * (k - 2)) for x in row["raw_seconds"]]
        out.append(r)
    return out


def test_a_uniform_five_percent_speedup_passes_and_lists_the_faster_rows(tmp_path):
    """Every row 5% faster, on a baseline with about 1% run-to-run noise: the interval of most such rows
    reaches back above 1 - t, which once made them "ambiguous" and the gate exit 2."""
    rng = np.random.default_rng(6)
    meds = many_medians(12)
    write_set(tmp_path / "base", noisy_baseline(rng, meds, run_to_run=0.008))
    write_set(tmp_path / "fast", [stages_result(rng, 0.95, medians=meds)])
    r = cli(str(tmp_path / "base"), str(tmp_path / "fast"), "--json", str(tmp_path / "fast.json"))
    assert r.returncode == compare.EXIT_PASS, r.stdout
    assert "Performance gate: PASS** (12 faster)" in r.stdout
    assert r.stdout.count("| faster |") == 12
    rows = json.load(open(tmp_path / "fast.json"))["rows"]
    assert sum(row["ci_high"] >= 1 - row["threshold"] for row in rows) >= 6


def test_nothing_in_common_is_an_input_error(tmp_path):
    rng = np.random.default_rng(7)
    write_set(tmp_path / "base", [stages_result(rng, medians=many_medians(3)) for _ in range(3)])
    other = stages_result(rng, medians=many_medians(3))
    for row in other["rows"]:
        row["variant"] = row["variant"].replace("pressure/", "momentum/")
    write_set(tmp_path / "other", [other])
    r = cli(str(tmp_path / "base"), str(tmp_path / "other"))
    assert r.returncode == compare.EXIT_INPUT_ERROR, r.stdout + r.stderr
    assert "CURRENT holds 0 of the baseline's 3 benchmarks (0.0%)" in r.stderr


def test_a_current_set_with_few_of_the_baselines_benchmarks_is_an_input_error(tmp_path):
    rng = np.random.default_rng(8)
    meds = many_medians(20)
    write_set(tmp_path / "base", [stages_result(rng, medians=meds) for _ in range(3)])
    write_set(tmp_path / "one", [stages_result(rng, medians=meds[:1])])
    write_set(tmp_path / "most", [stages_result(rng, medians=meds[:19])])
    r = cli(str(tmp_path / "base"), str(tmp_path / "one"))
    assert r.returncode == compare.EXIT_INPUT_ERROR
    assert "holds 1 of the baseline's 20 benchmarks (5.0%); at least 90% are needed (--min-coverage 0.9)" in r.stderr
    assert cli(str(tmp_path / "base"), str(tmp_path / "one"), "--min-coverage", "0.05").returncode == compare.EXIT_PASS
    most = cli(str(tmp_path / "base"), str(tmp_path / "most"))  # 19 of 20: 95% >= 90%
    assert most.returncode == compare.EXIT_PASS and "Compared 19 of the baseline's 20 benchmarks (95.0%)" in most.stdout


def test_a_google_benchmark_json_is_an_input_error(tmp_path):
    rng = np.random.default_rng(9)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])
    gbench = tmp_path / "micro.json"
    gbench.write_text(json.dumps({"context": {"date": "2026-11-22", "num_cpus": 16},
                                  "benchmarks": [{"name": "pressure/x", "real_time": 41.0, "time_unit": "us"}]}))
    r = cli(str(tmp_path / "base"), str(gbench))
    assert r.returncode == compare.EXIT_INPUT_ERROR
    assert str(gbench) in r.stderr and "Google Benchmark JSON" in r.stderr


def write_gzip_set(folder, results):
    os.makedirs(folder, exist_ok=True)
    for i, r in enumerate(results):
        with gzip.open(os.path.join(folder, f"r{i}.json.gz"), "wt") as f:
            json.dump(r, f)


def test_folders_of_json_gz_are_read(tmp_path):
    rng = np.random.default_rng(10)
    meds = many_medians(3)
    write_gzip_set(tmp_path / "base", [stages_result(rng, medians=meds) for _ in range(5)])
    write_gzip_set(tmp_path / "same", [stages_result(rng, medians=meds)])
    write_gzip_set(tmp_path / "slow", [stages_result(rng, 1.10, medians=meds)])
    same = cli(str(tmp_path / "base"), str(tmp_path / "same"))
    assert same.returncode == compare.EXIT_PASS and "Compared 3 of the baseline's 3 benchmarks" in same.stdout
    assert cli(str(tmp_path / "base"), str(tmp_path / "slow")).returncode == compare.EXIT_SLOWER
    # the files a study leaves besides results are not read
    (tmp_path / "same" / "r9.skipped.json.gz").write_bytes(b"not even gzip")
    assert cli(str(tmp_path / "base"), str(tmp_path / "same")).returncode == compare.EXIT_PASS


def test_truncated_or_incomplete_results_are_input_errors_naming_the_file(tmp_path):
    rng = np.random.default_rng(12)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])
    text = json.dumps(stages_result(rng))
    cut = tmp_path / "cut" / "crashed.json"
    cut.parent.mkdir()
    cut.write_text(text[:len(text) // 2])
    r = cli(str(tmp_path / "base"), str(tmp_path / "cut"))
    assert r.returncode == compare.EXIT_INPUT_ERROR and str(cut) in r.stderr and "truncated" in r.stderr
    cut_gz = tmp_path / "cut_gz" / "crashed.json.gz"
    cut_gz.parent.mkdir()
    cut_gz.write_bytes(gzip.compress(text.encode())[:200])
    r = cli(str(tmp_path / "base"), str(cut_gz))
    assert r.returncode == compare.EXIT_INPUT_ERROR and str(cut_gz) in r.stderr
    no_grid = stages_result(rng)
    del no_grid["grid"]
    write_set(tmp_path / "no_grid", [no_grid])
    r = cli(str(tmp_path / "base"), str(tmp_path / "no_grid"))
    assert r.returncode == compare.EXIT_INPUT_ERROR and "r0.json: an incomplete nsbench.stages/1 result" in r.stderr
    empty = stages_result(rng)
    empty["rows"][0]["raw_seconds"] = []
    write_set(tmp_path / "empty", [empty])
    r = cli(str(tmp_path / "base"), str(tmp_path / "empty"))
    assert r.returncode == compare.EXIT_INPUT_ERROR and "not a list of positive times" in r.stderr
    (tmp_path / "nothing").mkdir()
    r = cli(str(tmp_path / "base"), str(tmp_path / "nothing"))
    assert r.returncode == compare.EXIT_INPUT_ERROR and "no result files" in r.stderr


def test_argument_errors_are_usage_errors_not_ambiguous(tmp_path):
    rng = np.random.default_rng(13)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])
    for args in (["--bogus", str(tmp_path / "base"), str(tmp_path / "base")], [str(tmp_path / "base")],
                 [str(tmp_path / "base")] * 2 + ["--min-coverage", "2"]):
        r = cli(*args)
        assert r.returncode == compare.EXIT_USAGE_ERROR, (args, r.stderr)
        assert "usage error" in r.stderr
    assert cli("--help").returncode == 0 and "5  usage error" in cli("--help").stdout


def test_an_internal_error_is_not_a_verdict(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(14)
    write_set(tmp_path / "base", [stages_result(rng) for _ in range(3)])

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")
    monkeypatch.setattr(compare, "compare", broken)
    assert compare.main([str(tmp_path / "base"), str(tmp_path / "base")]) == compare.EXIT_INTERNAL_ERROR
    assert "internal error" in capsys.readouterr().err


def folder_contents(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_update_baseline_refuses_to_write_where_it_reads_and_deletes_nothing(tmp_path):
    rng = np.random.default_rng(15)
    write_set(tmp_path / "run", [stages_result(rng) for _ in range(3)])
    bl = tmp_path / "baselines"
    assert cli("--update-baseline", str(tmp_path / "run"), "--baselines", str(bl)).returncode == 0
    before = folder_contents(bl)
    assert len(before) == 4  # three results and provenance.json
    for source, root in ((bl / "nvidia-h200", bl), (bl, bl), (bl, bl / "nvidia-h200" / "deeper")):
        for extra in ([], ["--append"]):
            r = cli("--update-baseline", str(source), "--baselines", str(root), *extra)
            assert r.returncode == compare.EXIT_USAGE_ERROR and "one holds the other" in r.stderr, r.stderr
            assert folder_contents(bl) == before


def test_two_part_and_three_part_variant_ids_compare():
    assert compare.canonical_variant("pressure/jacobi_global_2d_zloop") == "projection/pressure/jacobi_global_2d_zloop"
    assert compare.canonical_variant("projection/pressure/jacobi_global_2d_zloop") == \
        "projection/pressure/jacobi_global_2d_zloop"
    rng = np.random.default_rng(16)
    old = [stages_result(rng) for _ in range(BASE_REPS)]
    new = stages_result(rng)
    for row in new["rows"]:
        row["variant"] = "projection/" + row["variant"]
    r = compare.compare(old, [new])
    assert [row["benchmark"] for row in r["rows"]] == ["stage projection/pressure/v0:t:euler 256x256x256 float"]
    assert r["rows"][0]["verdict"] == "same" and r["exit_code"] == compare.EXIT_PASS


def test_a_renamed_variant_compares_under_its_name_now(tmp_path):
    """A baseline recorded before a rename names the old variant; the alias table maps it to the new name
    on both sides, so the rows meet (and without the table they do not: nothing in common, exit 4)."""
    rng = np.random.default_rng(17)
    old = [stages_result(rng) for _ in range(BASE_REPS)]  # "pressure/v0": a two-part id, as old results have
    new = stages_result(rng)
    new["rows"][0]["variant"] = "projection/pressure/w0"
    aliases = {"projection/pressure/v0": "projection/pressure/w0"}
    r = compare.compare(old, [new], aliases=aliases)
    assert [row["benchmark"] for row in r["rows"]] == ["stage projection/pressure/w0:t:euler 256x256x256 float"]
    assert r["exit_code"] == compare.EXIT_PASS and r["renamed"] == aliases
    assert "projection/pressure/v0 -> projection/pressure/w0" in compare.markdown(r)

    write_set(tmp_path / "base", old)
    write_set(tmp_path / "cur", [new])
    table = tmp_path / "aliases.json"
    table.write_text(json.dumps({"aliases": {"pressure/v0": "pressure/w0"}}))
    listing = tmp_path / "list.json"  # the same rename as `nsbench list --json` states it
    listing.write_text(json.dumps({"schema": "nsbench.list/2", "variants": [
        {"id": "projection/pressure/w0", "aliases": ["v0"]}, {"id": "projection/pressure/x", "aliases": []}]}))
    for source in (table, listing):
        assert compare.load_aliases(str(source)) == aliases
        c = cli(str(tmp_path / "base"), str(tmp_path / "cur"), "--aliases", str(source))
        assert c.returncode == compare.EXIT_PASS, c.stdout + c.stderr
    empty = tmp_path / "none.json"
    empty.write_text(json.dumps({"aliases": {}}))
    c = cli(str(tmp_path / "base"), str(tmp_path / "cur"), "--aliases", str(empty))
    assert c.returncode == compare.EXIT_INPUT_ERROR and "CURRENT holds 0" in c.stderr, c.stderr
    c = cli(str(tmp_path / "base"), str(tmp_path / "cur"), "--aliases", str(tmp_path / "missing.json"))
    assert c.returncode == compare.EXIT_INPUT_ERROR and "missing.json" in c.stderr, c.stderr


def test_the_committed_alias_table_maps_old_names_to_new_ones():
    """baselines/variant-aliases.json (test_harness checks it against the registry) is what compare reads
    when no --aliases is given."""
    aliases = compare.load_aliases(compare.default_aliases_path())
    assert aliases["projection/momentum/flux_zmarch"] == "projection/momentum/register_zmarch_flux"
    assert all(old.count("/") == 2 and new.count("/") == 2 and old != new for old, new in aliases.items())


def test_every_row_shows_the_smallest_slowdown_it_can_detect(tmp_path):
    """A row is slower when r (1 - 1.96 sigma) > 1 + t; the detectable slowdown is the r where that starts.
    A noisy row (threshold well above 5%) cannot detect 5%, and the summary counts it."""
    rng = np.random.default_rng(17)
    quiet = [stages_result(rng, medians=(1e-4,)) for _ in range(BASE_REPS)]
    noisy = noisy_baseline(rng, (3e-4,), run_to_run=0.025)
    for q, n in zip(quiet, noisy):
        q["rows"] += n["rows"]
        q["rows"][1]["variant"] = "pressure/noisy"
    cur = stages_result(rng, medians=(1e-4, 3e-4))
    cur["rows"][1]["variant"] = "pressure/noisy"
    result = compare.compare(quiet, [cur])
    by_name = {row["benchmark"].split(":")[0]: row for row in result["rows"]}
    for row in by_name.values():
        d, t, sigma = row["detectable_slowdown"], row["threshold"], row["sigma"]
        assert (1 + d) * (1 - compare.Z95 * sigma) == pytest.approx(1 + t)
    assert by_name["stage projection/pressure/v0"]["detectable_slowdown"] < 0.05
    assert by_name["stage projection/pressure/noisy"]["detectable_slowdown"] > 0.05
    assert result["cannot_detect_target"] == {"target_slowdown": 0.05, "rows": 1}
    text = compare.markdown(result)
    assert "1 of 2 rows cannot detect a 5% slowdown" in text and "| detectable slowdown |" in text
    assert f"+{100 * by_name['stage projection/pressure/noisy']['detectable_slowdown']:.1f}%" in text
