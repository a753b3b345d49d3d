"""scripts/run-study with a fake nsbench: where results go, resuming only what this build made on this
machine, re-runs kept beside, --fresh, skips and failures."""
import glob
import json
import os

from study_helpers import STUDIES, run_study

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
    assert len(skipped) == 5 and "SKIPPED" in gpu.stdout  # four named recipes and the tuned one
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


def test_another_node_of_the_same_class_keeps_the_results_another_driver_does_not(tmp_path):
    run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    for f in glob.glob(str(folder(tmp_path) / "*.json")):
        r = json.load(open(f))
        r["machine"]["hostname"] = "node17"  # a batch job that landed on another node of the partition
        r["machine"]["gpu"]["pci_bus_id"] = "0000:00:07.0"
        json.dump(r, open(f, "w"))
    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert again.stdout.count("kept, made earlier by this build") == 4
    for f in glob.glob(str(folder(tmp_path) / "*.json")):
        r = json.load(open(f))
        r["machine"]["gpu"]["driver_version"] = 12000  # another driver: another class of machine
        json.dump(r, open(f, "w"))
    third = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert third.stdout.count("gpu_driver 12000 -> ") == 4


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
    assert not glob.glob(str(folder(tmp_path) / "*.tmp")) and not glob.glob(str(folder(tmp_path) / ".*partial*"))
    r2 = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert r2.returncode == 0 and r2.stdout.count("kept, made earlier") == 2
    assert not glob.glob(str(folder(tmp_path) / "*.failed.json"))


def test_the_old_nsbench_schemas_still_run(tmp_path):
    r = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "1", env={"FAKE_NSBENCH_SCHEMA": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(glob.glob(str(folder(tmp_path, "fig4_5_global_vs_optimal") / "*.json"))) == 5


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


# The expected duration: from the wall times (study.wall_s) that committed results record.
def write_reference(root, study, machine, run_id, wall_s, stamp=None):
    folder = root / study / machine
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{run_id}.{stamp}.json" if stamp else f"{run_id}.json"
    (folder / name).write_text(json.dumps({"schema": "nsbench.run/2", "study": {"run_id": run_id, "wall_s": wall_s}}))


def cpu_gflops_plan():
    import studylib
    study = studylib.load_study(os.path.join(STUDIES, "thibault2009", "table4_1_cpu_gflops.yaml"))
    return [(study, r) for r in studylib.expand(study, "quick")]


def test_reference_machines_this_one_first_then_the_same_gpu_count(tmp_path):
    import studylib
    for m in ("cpu-xeon-2c", "nvidia-h200-x2", "nvidia-h100-x1", "nvidia-h200-x1", "nvidia-a100-x2"):
        (tmp_path / "s" / m).mkdir(parents=True)
    assert studylib.reference_machines(str(tmp_path), "s", "nvidia-h200-x1") == [
        "nvidia-h200-x1", "nvidia-h100-x1", "nvidia-h200-x2", "cpu-xeon-2c", "nvidia-a100-x2"]
    assert studylib.reference_machines(str(tmp_path), "s", "cpu-epyc-2c")[0] == "cpu-xeon-2c"
    assert studylib.reference_machines(str(tmp_path), "nothing", "nvidia-h200-x1") == []


def test_each_run_is_timed_by_its_closest_committed_twin_else_its_group_median(tmp_path):
    import studylib
    plan = cpu_gflops_plan()
    ids = [r["id"] for _, r in plan]
    study = "table4_1_cpu_gflops"
    write_reference(tmp_path, study, "nvidia-h200-x1", ids[0], 10.0)
    write_reference(tmp_path, study, "nvidia-h200-x1", ids[0], 12.0, stamp="20270101T000000Z")  # the newest counts
    write_reference(tmp_path, study, "nvidia-h100-x1", ids[0], 99.0)  # this machine's own result comes first
    write_reference(tmp_path, study, "nvidia-h100-x1", ids[1], 20.0)
    write_reference(tmp_path, study, "nvidia-h200-x2", ids[1], 77.0)  # the same GPU count comes first
    write_reference(tmp_path, study, "nvidia-h200-x2", ids[2], 30.0)
    est = studylib.estimate_runs(plan, str(tmp_path), "nvidia-h200-x1")
    assert est == [(12.0, "nvidia-h200-x1"), (20.0, "nvidia-h100-x1"), (30.0, "nvidia-h200-x2"), (20.0, "group median")]
    assert studylib.estimate_runs(plan, str(tmp_path / "none"), "nvidia-h200-x1") == [(0.0, None)] * 4


def test_a_result_without_a_wall_time_is_no_reference(tmp_path):
    import studylib
    plan = cpu_gflops_plan()
    write_reference(tmp_path, "table4_1_cpu_gflops", "nvidia-h200-x1", plan[0][1]["id"], None)
    write_reference(tmp_path, "table4_1_cpu_gflops", "nvidia-h100-x1", plan[0][1]["id"], 5.0)
    write_reference(tmp_path, "table4_1_cpu_gflops", "nvidia-h100-x1", plan[1][1]["id"], 7.0)
    est = studylib.estimate_runs(plan, str(tmp_path), "nvidia-h200-x1")
    assert est[:2] == [(5.0, "nvidia-h100-x1"), (7.0, "nvidia-h100-x1")] and est[2] == (6.0, "group median")


def test_runner_says_what_it_expects_and_what_it_took(tmp_path):
    ref = tmp_path / "reference"
    ids = [r["id"] for _, r in cpu_gflops_plan()]
    for rid, wall in zip(ids[:3], (40.0, 20.0, 30.0)):
        write_reference(ref, "table4_1_cpu_gflops", "testbox", rid, wall)
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--reference", str(ref))
    assert r.returncode == 0, r.stdout + r.stderr
    # 40 + 20 + 30 + the group's median 30 = 2 min, said before the first run
    expect = ("run-study: expect about 2m00s of runs: 3 timed by their committed results (3 of testbox), 1 with none "
              "(counted at the median of their group 1); 0 to skip and 0 kept from earlier count 0")
    assert expect in r.stdout.splitlines() and r.stdout.index(expect) < r.stdout.index("[1/4]")
    assert "failed in 0m0" in r.stdout and "(expected 2m00s)" in r.stdout.splitlines()[-1]
    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--reference", str(ref))
    assert "expect about 0m00s of runs: 0 timed by their committed results, 0 with none; 0 to skip and 4 kept" \
        in again.stdout  # resumed runs count zero
    gpu = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "0", "--reference", str(ref))
    assert "expect about 0m00s of runs: 0 timed by their committed results, 0 with none; 5 to skip" in gpu.stdout


def test_dry_run_says_the_expectation_and_the_time_by_study_beside_it(tmp_path):
    ref = tmp_path / "reference"
    write_reference(ref, "fig4_5_global_vs_optimal", "other-x1", "quick-gpu-recipethibault_global", 90.0)
    r = run_study(tmp_path, "thibault2009", "--quick", "--gpus", "1", "--reference", str(ref), "--dry-run")
    assert r.returncode == 0, r.stdout + r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("run-study: expect about"))
    assert "1 timed by their committed results (1 of other-x1)" in line and "(counted at the median of their" in line
    run = run_study(tmp_path, "thibault2009", "--quick", "--gpus", "1", "--reference", str(ref),
                    "--match", "recipethibault_global")
    assert run.returncode == 0, run.stdout + run.stderr
    by_study = next(x for x in run.stdout.splitlines() if x.startswith("run-study: time by study (expected): "))
    assert "fig4_5_global_vs_optimal 0m0" in by_study and "(1m30s)" in by_study


def test_the_runner_leaves_a_log_of_every_run_with_its_time_and_expectation(tmp_path):
    ref = tmp_path / "reference"
    first = cpu_gflops_plan()[0][1]["id"]
    write_reference(ref, "table4_1_cpu_gflops", "testbox", first, 40.0)
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--reference", str(ref))
    assert r.returncode == 0, r.stdout + r.stderr
    (path,) = glob.glob(str(tmp_path / "results" / "run-study" / "testbox" / "*-quick.json"))
    assert f"run log {path}" in r.stdout.splitlines()[-1]
    log = json.load(open(path))
    assert log["mode"] == "quick" and log["build"]["git_commit"].startswith("0123456789")
    assert [x["outcome"] for x in log["runs"]] == ["ran"] * 4 and log["counts"] == {"ran": 4, "failed": 0,
                                                                                    "skipped": 0, "kept": 0,
                                                                                    "check_failed": 0}
    assert log["runs"][0]["id"] == first and log["runs"][0]["expected_s"] == 40.0
    assert all(x["wall_s"] is not None and x["wall_s"] >= 0 for x in log["runs"])
    assert log["run_seconds"] == round(sum(x["wall_s"] for x in log["runs"]), 1)
    assert log["expected_s"] == 160.0 and "finished" in log  # the other three at the group's median, 40
    gpu = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "0", "--reference", str(ref))
    logs = glob.glob(str(tmp_path / "results" / "run-study" / "testbox" / "*-quick.json"))
    skipped = [json.load(open(p)) for p in logs if p != path]
    assert gpu.returncode == 0 and len(skipped) == 1 and skipped[0]["counts"]["skipped"] == 5
