"""scripts/pack-results: results become reproducible .json.gz with raw samples thinned (summaries untouched, the
thinning recorded), repeats kept (or the newest only with --drop-superseded), baselines and gpu-ci folders not
thinned, other files left alone; every reader takes the packed form."""
import gzip
import json
import os
import subprocess
import sys

from study_helpers import ROOT
import studylib  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "pack-results")


def pack(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True)


def run_result(n_steps, stamp="2026-01-01T00:00:00Z"):
    steps = [1e-3 + i * 1e-9 for i in range(n_steps)]
    return {"schema": "nsbench.run/2", "timestamp": stamp,
            "timing": {"step": {"median": 0.5}, "step_raw_seconds": steps,
                       "stages": {"momentum": {"raw_seconds": steps[:250], "per_call": {"median": 0.25}}}}}


def test_results_are_gzipped_thinned_and_say_so(tmp_path):
    folder = tmp_path / "results" / "study" / "box"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(run_result(1000), indent=1))
    (folder / "run2.skipped.json").write_text('{"id": "run2", "reason": "needs 2 GPUs"}')
    (folder / "notes.txt").write_text("not a result")
    r = pack(tmp_path / "results", "--max-raw", 100)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(folder)) == ["notes.txt", "run.json.gz", "run2.skipped.json.gz"]
    packed = json.load(gzip.open(folder / "run.json.gz"))
    timing = packed["timing"]
    assert len(timing["step_raw_seconds"]) == 100 and timing["step_raw_seconds"][1] == run_result(1000)[
        "timing"]["step_raw_seconds"][10]
    assert timing["raw_samples"]["steps"] == {"kept": 100, "of": 1000, "stride": 10}
    assert timing["stages"]["momentum"]["raw_seconds_subsampled"] == {"kept": 84, "of": 250, "stride": 3}
    assert timing["step"] == {"median": 0.5} and packed["packed"]["max_raw_samples"] == 100
    first = (folder / "run.json.gz").read_bytes()
    again = pack(tmp_path / "results", "--max-raw", 100)
    assert again.returncode == 0 and (folder / "run.json.gz").read_bytes() == first  # reproducible bytes
    results, records = studylib.load_results(str(folder))
    assert results["run"]["timing"]["step"] == {"median": 0.5} and records["run2"]["reason"] == "needs 2 GPUs"


def test_an_earlier_subsample_is_counted_from_what_was_measured(tmp_path):
    r = run_result(2000)
    r["timing"]["raw_samples"] = {"max_kept": 2000, "steps": {"kept": 2000, "of": 24000, "stride": 12}}
    (tmp_path / "r.json").write_text(json.dumps(r))
    assert pack(tmp_path).returncode == 0
    steps = json.load(gzip.open(tmp_path / "r.json.gz"))["timing"]["raw_samples"]["steps"]
    assert steps == {"kept": 50, "of": 24000, "stride": 480}  # the default, 50 a list


def test_repeats_are_kept_unless_asked_and_the_newest_is_read(tmp_path):
    (tmp_path / "run.json").write_text(json.dumps(run_result(10, "old")))
    (tmp_path / "run.20260102T000000Z.json").write_text(json.dumps(run_result(10, "new")))
    assert pack(tmp_path).returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["run.20260102T000000Z.json.gz", "run.json.gz"]
    assert studylib.load_results(str(tmp_path))[0]["run"]["timestamp"] == "new"
    assert pack(tmp_path, "--drop-superseded").returncode == 0
    assert os.listdir(tmp_path) == ["run.json.gz"]
    assert json.load(gzip.open(tmp_path / "run.json.gz"))["timestamp"] == "new"
    (tmp_path / "run.json").write_text(json.dumps(run_result(10, "local")))  # a plain file beside: newer
    assert studylib.load_results(str(tmp_path))[0]["run"]["timestamp"] == "local"


def test_baselines_keep_every_sample_and_repetition(tmp_path):
    folder = tmp_path / "baselines" / "gpu"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps(run_result(500)))
    (folder / "run.20260102T000000Z.json").write_text(json.dumps(run_result(500)))
    (folder / "provenance.json").write_text('{"recorded": "now"}')
    assert pack(tmp_path / "baselines", "--drop-superseded").returncode == 0
    assert sorted(os.listdir(folder)) == ["provenance.json", "run.20260102T000000Z.json.gz", "run.json.gz"]
    assert len(json.load(gzip.open(folder / "run.json.gz"))["timing"]["step_raw_seconds"]) == 500


def test_a_file_that_does_not_parse_is_named_and_left_alone(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": ')
    r = pack(tmp_path)
    assert r.returncode == 1 and "bad.json" in r.stderr and "left alone" in r.stderr
    assert bad.read_text() == '{"a": '


def test_raw_samples_keep_six_significant_digits_and_the_summaries_every_digit(tmp_path):
    r = {"schema": "nsbench.stages/1", "rows": [{"median_s": 0.0012139519453048706,
                                                 "raw_seconds": [0.0012149120569229126, 12.345678912]}]}
    (tmp_path / "s.json").write_text(json.dumps(r))
    assert pack(tmp_path).returncode == 0
    packed = json.load(gzip.open(tmp_path / "s.json.gz"))
    assert packed["rows"][0]["raw_seconds"] == [0.00121491, 12.3457]
    assert packed["rows"][0]["median_s"] == 0.0012139519453048706
    assert packed["packed"]["raw_significant_digits"] == 6
