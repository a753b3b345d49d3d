"""reports/run_time.py: a main job's time by study, by nsbench's host phases and by run, from run-study's logs."""
import json

from study_helpers import ROOT  # noqa: F401  (puts reports/ on the path)
import run_time  # noqa: E402


def write(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))


def test_time_by_study_phase_and_run(tmp_path):
    log = {"schema": "nsbench.run-study-log/1", "runs": [
        {"study": "s1", "id": "a", "outcome": "ran", "wall_s": 30.0},
        {"study": "s1", "id": "b", "outcome": "kept", "wall_s": None},
        {"study": "s2", "id": "c", "outcome": "failed", "wall_s": 10.0}]}
    write(tmp_path / "run-study" / "box" / "20260101T000000Z-quick.json", log)
    write(tmp_path / "s1" / "box" / "a.json", {"schema": "nsbench.run/2",
                                               "run": {"phase_seconds": {"set_up": 4.0, "timed_steps": 20.0}}})
    md = run_time.tables(str(tmp_path), "box", top=5)
    assert md.startswith("2 runs on box, 40 s (0.7 min) of runs")
    assert "| s1 | 30.0 | 75% |" in md and "| s2 | 10.0 | 25% |" in md
    assert "| timed_steps | 20.0 |" in md and "| set_up | 4.0 |" in md
    assert md.index("| s1/a | 30.0 |") < md.index("| s2/c | 10.0 |")


def test_only_the_newest_builds_main_job_is_counted(tmp_path):
    """Two main jobs of two builds kept side by side (results/run-study/<machine>/ holds both): the newest build's
    invocations are the main job; the earlier build's runs are not added to it."""
    old = {"build": {"git_commit": "aaa"}, "runs": [{"study": "s1", "id": "a", "outcome": "ran", "wall_s": 50.0}]}
    new1 = {"build": {"git_commit": "bbb"}, "runs": [{"study": "s1", "id": "a", "outcome": "ran", "wall_s": 20.0},
                                                     {"study": "s1", "id": "b", "outcome": "skipped", "wall_s": None}]}
    new2 = {"build": {"git_commit": "bbb"}, "runs": [{"study": "s1", "id": "a", "outcome": "kept", "wall_s": None},
                                                     {"study": "s1", "id": "b", "outcome": "ran", "wall_s": 10.0}]}
    for stamp, log in (("20260101T000000Z", old), ("20260102T000000Z", new1), ("20260102T010000Z", new2)):
        write(tmp_path / "run-study" / "box" / f"{stamp}-quick.json", log)
    assert run_time.tables(str(tmp_path), "box", top=5).startswith("2 runs on box, 30 s (0.5 min) of runs")
