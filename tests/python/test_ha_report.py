"""The Ha, Park & You report sections (reports/ha.py) from the fake nsbench's tridiag rows, whose shares of
the copy bandwidth are known (fake_nsbench.FAMILY_FRACTIONS: the first variant of a kind 85%, the second 50%)."""
from fake_nsbench import FAMILY_FRACTIONS
from study_helpers import STUDIES, md_rows, run_study
import study_report  # noqa: E402
from common import fmt  # noqa: E402


def test_tridiag_bandwidth_tables_and_target(tmp_path):
    r = run_study(tmp_path, "tridiag_bandwidth", "--quick", "--gpus", "1")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert "REPORT ERROR" not in md
    best = md_rows(md, ["512x512x512", "double", "contiguous", "pcr_thomas_shared"])
    assert best[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    # 5 doubles an unknown at 85% of 4 TB/s: ms a batch and ns an unknown
    assert best[5] == fmt(5 * 8 * 512**3 / (0.85 * 4e12) * 1e3) and best[6] == fmt(5 * 8 / (0.85 * 4e12) * 1e9)
    assert md_rows(md, ["512x512x512", "float", "interleaved", "thomas_thread"])[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    assert md_rows(md, ["4096x256x128", "double", "pdd p4", "pdd_thread"])[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    verdict = md_rows(md, ["double"])
    assert verdict[1].startswith("contiguous/pcr_thomas_shared") and verdict[3] == "reached"
    assert (out / "tridiag_bandwidth_float.png").stat().st_size > 5000
