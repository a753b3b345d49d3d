"""The committed reports are what the report code makes of the committed results (issue 17 part 6): each
results/report/<machine>/report.md is made again from results/<study>/<machine>/ and every table row must
be the same. A difference means the code now writes other numbers, or the committed report is stale:
regenerate it with `scripts/py reports/study_report.py --results results --machine <machine>`."""
import os

import pytest

from study_helpers import ROOT, STUDIES
import study_report  # noqa: E402

RESULTS = os.path.join(ROOT, "results")
MACHINES = sorted(m for m in os.listdir(os.path.join(RESULTS, "report"))
                  if os.path.isfile(os.path.join(RESULTS, "report", m, "report.md")))


def table_rows(md):
    """(section title, table row) for every table row of a report: its numbers and what they stand beside."""
    rows, section = [], ""
    for line in md.splitlines():
        if line.startswith("## "):
            section = line[3:]
        elif line.startswith("| ") and not line.startswith("|---"):
            rows.append((section, line))
    return rows


def test_there_are_committed_reports():
    assert "nvidia-h200-x2" in MACHINES


@pytest.mark.parametrize("machine", MACHINES)
def test_committed_report_is_made_from_the_committed_results(tmp_path, machine):
    study_report.build_report(RESULTS, STUDIES, machine, str(tmp_path))
    with open(os.path.join(RESULTS, "report", machine, "report.md")) as f:
        committed = table_rows(f.read())
    made = table_rows((tmp_path / "report.md").read_text())
    differ = [(c, m) for c, m in zip(committed, made) if c != m]
    assert not differ and len(committed) == len(made), (
        f"results/report/{machine}/report.md differs from what the code makes of results/*/{machine}/ "
        f"({len(committed)} vs {len(made)} table rows); first difference:\n committed: {differ[0][0] if differ else '-'}"
        f"\n made now:  {differ[0][1] if differ else '-'}")
