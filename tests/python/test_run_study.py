"""scripts/run-study with a fake nsbench: where results go, resuming only what this build made on this
machine, re-runs kept beside, --fresh, skips and failures."""
import glob
import json
import os

from study_helpers import run_study

OTHER_BUILD = {"FAKE_NSBENCH_COMMIT": "fedcba9876543210"}


def folder(tmp_path, study="table4_1_cpu_gflops"):
    return tmp_path / "results" / study / "testbox"


def test_runner_runs_resumes_repeats_and_skips(tmp_path):
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    files = sorted(os.listdir(folder(tmp_path)))
    assert len(files) == 4 and all(f.endswith(".json") for f in files)
    assert "[4/4]" in r.stdout and "about" in r.stdout  # progress with an estimate of what is left

    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    # kept, saying which commit made it and when
    assert again.stdout.count("kept, made earlier by this build (commit 0123456789, ran 2026-11-22T00:00:00Z)") == 4
    assert "0 run, 4 kept from earlier (made by this build: commit 0123456789" in again.stdout
    assert sorted(os.listdir(folder(tmp_path))) == files  # nothing rewritten

    rep = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--again")
    assert rep.returncode == 0
    assert len(os.listdir(folder(tmp_path))) == 8  # the repeats sit beside the first results

    gpu = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "0")
    skipped = glob.glob(str(folder(tmp_path, "fig4_5_global_vs_optimal") / "*.skipped.json"))
    assert len(skipped) == 4 and "SKIPPED" in gpu.stdout
    assert "needs 1 GPU" in json.load(open(skipped[0]))["reason"]


def test_results_of_another_build_are_run_again_and_kept_beside(tmp_path):
    run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    first = sorted(os.listdir(folder(tmp_path)))
    other = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", env=OTHER_BUILD)
    assert other.returncode == 0, other.stdout + other.stderr
    assert "kept" not in other.stdout.replace("0 kept", "")
    assert other.stdout.count("is from another build or machine: git_commit 0123456789 -> fedcba9876") == 4
    assert "commit 0123456789, ran 2026-11-22T00:00:00Z" in other.stdout  # says what it did not reuse
    now = sorted(os.listdir(folder(tmp_path)))
    assert len(now) == 8 and set(first) <= set(now)  # the older files stay
    newest = [f for f in now if f not in first]
    assert json.load(open(folder(tmp_path) / newest[0]))["build"]["git_commit"] == "fedcba9876543210"
    # the newest result is this build's: kept from now on
    third = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", env=OTHER_BUILD)
    assert third.stdout.count("kept, made earlier by this build (commit fedcba9876") == 4


def test_another_machine_is_another_identity(tmp_path):
    run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    for f in glob.glob(str(folder(tmp_path) / "*.json")):
        r = json.load(open(f))
        r["machine"]["gpu"]["pci_bus_id"] = "0000:00:07.0"  # same folder name, another GPU
        json.dump(r, open(f, "w"))
    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert again.stdout.count("gpu_pci_bus 0000:00:07.0 -> 0000:00:01.0") == 4


def test_an_unreadable_earlier_result_is_run_again(tmp_path):
    run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    victim = sorted(glob.glob(str(folder(tmp_path) / "*.json")))[0]
    text = open(victim).read()
    open(victim, "w").write(text[: len(text) // 2])
    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert again.returncode == 0
    assert "the earlier result is unreadable" in again.stdout and again.stdout.count("kept, made earlier") == 3
    assert os.path.exists(victim)  # kept as it was, beside the new result


def test_fresh_moves_earlier_results_aside(tmp_path):
    run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    first = sorted(os.listdir(folder(tmp_path)))
    fresh = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--fresh")
    assert fresh.returncode == 0 and "--fresh: moved" in fresh.stdout
    assert "4 run, 0 kept" in fresh.stdout
    aside = glob.glob(str(tmp_path / "results" / "aside" / "*" / "table4_1_cpu_gflops" / "testbox"))
    assert len(aside) == 1 and sorted(os.listdir(aside[0])) == first
    assert sorted(os.listdir(folder(tmp_path))) == first  # run again under the same names


def test_default_results_are_local_and_apart_from_the_shipped_ones(tmp_path):
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", results=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(os.listdir(tmp_path / "results" / "local" / "table4_1_cpu_gflops" / "testbox")) == 4
    ignored = open(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), ".gitignore")).read()
    assert "/results/local/" in ignored.splitlines()


def test_runner_records_a_failure_and_resumes_after_it(tmp_path):
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", env={"FAKE_NSBENCH_FAIL": "1024x32x1024"})
    assert r.returncode == 1
    failed = glob.glob(str(folder(tmp_path) / "*.failed.json"))
    assert len(failed) == 2 and "fake failure" in json.load(open(failed[0]))["output_tail"]
    assert not glob.glob(str(folder(tmp_path) / "*.tmp")) and not glob.glob(str(folder(tmp_path) / ".*partial"))
    r2 = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert r2.returncode == 0 and r2.stdout.count("kept, made earlier") == 2
    assert not glob.glob(str(folder(tmp_path) / "*.failed.json"))


def test_the_old_nsbench_schemas_still_run(tmp_path):
    r = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "1", env={"FAKE_NSBENCH_SCHEMA": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(glob.glob(str(folder(tmp_path, "fig4_5_global_vs_optimal") / "*.json"))) == 4


def test_unknown_study_lists_the_known_ones(tmp_path):
    r = run_study(tmp_path, "fig9_9")
    assert r.returncode != 0 and "no study named 'fig9_9'" in r.stderr and "roofline" in r.stderr


def test_groups_runs_only_the_named_groups_and_names_the_known_ones(tmp_path):
    r = run_study(tmp_path, "fig4_8_scaling", "--quick", "--gpus", "0", "--groups", "mpi,weak", "--dry-run")
    assert r.returncode == 0, r.stdout + r.stderr
    listed = [line for line in r.stdout.splitlines() if line.startswith("[")]
    assert listed and all("-mpi-" in line or "-weak-" in line for line in listed)
    bad = run_study(tmp_path, "fig4_8_scaling", "--quick", "--groups", "nope")
    assert bad.returncode != 0 and "no group nope" in bad.stderr and "large_planes" in bad.stderr


def test_match_runs_only_the_runs_whose_id_holds_the_text(tmp_path):
    r = run_study(tmp_path, "fig25_34_ranks", "--full", "--gpus", "2", "--match", "ranks3", "--dry-run")
    assert r.returncode == 0, r.stdout + r.stderr
    listed = [line for line in r.stdout.splitlines() if line.startswith("[")]
    assert len(listed) == 6 and all("ranks3-" in line for line in listed), listed
    bad = run_study(tmp_path, "fig25_34_ranks", "--full", "--match", "ranks99")
    assert bad.returncode != 0 and "ranks99" in bad.stderr
