"""The regression benchmarks' history (reports/history.py, scripts/history): appending from a results folder,
idempotence (byte for byte, gzipped), a legacy .tsv read and converted, .json.gz, the plot, and the committed history
file against the result files it was built from."""
import gzip
import json
import os
import subprocess

import numpy as np
import pytest

from study_helpers import ROOT
import compare  # noqa: E402
import history  # noqa: E402

COMMIT = "0123456789abcdef0123456789abcdef01234567"
# The result folders the committed history was built from (scripts/history append, see its commit).
SOURCES = [os.path.join(ROOT, "baselines", "nvidia-h200"),
           os.path.join(ROOT, "results", "core-refactor-check", "gpu-ci", "base"),
           os.path.join(ROOT, "results", "core-refactor-check", "gpu-ci", "current")]


def stages_result(timestamp, medians, commit=COMMIT, seed=0, study="regression"):
    """A regression study's stages result: one row per median, 50 lognormal samples each (1% scatter)."""
    rng = np.random.default_rng(seed)
    rows = [{"variant": f"projection/pressure/v{i}", "tuning": "t", "scheme": "euler",
             "raw_seconds": list(m * np.exp(rng.normal(0, 0.01, 50)))} for i, m in enumerate(medians)]
    return {"schema": "nsbench.stages/1", "grid": {"nx": 64, "ny": 64, "nz": 64}, "precision": "float",
            "timestamp": timestamp, "study": {"study": study, "run_id": "quick-stages"},
            "machine": {"gpu": {"name": "NVIDIA H200", "count": 1, "driver_version": 13000, "sm_clock_khz": 1980000}},
            "build": {"git_commit": commit, "git_dirty": False, "build_type": "Release"}, "rows": rows}


def write(folder, name, data, gz=False):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name + (".json.gz" if gz else ".json"))
    with (gzip.open(path, "wt") if gz else open(path, "w")) as f:
        json.dump(data, f)
    return path


def test_append_writes_one_line_per_benchmark_with_the_runs_commit_date_and_pooled_median(tmp_path):
    results = tmp_path / "current"
    write(results, "quick-stages", stages_result("2026-12-01T10:00:05Z", [1e-4, 2e-5], seed=1))
    write(results, "quick-stages.20261201T100010Z", stages_result("2026-12-01T10:00:10Z", [1e-4, 2e-5], seed=2))
    done = history.append(str(results), "current", str(tmp_path / "h"), aliases={})
    assert [(d[1], d[2], d[3], d[4]) for d in done] == [("2026-12-01T10:00:05Z", COMMIT, 2, "added")]
    lines = history.read_history(str(tmp_path / "h" / "nvidia-h200.tsv.gz"))
    assert [x["benchmark"] for x in lines] == ["stage projection/pressure/v0:t:euler 64x64x64 float",
                                              "stage projection/pressure/v1:t:euler 64x64x64 float"]
    pooled = compare.benchmarks(compare.load_files(str(results)))
    for x in lines:
        samples = [s for rep in pooled[x["benchmark"]] for s in rep]
        assert float(x["median_us"]) == pytest.approx(np.median(samples) * 1e6, rel=1e-3)
        q1, q3 = np.percentile(samples, [25, 75])
        assert float(x["iqr_us"]) == pytest.approx((q3 - q1) * 1e6, rel=1e-2)
        assert (x["commit"], x["date"], x["role"], x["gpus"], x["driver"], x["samples"], x["repetitions"]) == \
            (COMMIT, "2026-12-01T10:00:05Z", "current", "1", "13000", "100", "2")


def test_appending_the_same_run_twice_leaves_the_file_unchanged(tmp_path):
    write(tmp_path / "base", "quick-stages", stages_result("2026-12-01T09:00:00Z", [1e-4], commit="b" * 40))
    write(tmp_path / "current", "quick-stages", stages_result("2026-12-01T10:00:00Z", [1.1e-4]))
    root = str(tmp_path / "h")
    history.append(str(tmp_path / "base"), "base", root, aliases={})
    history.append(str(tmp_path / "current"), "current", root, aliases={})
    path = tmp_path / "h" / "nvidia-h200.tsv.gz"
    before = path.read_bytes()
    again = history.append(str(tmp_path / "current"), "current", root, aliases={})
    history.append(str(tmp_path / "base"), "base", root, aliases={})
    assert again[0][4] == "replaced" and path.read_bytes() == before
    assert before[4:8] == b"\0\0\0\0"  # the gzip header's mtime: 0, else the bytes would change by the second
    assert len(gzip.decompress(before).decode().splitlines()) == 3  # the header and one benchmark of each run
    assert os.listdir(tmp_path / "h") == ["nvidia-h200.tsv.gz"]  # no .tmp left behind


def test_a_legacy_tsv_is_read_and_replaced_by_the_gzipped_file_at_the_next_append(tmp_path):
    write(tmp_path / "base", "quick-stages", stages_result("2026-12-01T09:00:00Z", [1e-4], commit="b" * 40))
    write(tmp_path / "current", "quick-stages", stages_result("2026-12-01T10:00:00Z", [1.1e-4]))
    root = tmp_path / "h"
    history.append(str(tmp_path / "base"), "base", str(root), aliases={})
    legacy = root / "nvidia-h200.tsv"  # the history as it was committed before it was gzipped
    legacy.write_bytes(gzip.decompress((root / "nvidia-h200.tsv.gz").read_bytes()))
    os.remove(root / "nvidia-h200.tsv.gz")
    assert history.existing_history(str(root), "nvidia-h200") == str(legacy)
    assert [x["role"] for x in history.read_history(str(legacy))] == ["base"]
    history.append(str(tmp_path / "current"), "current", str(root), aliases={})
    assert os.listdir(root) == ["nvidia-h200.tsv.gz"]
    lines = history.read_history(history.existing_history(str(root), "nvidia-h200"))
    assert [(x["role"], x["commit"]) for x in lines] == [("base", "b" * 40), ("current", COMMIT)]


def test_a_broken_gzipped_history_is_an_input_error(tmp_path):
    (tmp_path / "nvidia-h200.tsv.gz").write_bytes(b"date\tcommit\n")  # not gzipped
    with pytest.raises(compare.InputError, match="nvidia-h200.tsv.gz: unreadable"):
        history.read_history(str(tmp_path / "nvidia-h200.tsv.gz"))


def test_a_run_grown_by_a_rerun_replaces_its_lines(tmp_path):
    """gpu-ci's re-run after an ambiguous verdict adds a repetition to the same run: its lines are replaced."""
    results, root = tmp_path / "current", str(tmp_path / "h")
    write(results, "quick-stages", stages_result("2026-12-01T10:00:00Z", [1e-4], seed=1))
    history.append(str(results), "current", root, aliases={})
    write(results, "quick-stages.20261201T100100Z", stages_result("2026-12-01T10:01:00Z", [1e-4], seed=2))
    history.append(str(results), "current", root, aliases={})
    lines = history.read_history(os.path.join(root, "nvidia-h200.tsv.gz"))
    assert [x["repetitions"] for x in lines] == ["2"]


def test_json_gz_results_are_read(tmp_path):
    write(tmp_path / "r", "quick-stages", stages_result("2026-12-01T10:00:00Z", [3e-5]), gz=True)
    history.append(str(tmp_path / "r"), "baseline", str(tmp_path / "h"), aliases={})
    lines = history.read_history(str(tmp_path / "h" / "nvidia-h200.tsv.gz"))
    assert len(lines) == 1 and lines[0]["role"] == "baseline" and 29 < float(lines[0]["median_us"]) < 31


def test_results_of_another_study_are_refused(tmp_path):
    write(tmp_path / "r", "x", stages_result("2026-12-01T10:00:00Z", [3e-5], study="roofline"))
    with pytest.raises(compare.InputError, match="not of the regression study"):
        history.append(str(tmp_path / "r"), "current", str(tmp_path / "h"), aliases={})
    assert not (tmp_path / "h").exists()


def test_the_command_line_appends_and_plots(tmp_path):
    write(tmp_path / "r1", "quick-stages", stages_result("2026-12-01T10:00:00Z", [1e-4, 2e-5], commit="a" * 40))
    write(tmp_path / "r2", "quick-stages", stages_result("2026-12-02T10:00:00Z", [1.05e-4, 2e-5], seed=3))
    script = os.path.join(ROOT, "scripts", "history")
    for folder, role in (("r1", "current"), ("r2", "current")):
        p = subprocess.run([script, "append", str(tmp_path / folder), "--role", role, "--root", str(tmp_path / "h")],
                           capture_output=True, text=True)
        assert p.returncode == 0 and "added 2 lines" in p.stdout, p.stderr
    png = tmp_path / "history.png"
    p = subprocess.run([script, "plot", "--root", str(tmp_path / "h"), "--out", str(png)], capture_output=True,
                       text=True, env=dict(os.environ, MPLBACKEND="Agg"))
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000
    p = subprocess.run([script, "append", str(tmp_path / "none")], capture_output=True, text=True)
    assert p.returncode == compare.EXIT_INPUT_ERROR and "no such file" in p.stderr


def test_the_report_section_has_the_plot_and_names_every_run(tmp_path):
    write(tmp_path / "r", "quick-stages", stages_result("2026-12-01T10:00:00Z", [1e-4]))
    root = str(tmp_path / "h")
    history.append(str(tmp_path / "r"), "current", root, aliases={})

    class Section:
        def __init__(self):
            self.blocks = []

        def p(self, text):
            self.blocks.append(("p", text))

        def fig(self, file, caption):
            self.blocks.append(("fig", file, caption))

    sec = Section()
    assert not history.add_to_section(sec, "cpu-intel-xeon-2c", str(tmp_path), root)
    assert not history.add_to_section(sec, "nvidia-h100-80gb-hbm3-x1", str(tmp_path), root)
    assert history.add_to_section(sec, "nvidia-h200-x2", str(tmp_path), root)
    assert COMMIT[:10] in sec.blocks[0][1] and (tmp_path / sec.blocks[1][1]).is_file()


# ---------------------------------------------------------------- the committed history

def committed_lines():
    folder = os.path.join(ROOT, "baselines", "history")
    return {name: history.read_history(os.path.join(folder, name)) for name in sorted(os.listdir(folder))
            if name.endswith((".tsv", ".tsv.gz"))}


def test_the_committed_history_is_well_formed():
    files = committed_lines()
    assert "nvidia-h200.tsv.gz" in files and "nvidia-h200.tsv" not in files  # gzipped, no legacy copy beside it
    for name, lines in files.items():
        assert lines, name
        for x in lines:
            assert len(x["commit"]) == 40 and all(c in "0123456789abcdef" for c in x["commit"]), x
            assert x["role"] in history.ROLES and x["dirty"] in ("0", "1") and x["date"].endswith("Z"), x
            assert float(x["median_us"]) > 0 and float(x["iqr_us"]) >= 0, x
            assert int(x["samples"]) >= int(x["repetitions"]) >= 1, x
        keys = [(x["date"], x["commit"], x["gpus"], x["driver"], x["benchmark"]) for x in lines]
        assert len(keys) == len(set(keys)), f"{name}: a benchmark twice in one run"
        assert lines == sorted(lines, key=lambda x: (x["date"], x["commit"], x["role"], x["benchmark"])), name


def test_the_seeded_runs_are_what_scripts_history_makes_of_the_result_files_in_the_repository():
    """The runs seeded from result folders in the repository (SOURCES) are, line for line, what
    `scripts/history append` makes of those files: commit, date and numbers, none typed by hand. Runs that
    scripts/gpu-ci appends later come from results that need not be committed; they are checked above."""
    lines = committed_lines()["nvidia-h200.tsv.gz"]
    aliases = compare.load_aliases(compare.default_aliases_path())
    for folder in SOURCES:
        for run in history.runs(history.regression_results(folder)).values():
            made = history.run_lines(run, "?", aliases)
            date, commit = made[0]["date"], made[0]["commit"]
            kept = [x for x in lines if (x["date"], x["commit"]) == (date, commit)]
            assert [dict(x, role="?") for x in kept] == made, f"{folder}: run {commit[:10]} {date} differs"


def test_a_panel_is_a_solver_so_the_picture_stays_small():
    assert history.family("stage multiblock/lamvis/global_2d:bx128_by1:euler 256x256x256 float") == "multiblock"
    assert history.family("stage tridiag/lines_y/partition:bx8_sz16:default 512x512x512 float") == "tridiag"
    assert history.family("run cavity 256x32x256 float best stream x1") == "whole-solver runs (step time)"
    lines = history.read_history(os.path.join(ROOT, "baselines", "history", "nvidia-h200.tsv.gz"))
    assert len(history.series(lines)) <= 12  # a panel per solver or family, not per stage kind (about 70)
