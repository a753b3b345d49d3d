"""The communication model of Ha et al. (reports/ha2018_comm_model.py): the notes' message sizes (Sec. 6.4, numbers worked
there by hand), alpha + bytes / B, and the link read from a tableA1_bandwidth result."""
import json
import math
import os

import study_helpers  # noqa: F401  (puts reports/ on the path)
import ha2018_comm_model as m  # noqa: E402

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LINK = {"name": "test", "alpha_s": 2e-6, "bandwidth_Bps": 100e9}


def test_the_notes_volumes():
    # notes Sec. 6.4: PDD 37.7 MB a rank a sub-step for 4096 x 128, PPT 17.0 MB contributed (R2C),
    # 51 MB received at p = 4; a global transpose of 134M cells 201 MB out of each rank at p = 4
    assert round(m.pdd_bytes(4096, 128) / 1e6, 1) == 37.7
    assert round(m.ppt_contribution_bytes(4096, 128) / 1e6, 1) == 17.0
    assert round(3 * m.ppt_contribution_bytes(4096, 128) / 1e6) == 51
    assert round(m.transpose_bytes(4096 * 256 * 128, 4) / 1e6) == 201
    count, each = m.pdd_messages(4096, 128)
    assert count * each == m.pdd_bytes(4096, 128)
    count, each = m.pdd_messages(4096, 128, kappa=16)  # kappa-batched: 3 Nz / kappa messages
    assert count == 24 and count * each == m.pdd_bytes(4096, 128)


def test_times_are_latency_plus_bytes_over_bandwidth():
    assert m.message_time(LINK, 1e6) == 2e-6 + 1e-5
    assert m.t_pdd(LINK, 100, 10, 1) == 0 and m.t_ppt(LINK, 100, 10, 1) == 0 and m.t_transposes(LINK, 1000, 1) == 0
    assert math.isclose(m.t_pdd(LINK, 100, 10, 4), 3 * (2e-6 + 3 * 100 * 10 * 8 / 100e9))
    s = 8 * 100 * 6 * 8  # 8 words, 100 x (10 / 2 + 1) systems, double
    assert math.isclose(m.t_ppt(LINK, 100, 10, 4), 3 * (2e-6 + s / 100e9))
    assert math.isclose(m.t_transposes(LINK, 1600, 4), 10 * 3 * (2e-6 + 1600 * 8 / 16 / 100e9))
    # PDD is independent of p beyond 2, the all-gather grows as p - 1, the transposes' volume as (p - 1) / p^2
    assert m.t_pdd(LINK, 4096, 128, 2) == m.t_pdd(LINK, 4096, 128, 8)
    assert m.t_ppt(LINK, 4096, 128, 8) > m.t_ppt(LINK, 4096, 128, 4) > m.t_ppt(LINK, 4096, 128, 2)


def test_link_from_a_bandwidth_result(tmp_path):
    rows = [{"transfer": "p2p_uni", "bytes": 8, "median_s": 5e-6},
            {"transfer": "p2p_uni", "bytes": 1 << 26, "median_s": 5e-6 + (1 << 26) / 400e9},
            {"transfer": "d2d", "bytes": 8, "median_s": 1.0}]
    result = {"machine": {"gpu": {"count": 2, "name": "G"}}, "rows": rows}
    link = m.link_from_bandwidth(result)
    assert link["alpha_s"] == 5e-6 and math.isclose(link["bandwidth_Bps"], 400e9)
    assert m.link_from_bandwidth({"rows": rows[2:]}) is None  # one GPU: no peer copy
    d = tmp_path / "tableA1_bandwidth" / "box"
    d.mkdir(parents=True)
    (d / "quick-bandwidth.json").write_text(json.dumps(result))
    assert m.find_link(str(tmp_path))["path"].endswith("box/quick-bandwidth.json")


def test_a_committed_gpu_pair():
    """results/tableA1_bandwidth holds a machine of two GPUs with a peer copy (2 x H200 when this was written:
    4.8 us, 393 GB/s); its link is an NVLink's, microseconds and hundreds of GB/s."""
    link = m.find_link(os.path.join(REPO, "results"))
    assert link is not None and link["name"].startswith("2 x ")
    assert 1e-6 < link["alpha_s"] < 1e-5 and 100e9 < link["bandwidth_Bps"] < 900e9
