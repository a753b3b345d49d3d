"""scripts/report-screenshot.sh: the picture holds the whole page, however tall (issue 39: a fixed 16,000 px
window cut the 34,000 px CPU report, and 18 of its 33 studies never appeared). Needs Debian's chromium; without
it the test skips and says so."""
import os
import shutil
import subprocess

import matplotlib.image as mpimg
import numpy as np
import pytest

from study_helpers import ROOT

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(BROWSER is None, reason="no chromium here (apt-get install chromium)")
def test_a_page_taller_than_16000_px_is_pictured_to_its_end(tmp_path):
    report = tmp_path / "report"
    report.mkdir()
    (report / "index.html").write_text(
        '<html><body style="margin:0"><div style="height:20000px;background:#fff"></div>'
        '<div style="height:300px;background:#f00"></div></body></html>')
    out = tmp_path / "page.png"
    r = subprocess.run([os.path.join(ROOT, "scripts", "report-screenshot.sh"), str(report), str(out), "8000"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "the page is 20300 px tall" in r.stdout and "WARNING" not in r.stderr
    img = mpimg.imread(out)
    assert img.shape[0] >= 20300
    red = np.where((img[:, :, 0] > 0.9) & (img[:, :, 1] < 0.1))[0]
    assert red.min() == pytest.approx(20000, abs=2) and red.max() >= 20290  # the red block at the end is there
    pages = sorted(p.name for p in tmp_path.glob("page-*.png"))
    assert pages == ["page-00.png", "page-01.png", "page-02.png"]  # 8000 px pages, the last one holding the block
