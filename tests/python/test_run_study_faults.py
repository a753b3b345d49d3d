"""scripts/run-study under faults (issue 39): a full disk, two runners on one results folder, runs that blow up, fail
their reference check or hang, Ctrl-C, MPI runs of more ranks than the machine has cores, bad study and group
names; and the time-left estimate."""
import errno
import glob
import json
import os
import signal
import subprocess
import sys
import time

import pytest
import yaml

from study_helpers import FAKE, STUDIES, run_study
import run_study as runner
import studylib

STUDY = "table4_1_cpu_gflops"
FIRST = "quick-cpu-backendcpu_serial-grid32x32x32"  # the study's first quick run
BIG = "1024x32x1024"  # in two of its four runs' command lines


def folder(tmp_path, study=STUDY):
    return tmp_path / "results" / study / "testbox"


def in_process(tmp_path, *args):
    """run-study's entry() in this process (so that a test can fake a full disk under it), with the fake nsbench."""
    return runner.entry([STUDY, "--quick", "--gpus", "0", "--nsbench", FAKE, "--studies", STUDIES,
                         "--results", str(tmp_path / "results"), "--machine-id", "testbox", *args])


def test_write_json_on_a_full_disk_leaves_no_partial_file(tmp_path, monkeypatch):
    def full(obj, f, **kw):
        f.write("{\"half\":")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(runner.json, "dump", full)
    with pytest.raises(OSError):
        runner.write_json(str(tmp_path / "r.json"), {"a": 1})
    assert os.listdir(tmp_path) == []


def test_write_json_never_replaces_a_result(tmp_path):
    path = str(tmp_path / "r.json")
    runner.write_json(path, {"run": 1}, replace=False)
    with pytest.raises(FileExistsError):
        runner.write_json(path, {"run": 2}, replace=False)
    assert json.load(open(path)) == {"run": 1} and os.listdir(tmp_path) == ["r.json"]


def test_a_full_disk_stops_with_a_message_and_the_next_run_stores_the_finished_result(tmp_path, monkeypatch, capsys):
    real = runner.write_json

    def full_disk_for_results(path, obj, replace=True):
        if os.path.basename(path).startswith("quick-") and path.endswith(".json") and "." not in path[-20:-5]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        return real(path, obj, replace)
    monkeypatch.setattr(runner, "write_json", full_disk_for_results)
    assert in_process(tmp_path) == 1
    err = capsys.readouterr().err
    tmp = folder(tmp_path) / (FIRST + ".json.tmp")
    assert (f"run-study: stopped: cannot store the result of {FIRST} as {folder(tmp_path) / FIRST}.json: No space "
            f"left on device; the run's complete result stays in {tmp}") in err
    assert "Traceback" not in err and tmp.exists()
    monkeypatch.setattr(runner, "write_json", real)
    started = tmp_path / "started"
    monkeypatch.setenv("FAKE_NSBENCH_STARTED", str(started))
    assert in_process(tmp_path) == 0
    out = capsys.readouterr().out
    assert f"run-study: stored {tmp} as {folder(tmp_path) / FIRST}.json" in out
    assert f"{FIRST}: kept, made earlier by this build" in out  # not computed again
    assert len(started.read_text().split()) == 1 + 3  # the build probe and the three other runs
    stored = json.load(open(folder(tmp_path) / (FIRST + ".json")))
    assert stored["study"]["run_id"] == FIRST and stored["study"]["wall_s"] is None
    assert not glob.glob(str(folder(tmp_path) / "*.tmp")) and not glob.glob(str(folder(tmp_path) / ".*partial*"))


def test_a_second_runner_on_the_same_results_is_refused_naming_the_first(tmp_path):
    started = tmp_path / "started"
    env = {"FAKE_NSBENCH_SLEEP": "3:" + BIG, "FAKE_NSBENCH_STARTED": str(started)}
    first = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", env=env, popen=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(started.read_text().split() if started.exists() else []) < 2:
        time.sleep(0.1)  # the probe and the first run have started: the lock is held
    second = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", env=env)
    out, err = first.communicate(timeout=120)
    assert second.returncode == 1
    lock = tmp_path / "results" / "run-study" / "testbox" / f"{STUDY}.lock"
    assert f"run-study: another run-study (pid {first.pid}) holds {lock}" in second.stderr
    assert first.returncode == 0 and "FAILED" not in out, out + err
    assert len(glob.glob(str(folder(tmp_path) / "*.json"))) == 4


def test_a_failed_reference_check_makes_the_exit_code_1_and_is_named(tmp_path):
    r = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", env={"FAKE_NSBENCH_EXIT": "2:" + BIG})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "4 run (2 failing its reference check)" in r.stdout and "run-study: reference check FAILED: " in r.stdout
    assert len(glob.glob(str(folder(tmp_path) / "*.json"))) == 4  # the results are kept: they say FAIL


def test_a_blown_up_run_is_a_failure_not_a_result(tmp_path):
    r = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", env={"FAKE_NSBENCH_EXIT": "3:" + BIG})
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.count("FAILED (exit 3): nsbench: run FAILED: non-finite values in u") == 2
    assert len(glob.glob(str(folder(tmp_path) / "*.failed.json"))) == 2
    assert len(studylib.result_files(str(folder(tmp_path)))) == 2 and not glob.glob(str(folder(tmp_path) / "*.tmp"))


def test_a_run_nsbench_declines_for_this_machine_is_a_skip_with_its_reason_not_a_failure(tmp_path):
    # exit 4: no tuned recipe for this GPU and grid class (harness/tune_cache.hpp); nothing ran
    r = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", env={"FAKE_NSBENCH_EXIT": "4:" + BIG})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("SKIPPED, --recipe tuned: no tuned recipe for the projection solver") == 2, r.stdout
    skipped = glob.glob(str(folder(tmp_path) / "*.skipped.json"))
    assert len(skipped) == 2 and not glob.glob(str(folder(tmp_path) / "*.failed.json"))
    with open(skipped[0]) as f:
        assert f.read().count("make it with: nsbench tune --case cavity") == 1


def test_a_run_past_its_timeout_is_stopped_and_named(tmp_path):
    t0 = time.time()
    r = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", "--timeout", "1", env={"FAKE_NSBENCH_SLEEP": "60:" + BIG})
    assert time.time() - t0 < 40 and r.returncode == 1
    assert r.stdout.count("FAILED (exit timeout): run-study: timed out: stopped after 1 s") == 2, r.stdout


def test_a_study_sets_the_default_timeout(tmp_path):
    write_study(tmp_path, timeout_s=1)
    r = run_study(tmp_path, "s", "--quick", "--gpus", "0", env={"FAKE_NSBENCH_SLEEP": "60:" + BIG},
                  studies=str(tmp_path / "studies"))
    assert r.returncode == 1 and r.stdout.count("timed out: stopped after 1 s") == 2, r.stdout + r.stderr


def test_ctrl_c_says_one_line_and_keeps_the_finished_results(tmp_path):
    started = tmp_path / "started"
    p = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", popen=True,
                  env={"FAKE_NSBENCH_SLEEP": "60:" + BIG, "FAKE_NSBENCH_STARTED": str(started)})
    deadline = time.time() + 60
    while time.time() < deadline and len(started.read_text().split() if started.exists() else []) < 3:
        time.sleep(0.1)  # the probe, the first run (done) and the second (asleep)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "run-study: interrupted (Ctrl-C): the results finished before it are kept" in err
    assert list(studylib.result_files(str(folder(tmp_path)))) == [FIRST]


def test_mpi_runs_of_more_ranks_than_cores_are_skipped_with_the_reason(tmp_path):
    r = run_study(tmp_path, "fig25_34_ranks", "--quick", "--gpus", "0", "--match", "cpu_ranks", "--mpi-slots", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("SKIPPED, needs 8 MPI processes, one a CPU core; this machine has 2 (mpirun refuses more processes "
            "than slots; --mpi-slots N to try anyway)") in r.stdout
    assert r.stdout.count("SKIPPED") == 2 and ", 2 skipped, 0 failed in" in r.stdout  # ranks8, neighbours (8)


MPIRUN_SLOTS = """--------------------------------------------------------------------------
There are not enough slots available in the system to satisfy the 8
slots that were requested by the application:

  build/nsbench

Either request fewer slots for your application, or make more slots
available for use.

Alternatively, you can use the --oversubscribe option to ignore the
number of available slots when deciding the number of processes to
launch.
--------------------------------------------------------------------------
"""


def test_a_failure_shows_mpiruns_message_not_its_dashes():
    assert runner.failure_line(MPIRUN_SLOTS) == ("There are not enough slots available in the system to satisfy the 8 "
                                                 "slots that were requested by the application:")
    assert runner.failure_line("step 1\nnsbench: error: bad --grid\n") == "nsbench: error: bad --grid"


def test_time_left_follows_the_committed_times_scaled_by_this_machine():
    assert runner.time_left([10.0, 20.0], []) == 30.0
    assert runner.time_left([10.0, 20.0], [(5.0, 10.0)]) == 60.0  # this machine takes twice the reference


def test_the_first_estimate_counts_only_the_runs_to_make(tmp_path):
    ref = tmp_path / "reference"
    for rid in ("quick-cpu-backendcpu_serial-grid1024x32x1024", "quick-cpu-backendcpu_omp-grid32x32x32",
                "quick-cpu-backendcpu_omp-grid1024x32x1024"):
        d = ref / STUDY / "testbox"
        d.mkdir(parents=True, exist_ok=True)
        (d / (rid + ".json")).write_text(json.dumps({"study": {"wall_s": 100.0}}))
    run_study(tmp_path, STUDY, "--quick", "--gpus", "0", "--match", "serial-grid32x")  # one run made and kept
    r = run_study(tmp_path, STUDY, "--quick", "--gpus", "0", "--reference", str(ref))
    line = next(x for x in r.stdout.splitlines() if x.startswith("[2/4]"))
    assert "about 5m00s left" in line, r.stdout  # 3 runs of 100 s; the kept one counts 0


def test_a_different_dirty_flag_is_another_build(tmp_path):
    run_study(tmp_path, STUDY, "--quick", "--gpus", "0")
    for f in glob.glob(str(folder(tmp_path) / "*.json")):
        r = json.load(open(f))
        r["build"]["git_dirty"] = True
        json.dump(r, open(f, "w"))
    again = run_study(tmp_path, STUDY, "--quick", "--gpus", "0")
    assert again.stdout.count("git_dirty True -> False") == 4 and "0 kept" in again.stdout


def write_study(tmp_path, **changes):
    """A copy of table4_1_cpu_gflops (without its paper csv) as <tmp>/studies/mine/s.yaml, with some top-level keys
    or the first group's name (group=) changed; returns its path."""
    s = yaml.safe_load(open(os.path.join(STUDIES, "thibault2009", STUDY + ".yaml")))
    s.pop("paper")
    if "group" in changes:
        s["runs"][0]["group"] = changes.pop("group")
    s.update(changes)
    d = tmp_path / "studies" / "mine"
    d.mkdir(parents=True, exist_ok=True)
    (d / "s.yaml").write_text(yaml.safe_dump(s))
    return str(d / "s.yaml")


@pytest.mark.parametrize("changes, message", [
    ({"study": "../../../x"}, "bad study name '../../../x'"),
    ({"study": "a/b"}, "bad study name 'a/b'"),
    ({"group": "a/b"}, "bad group name 'a/b'"),
    ({"paper": 5}, "paper: a mapping"),
    ({"report": [1, 2]}, "unknown report"),
    ({"timeout_s": -1}, "bad timeout_s -1"),
    ({"runs": {"a": 1}}, "runs: a non-empty list"),
])
def test_bad_names_and_malformed_studies_are_refused_naming_the_file(tmp_path, changes, message):
    path = write_study(tmp_path, **changes)
    with pytest.raises(studylib.StudyError) as e:
        studylib.load_study(path)
    assert str(e.value).startswith(path + ": ") and message in str(e.value)


def test_a_study_file_that_is_not_text_is_refused_naming_it(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"study: \xff\xfe\n")
    with pytest.raises(studylib.StudyError, match=f"{path}: cannot read it"):
        studylib.load_study(str(path))


def test_run_study_refuses_a_study_name_outside_the_results_root(tmp_path):
    write_study(tmp_path, study="../../escaped")
    r = run_study(tmp_path, "s", "--quick", "--gpus", "0", "--fresh", studies=str(tmp_path / "studies"))
    assert r.returncode == 1 and "bad study name '../../escaped'" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "escaped").exists() and not (tmp_path / "results").exists()


def test_a_group_with_a_dot_resumes(tmp_path):
    write_study(tmp_path, group="cpu.v2")
    args = ("s", "--quick", "--gpus", "0")
    first = run_study(tmp_path, *args, studies=str(tmp_path / "studies"))
    assert first.returncode == 0, first.stdout + first.stderr
    again = run_study(tmp_path, *args, studies=str(tmp_path / "studies"))
    assert again.stdout.count("kept, made earlier by this build") == 4, again.stdout
    assert studylib.STAMPED_RE.match("quick-cpu.v2-grid32x32x32.20261122T000000Z").group(1) == "quick-cpu.v2-grid32x32x32"


def test_a_bad_machine_id_is_refused(tmp_path):
    r = subprocess.run([sys.executable, runner.__file__, STUDY, "--machine-id", "../x", "--dry-run"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "bad --machine-id '../x'" in r.stderr
