"""Studies, the study runner and the report, with a fake nsbench whose numbers are known."""
import glob
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "reports"))
import studylib  # noqa: E402
import study_report  # noqa: E402

FAKE = os.path.join(HERE, "fake_nsbench.py")
STUDIES = os.path.join(ROOT, "studies")


def known():
    return json.loads(subprocess.run([sys.executable, FAKE, "list", "--json"], capture_output=True, text=True).stdout)


def run_study(tmp_path, *args, env=None):
    e = dict(os.environ, NSB_MPIRUN=os.path.join(HERE, "fake_mpirun.sh"), **(env or {}))
    return subprocess.run([sys.executable, os.path.join(ROOT, "reports", "run_study.py"), *args, "--nsbench", FAKE,
                           "--studies", STUDIES, "--results", str(tmp_path / "results"), "--machine-id", "testbox"],
                          capture_output=True, text=True, env=e, cwd=ROOT)


# ---------------------------------------------------------------- study files

def test_every_study_file_parses_and_expands():
    paths = studylib.find_studies(STUDIES, "all")
    assert len(paths) >= 9
    names = set()
    for p in paths:
        s = studylib.load_study(p, known())
        names.add(s["study"])
        for mode in ("quick", "full"):
            runs = studylib.expand(s, mode)
            assert runs, p
            assert len({r["id"] for r in runs}) == len(runs)
    for required in ("table4_1_cpu_gflops", "fig4_4_shared_vs_global", "fig4_5_global_vs_optimal", "fig4_6_speedup",
                     "fig4_8_scaling", "table4_2_block_shapes", "table4_4_registers", "tableA1_bandwidth", "roofline"):
        assert required in names


def test_matrix_expansion_and_quick_overrides():
    s = studylib.load_study(os.path.join(STUDIES, "thibault2009", "table4_1_cpu_gflops.yaml"))
    quick = studylib.expand(s, "quick")
    assert len(quick) == 4  # 2 backends x 2 grids
    assert {r["args"]["steps"] for r in quick} == {2}
    full = studylib.expand(s, "full")
    assert {r["args"]["steps"] for r in full} == {20}
    argv = studylib.command_line(quick[0], "nsbench", "/tmp/x.json")
    assert argv[:2] == ["nsbench", "run"] and "--json" in argv and "--quiet" in argv


def test_mpi_runs_go_through_mpirun_with_the_rank_count():
    s = studylib.load_study(os.path.join(STUDIES, "thibault2009", "fig4_8_scaling.yaml"))
    mpi = [r for r in studylib.expand(s, "quick") if r["group"] == "mpi"]
    assert mpi and all(r["mpi_ranks"] == 2 and r["gpus"] == 2 and "ranks" not in r["args"] for r in mpi)
    argv = studylib.command_line(mpi[0], "nsbench", "/tmp/x.json")
    assert "-np" in argv and argv[argv.index("-np") + 1] == "2" and "--ranks" not in argv


BAD = {
    "unknown key": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\ncolour: red\nruns: []\n",
                    "unknown key(s) ['colour']"),
    "unknown option": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                       "  - {group: g, command: run, args: {grdi: 8x8x8}}\n", "unknown nsbench run option(s) ['grdi']"),
    "bad grid": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                 "  - {group: g, command: run, args: {grid: 8x8}}\n", "bad grid '8x8'"),
    "unknown recipe": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                       "  - {group: g, command: run, args: {grid: 8x8x8, recipe: fastest}}\n", "unknown recipe 'fastest'"),
    "unknown variant": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                        "  - {group: g, command: run, args: {grid: 8x8x8, stage: 'pressure=nosuch'}}\n",
                        "unknown variant 'pressure/nosuch'"),
    "unknown halo": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                     "  - {group: g, command: run, args: {grid: 8x8x8, halo: smoke_signals}}\n",
                     "unknown halo variant 'smoke_signals'"),
    "bad steps": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\nruns:\n"
                  "  - {group: g, command: run, args: {grid: 8x8x8, steps: 0}}\n", "bad steps '0'"),
    "unknown report": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: pie\nruns: []\n", "unknown report 'pie'"),
    "missing csv": ("study: x\ntitle: t\nreproduces: r\nbaseline: b\nreport: roofline\npaper: {csv: nope.csv}\n"
                    "runs:\n  - {group: g, command: bandwidth}\n", "paper csv 'nope.csv' not found"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_study_files_name_the_problem(tmp_path, case):
    text, message = BAD[case]
    p = tmp_path / "bad.yaml"
    p.write_text(text)
    with pytest.raises(studylib.StudyError) as e:
        studylib.load_study(str(p), known())
    assert message in str(e.value)
    assert str(p) in str(e.value)


# ---------------------------------------------------------------- runner

def test_runner_runs_resumes_repeats_and_skips(tmp_path):
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert r.returncode == 0, r.stdout + r.stderr
    folder = tmp_path / "results" / "table4_1_cpu_gflops" / "testbox"
    files = sorted(os.listdir(folder))
    assert len(files) == 4 and all(f.endswith(".json") for f in files)
    assert "[4/4]" in r.stdout and "about" in r.stdout  # progress with an estimate of what is left

    again = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert again.stdout.count("done earlier, kept") == 4
    assert sorted(os.listdir(folder)) == files  # nothing rewritten

    rep = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", "--again")
    assert rep.returncode == 0
    assert len(os.listdir(folder)) == 8  # the repeats sit beside the first results

    gpu = run_study(tmp_path, "fig4_5_global_vs_optimal", "--quick", "--gpus", "0")
    skipped = glob.glob(str(tmp_path / "results" / "fig4_5_global_vs_optimal" / "testbox" / "*.skipped.json"))
    assert len(skipped) == 4 and "SKIPPED" in gpu.stdout
    assert "needs 1 GPU" in json.load(open(skipped[0]))["reason"]


def test_runner_records_a_failure_and_resumes_after_it(tmp_path):
    r = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0", env={"FAKE_NSBENCH_FAIL": "1024x32x1024"})
    assert r.returncode == 1
    folder = tmp_path / "results" / "table4_1_cpu_gflops" / "testbox"
    failed = glob.glob(str(folder / "*.failed.json"))
    assert len(failed) == 2 and "fake failure" in json.load(open(failed[0]))["output_tail"]
    assert not glob.glob(str(folder / "*.tmp")) and not glob.glob(str(folder / ".*partial"))
    r2 = run_study(tmp_path, "table4_1_cpu_gflops", "--quick", "--gpus", "0")
    assert r2.returncode == 0 and r2.stdout.count("done earlier, kept") == 2
    assert not glob.glob(str(folder / "*.failed.json"))


def test_unknown_study_lists_the_known_ones(tmp_path):
    r = run_study(tmp_path, "fig9_9")
    assert r.returncode != 0 and "no study named 'fig9_9'" in r.stderr and "roofline" in r.stderr


# ---------------------------------------------------------------- report

@pytest.fixture(scope="module")
def full_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    r = run_study(tmp, "all", "--quick", "--gpus", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp / "out"
    study_report.build_report(str(tmp / "results"), STUDIES, "testbox", str(out))
    return tmp, out


def test_report_has_every_study_table_and_plot(full_report):
    _, out = full_report
    md = (out / "report.md").read_text()
    html = (out / "index.html").read_text()
    assert "REPORT ERROR" not in md
    for png in ("fig4_4.png", "fig4_5.png", "fig4_6.png", "fig4_8.png", "fig4_8_model.png", "tableA1.png",
                "roofline.png", "table4_2.png"):
        assert (out / png).stat().st_size > 5000, png
        assert png in html
    for title in ("Table 4.1", "Fig. 4.4", "Fig. 4.5", "Fig. 4.6", "Fig. 4.8", "Table 4.2", "Table 4.4", "Table A.1"):
        assert title in md
    assert "Scaling model" in md and "model error" in md


def test_report_numbers_are_the_inputs_medians(full_report):
    _, out = full_report
    md = (out / "report.md").read_text()
    # fake nsbench: 1 ns/point on a GPU, 100 ns on one core, 25 ns on all cores, divided by the ranks
    row = next(l for l in md.splitlines() if l.startswith("| 1024x32x1024 | 1 GPU, best |"))
    cells = [c.strip() for c in row.split("|")[1:-1]]
    assert cells[2] == study_report.fmt(1024 * 32 * 1024 * 1e-9 * 1e3)
    assert cells[3] == study_report.fmt(1024 * 32 * 1024 * 100e-9 * 1e3)
    assert cells[4] == "100" and cells[6] == "25"
    two = next(l for l in md.splitlines() if l.startswith("| 1024x32x1024 | 2 GPUs, best |"))
    assert [c.strip() for c in two.split("|")[1:-1]][4] == "200"
    # strong scaling: the fake halves the time on two ranks, so the efficiency is 100%
    strong = next(l for l in md.splitlines() if l.startswith("| strong | 512x512x512 | 2 | threads | p2p_sync |"))
    assert "| 100 |" in strong


def test_report_says_what_was_skipped(tmp_path):
    run_study(tmp_path, "fig4_6_speedup", "--quick", "--gpus", "0")
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert "No GPU rows" in md and "needs 1 GPU(s)" in md
    assert "| 64x32x64 | " in md
