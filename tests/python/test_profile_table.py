"""reports/profile_table.py on the profiling results of a real H200 run and on synthetic NVTX runs: the
tables must carry the numbers of the files, computed the documented way."""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "reports"))
import profile_table  # noqa: E402

# A real profiled run (session 3 on 2 x H200; the session logs are on the dev-logs branch), kept as a fixture.
PROFILED = os.path.join(ROOT, "tests", "python", "data", "profile_best_256x256x256_float.json")


def test_profile_rows_are_the_files_numbers(tmp_path):
    shutil.copy(PROFILED, tmp_path)
    with open(PROFILED) as f:
        r = json.load(f)
    profile_table.main([str(tmp_path)])
    text = (tmp_path / "README.md").read_text()
    s = r["profile"]["stages"]["pressure"]
    row = next(line for line in text.splitlines() if line.startswith("| pressure |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[2] == f"{s['event_median_s'] * 1e6:.2f}"
    assert cells[3] == f"{s['kernel_median_s'] * 1e6:.2f}"
    assert cells[4] == f"{100 * (s['event_median_s'] - s['kernel_median_s']) / s['event_median_s']:.1f}%"
    assert cells[8] == f"{s['dram_bytes'] / s['model_bytes']:.3f}"
    sectors = s["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] / s["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
    assert cells[11] == f"{sectors:.2f}"


def test_missing_counters_are_said_not_hidden(tmp_path):
    with open(PROFILED) as f:
        r = json.load(f)
    r["profile"]["counters"] = {"performed": False, "reason": "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"}
    for s in r["profile"]["stages"].values():
        for k in [k for k in s if k.startswith("dram") or "__" in k]:
            del s[k]
    (tmp_path / "p.json").write_text(json.dumps(r))
    profile_table.main([str(tmp_path)])
    text = (tmp_path / "README.md").read_text()
    assert "counters pass not made: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" in text
    row = next(line for line in text.splitlines() if line.startswith("| momentum |"))
    assert row.count("| - |") >= 3


def test_nvtx_table_compares_means_of_medians(tmp_path):
    base = {"schema": "nsbench.run/1",
            "run": {"case": "cavity", "grid": {"nx": 8, "ny": 2, "nz": 8}, "precision": "float", "recipe": "best",
                    "timed_steps": 500}}
    for i, (mode, med) in enumerate([("off", 1.0e-3), ("on", 1.01e-3), ("off", 1.02e-3), ("on", 1.03e-3)]):
        r = json.loads(json.dumps(base))
        r["run"]["nvtx"] = mode == "on"
        r["timing"] = {"step": {"median": med}}
        (tmp_path / f"nvtx_{mode}_{i}.json").write_text(json.dumps(r))
    profile_table.main([str(tmp_path)])
    text = (tmp_path / "README.md").read_text()
    assert "| off | 2 | 1.0000, 1.0200 | 1.0100 |" in text
    assert "| on | 2 | 1.0100, 1.0300 | 1.0200 |" in text
    assert f"on / off = {1.02 / 1.01:.4f}" in text
    assert "spread of all runs is 3.0%" in text
