"""The profiler-figure study (studies/gohari2012/profiler_figures.yaml, quick form: the paper's 1024^2 flow grid and
Table 3's 512x1024 grid) with the fake nsbench: with counters the
report prints the counters' numbers per node; without, the analytic model's, labelled "model"; the paper's
statements stand beside them."""
import pytest

from study_helpers import STUDIES, md_rows, run_study
import access_model  # noqa: E402
import study_report  # noqa: E402
from common import fmt  # noqa: E402


def report(tmp_path, counters):
    r = run_study(tmp_path, "profiler_figures", "--quick", "--gpus", "1",
                  env={"FAKE_NSBENCH_COUNTERS": "1" if counters else ""})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(tmp_path / "out"))
    md = (tmp_path / "out" / "report.md").read_text()
    assert "REPORT ERROR" not in md
    return md


def test_counters_per_node_and_the_paper_beside(tmp_path):
    md = report(tmp_path, counters=True)
    reg = md_rows(md, ["flow", "1024x1024", "regular", "stream", "global_2d:bx16_by16"])
    pres = md_rows(md, ["flow", "1024x1024", "present", "stream", "shared_1d:b256"])
    # the fake's counters: 0.5 (shared: 0.25) load requests a node of 5 sectors, 1/32 stores of 4 sectors
    assert reg[5:10] == ["counters", "0.5", "5", fmt(1 / 32), "4"]
    assert pres[6] == "0.25" and pres[14:16] == ["80", "0"]
    # DRAM = the byte model (32 B a node) over the call's kernel time (a stream call: step / 160 at 1 ns a node)
    bw = 32 * 1024 * 1024 / (1024 * 1024 * 1e-9 / 160)
    assert reg[10] == fmt(bw / 1e9) and reg[12] == fmt(100 * bw / 4e12)
    assert md_rows(md, ["grid", "512x1024", "present", "sweep", "shared_1d:b256"])[5] == "counters"
    # a step's requests, present over regular - 1: (vorticity + 20 stream + boundary) x 0.25 vs x 0.5, + stores
    per = (0.25 + 1 / 32) / (0.5 + 1 / 32) - 1
    cells = md_rows(md, ["flow solver", "present vs regular", "global memory requests", "-40%"])
    assert cells[6] == "1024x1024" and cells[7] == f"{fmt(100 * per)}% a step" and cells[8] == "counters / counters"
    assert md_rows(md, ["flow solver", "regular", "global memory throughput GB/s", "105.21"])[8] == "counters"


def test_without_counters_the_model_says_so(tmp_path):
    md = report(tmp_path, counters=False)
    pres = md_rows(md, ["flow", "1024x1024", "present", "stream", "shared_1d:b256"])
    m = access_model.model("stream", "streamvort/stream/shared_1d", "b256", 1024, 1024)
    assert pres[5] == "model" and pres[6] == fmt(m["ld_requests_per_node"]) and pres[7] == fmt(m["ld_sectors_per_request"])
    assert pres[14] == "-" and pres[15] == "0"  # no occupancy from a model; the staged slots are conflict-free
    reg = md_rows(md, ["flow", "1024x1024", "regular", "stream", "global_2d:bx16_by16"])
    assert reg[15] == "-"  # the regular traversal stages nothing in shared memory
    # the boundary stage has neither counters nor a model here
    with pytest.raises(StopIteration):
        md_rows(md, ["flow", "1024x1024", "regular", "boundary"])
    assert md_rows(md, ["flow solver", "present vs regular", "global memory requests", "-40%"])[8] == "model / model"
