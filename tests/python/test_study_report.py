"""The study report from the fake nsbench's results, whose numbers are known: tables, plots, what ran and
what did not, when and where the report was made, unreadable result files."""
import glob
import os
import shutil

import pytest

from study_helpers import STUDIES, md_rows, run_study
import study_report  # noqa: E402
from common import fmt  # noqa: E402


@pytest.fixture(scope="module")
def full_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    r = run_study(tmp, "all", "--quick", "--gpus", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp / "out"
    study_report.build_report(str(tmp / "results"), STUDIES, "testbox", str(out))
    return tmp, out, (out / "report.md").read_text()


def test_report_has_every_study_table_and_plot(full_report):
    _, out, md = full_report
    html = (out / "index.html").read_text()
    assert "REPORT ERROR" not in md
    for png in ("fig4_1.png", "fig4_4.png", "fig4_5.png", "fig4_6.png", "fig4_8.png", "fig4_8_model.png", "tableA1.png",
                "roofline.png", "roofline_bandwidth.png", "table4_2.png"):
        assert (out / png).stat().st_size > 5000, png
        assert png in html
    for title in ("Table 4.1", "Fig. 4.1", "Fig. 4.4", "Fig. 4.5", "Fig. 4.6", "Fig. 4.8", "Table 4.2", "Table 4.4",
                  "Table A.1"):
        assert title in md
    assert "Scaling model" in md and "model error" in md


def test_report_numbers_are_the_inputs_medians(full_report):
    _, _, md = full_report
    # fake nsbench: 1 ns/point on a GPU, 100 ns on one core, 25 ns on all cores, divided by the ranks
    cells = md_rows(md, ["1024x32x1024", "1 GPU, best"])
    assert cells[2] == fmt(1024 * 32 * 1024 * 1e-9 * 1e3) == "33.6"
    assert cells[3] == fmt(1024 * 32 * 1024 * 100e-9 * 1e3) == "3355"  # plainly, not 3.36e+03
    assert cells[4] == "100" and cells[6] == "25"
    assert md_rows(md, ["1024x32x1024", "2 GPUs, best"])[4] == "200"
    # strong scaling: the fake halves the time on two ranks, so the efficiency is 100%
    assert md_rows(md, ["strong", "512x512x512", "2", "threads", "p2p_sync"])[7] == "100"
    assert "e+0" not in md  # no number in exponent form anywhere


def test_stacked_stages_add_up_to_the_step(full_report):
    _, _, md = full_report
    # the fake's six timed stages take 1/8 of the step each: 'other' is the remaining quarter
    step = 256 * 32 * 256 * 1e-9 * 1e3
    cells = md_rows(md, ["best", "256x32x256"])
    assert cells[2:5] == [fmt(step), fmt(0.75 * step), fmt(0.25 * step)]
    assert "| other ms/step (launch gaps, host) |" in md and "'other' is the step time outside" in md


def test_paper_tables_have_the_measured_column(full_report):
    _, _, md = full_report
    two = md_rows(md, ["Opteron+S870 (one core per GPU)", "2"])
    assert two[2] == "1.6" and two[4] == "2x (512x512x512, host_staged_sync:pageable)"
    assert md_rows(md, ["Opteron+S870 (one core per GPU)", "4"])[4] == "not measured (2 GPUs here)"
    assert md_rows(md, ["Opteron+S870", "1", "1024x32x1024"])[4] == "100"


def test_hardware_and_model_text_comes_from_the_results(full_report):
    _, _, md = full_report
    assert "Hopper" not in md and "201 momentum" not in md
    assert "the Fake GPU caches global loads in L1 and in a 50 MiB L2" in md  # machine record, measured verdict
    assert "Here, on the Fake GPU: 1x, which disagrees; the two recipes ran the same variants here." in md
    assert "(modelled flops / points): momentum 201, velocity_bc 0, divergence 8, pressure 11" in md
    assert "Stages without flops (velocity_bc, pressure_bc)" in md or "Stages without flops (pressure_bc, velocity_bc)" in md


def test_report_says_when_where_and_from_what_it_was_made(full_report):
    _, out, md = full_report
    top = md.split("## ")[0]
    assert "Made 20" in top and "by reports/study_report.py at commit" in top
    assert "Results: " in top and "2 x Fake GPU (PCI 0000:00:01.0), host fake" in top
    assert "made by commit 0123456789" in top and "2026-11-22T00:00:00Z" in top
    assert "Contents:" in top and "- [GFLOPS of the CPU solver" in top and "(#table4_1_cpu_gflops)" in top
    html = (out / "index.html").read_text()
    assert "<nav>" in html and "href='#fig4_8_scaling'" in html and "id='fig4_8_scaling'" in html


def test_summary_counts_runs_that_did_not_run(tmp_path):
    run_study(tmp_path, "fig4_6_speedup", "--quick", "--gpus", "0", env={"FAKE_NSBENCH_FAIL": "--grid 64x32x64"})
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert "No GPU rows" in md and "needs 1 GPU(s)" in md
    row = md_rows(md, ["[fig4_6_speedup](#fig4_6_speedup)"])
    # runs, ran, skipped, failed, unreadable, not run yet: 13 GPU runs skipped, 2 CPU runs at 64x32x64 failed
    assert row[2:8] == ["23", "8", "13", "2", "0", "0"]
    assert "| FAILED | - | - | exit 1: nsbench: error: fake failure |" in md


def test_a_truncated_result_is_named_and_the_report_finishes(tmp_path, capsys):
    run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "1")
    victim = sorted(glob.glob(str(tmp_path / "results" / "fig4_5_global_vs_optimal" / "testbox" / "*.json")))[0]
    text = open(victim).read()
    open(victim, "w").write(text[: len(text) // 3])
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert f"| UNREADABLE | - | - | {victim}: not valid JSON, truncated or damaged" in md
    assert md_rows(md, ["[fig4_5_global_vs_optimal](#fig4_5_global_vs_optimal)"])[2:7] == ["5", "4", "0", "0", "1"]
    assert "REPORT ERROR" not in md and (out / "fig4_5.png").exists()  # the other three runs are reported
    assert victim in capsys.readouterr().err
    assert "UNREADABLE" in (out / "index.html").read_text()


def test_old_and_new_result_schemas_give_the_same_report(tmp_path):
    tables = {}
    for schema in ("", "1"):
        tmp = tmp_path / f"schema{schema or 2}"
        tmp.mkdir()
        run_study(tmp, "fig4_5_global_vs_optimal", "--quick", "--gpus", "1", env={"FAKE_NSBENCH_SCHEMA": schema})
        study_report.build_report(str(tmp / "results"), STUDIES, "testbox", str(tmp / "out"))
        md = (tmp / "out" / "report.md").read_text()
        tables[schema] = [line for line in md.splitlines() if line.startswith("| ") and "quick-" not in line]
    assert tables[""] == tables["1"]


def test_without_results_for_the_machine_it_says_where_there_are_some(tmp_path, capsys):
    run_study(tmp_path, "tableA1_bandwidth", "--quick", "--gpus", "1")
    rc = study_report.main(["--results", str(tmp_path / "results"), "--machine", "nobox", "--studies", STUDIES])
    assert rc == 2
    err = capsys.readouterr().err
    assert "no results for machine 'nobox'" in err and "machines with results there: testbox" in err
    assert study_report.main(["--results", str(tmp_path / "results"), "--machine", "testbox", "--studies", STUDIES,
                              "--out", str(tmp_path / "out")]) == 0
    shutil.rmtree(tmp_path / "out")
