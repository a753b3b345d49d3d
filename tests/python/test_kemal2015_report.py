"""The Kemal ranks report's options (exchange=neighbours, the multigrid stand-in) from the fake nsbench's results,
whose numbers are known (fake_nsbench.py multiblock_options)."""
import pytest

from study_helpers import STUDIES, md_rows, run_study
import study_report  # noqa: E402
from common import fmt  # noqa: E402

POINTS = 513 * 513 * 13  # the quick form's G3


@pytest.fixture(scope="module")
def ranks_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("kemal")
    r = run_study(tmp, "fig25_34_ranks", "--quick", "--gpus", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    study_report.build_report(str(tmp / "results"), STUDIES, "testbox", str(tmp / "out"))
    return (tmp / "out" / "report.md").read_text()


@pytest.mark.parametrize("kind,p,per_point", [("GPU", 2, 1e-9), ("GPU", 8, 1e-9), ("CPU", 8, 100e-9)])
def test_neighbour_messages_beside_the_allgather(ranks_report, kind, p, per_point):
    t = POINTS * per_point / p * 1e3  # ms; the fake's exchange changes only ifsum, bc and the counts
    row = md_rows(ranks_report, ["513x513x13", kind, str(p), "neighbours"])
    assert row[4:] == [fmt(t), fmt(0.03 * t), fmt(1000 * p * (p - 1)), fmt(p * (p - 1)),
                       fmt(t), fmt(0.015 * t), fmt(100 * p), fmt(p), fmt(1.0)]


def test_peer_bands_beside_the_allgather(ranks_report):
    t = POINTS * 1e-9 / 2 * 1e3  # the fake counts kemal-p2p's exchange as neighbours_p2p, else as neighbours
    row = md_rows(ranks_report, ["513x513x13", "GPU", "2", "neighbours_p2p"])
    assert row[4:] == [fmt(t), fmt(0.03 * t), fmt(2000), fmt(2), fmt(t), fmt(0.015 * t), fmt(200), fmt(2), fmt(1.0)]


@pytest.mark.parametrize("kind,per_point", [("GPU", 1e-9), ("CPU", 100e-9)])
def test_multigrid_stand_in_beside_the_single_grid(ranks_report, kind, per_point):
    t = POINTS * per_point * 1e3
    row = md_rows(ranks_report, ["513x513x13", kind, "1", "3"])
    assert row[4:] == [fmt(t), fmt(1.3 * t), fmt(t / 10), fmt(1.3)]
