"""Thibault's Table 4.3 section (reports/urban.py): per-GPU seconds per 1000 steps and the modelled 4-GPU
column, from the fake nsbench's per-rank sections (each stage 1/8 of the step, the p exchange 1/20)."""
from study_helpers import STUDIES, md_rows, run_study
import study_report  # noqa: E402
from common import fmt  # noqa: E402


def test_table4_3_two_gpu_rows_and_the_four_gpu_model(tmp_path):
    r = run_study(tmp_path, "table4_3_per_gpu", "--quick", "--gpus", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert "REPORT ERROR" not in md
    assert "4 GPUs (model)" in md
    t = 256 * 64 * 256 * 1e-9 / 2  # the fake GPU: 1 ns a point, split over two ranks
    pressure = md_rows(md, ["pressure"])  # the first table with the pressure row: a two-GPU one
    assert pressure[1] == fmt(t / 8 * 1000) and pressure[5] == fmt(t / 8 * 1000 / 2)
    exchange = md_rows(md, ["exchange p in each Jacobi sweep"])
    assert exchange[3] == fmt(t / 20 * 1000) and exchange[5] == fmt(t / 20 * 1000 * 2)
