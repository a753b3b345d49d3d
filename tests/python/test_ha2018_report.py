"""The Ha, Park & You report sections (reports/ha2018.py) from the fake nsbench's tridiag rows, whose shares of
the copy bandwidth are known (fake_nsbench.FAMILY_FRACTIONS: the first variant of a kind 85%, the second 50%)."""
import os

from fake_nsbench import COPY_BANDWIDTH, FAMILY_FRACTIONS, PEER_LINK
from study_helpers import ROOT, STUDIES, md_rows, run_study
import study_report  # noqa: E402
import ha2018_comm_model as cm  # noqa: E402
from common import fmt  # noqa: E402


def _report(tmp_path):
    """The report made of the results under tmp_path: (folder, report.md's text)."""
    out = tmp_path / "out"
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(out))
    md = (out / "report.md").read_text()
    assert "REPORT ERROR" not in md
    return out, md


def _quick_report(tmp_path, study, gpus="1"):
    """The study's quick form run by the fake nsbench on `gpus` GPUs and the report made of it."""
    r = run_study(tmp_path, study, "--quick", "--gpus", gpus)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    return _report(tmp_path)


def _full_report(tmp_path, study, gpus="1"):
    """The study's full form run by the fake nsbench on `gpus` GPUs and the report made of it."""
    r = run_study(tmp_path, study, "--full", "--gpus", gpus)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    return _report(tmp_path)


def test_tridiag_bandwidth_tables_and_target(tmp_path):
    out, md = _full_report(tmp_path, "tridiag_bandwidth")  # the full form: 512^3 in both precisions
    best = md_rows(md, ["512x512x512", "double", "contiguous", "pcr_thomas_shared"])
    assert best[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    # 5 doubles an unknown at 85% of 4 TB/s: ms a batch and ns an unknown
    assert best[5] == fmt(5 * 8 * 512**3 / (0.85 * 4e12) * 1e3) and best[6] == fmt(5 * 8 / (0.85 * 4e12) * 1e9)
    assert md_rows(md, ["512x512x512", "float", "interleaved", "thomas_thread"])[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    assert md_rows(md, ["4096x64x128", "double", "pdd p4", "pdd_thread"])[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    verdict = md_rows(md, ["double"])
    assert verdict[1].startswith("contiguous/pcr_thomas_shared") and verdict[3] == "reached"
    assert (out / "tridiag_bandwidth_float.png").stat().st_size > 5000


def test_tridiag_bandwidth_quick_form_judges_float_at_512_and_keeps_double_at_the_paper_size(tmp_path):
    """Issue 36's quick form: the 512^3 batch in float only (its double rows are the full form's), double at the
    paper's 4096x64x128; the target table says which precision the quick form did not run."""
    _, md = _quick_report(tmp_path, "tridiag_bandwidth")
    assert md_rows(md, ["float"])[3] == "reached"
    assert md_rows(md, ["double"])[1:] == ["-", "-", "not run"]
    assert md_rows(md, ["4096x64x128", "double", "pdd p4", "pdd_thread"])[-1] == fmt(100 * FAMILY_FRACTIONS[0])
    assert not any(line.startswith("| 512x512x512 | double |") for line in md.splitlines())


def test_fracstep_step_time_table_against_the_paper(tmp_path):
    """Table 1 rows: the fake GPU takes 1 ns a cell a step, so ns/cell/sub-step is 1/3; the paper's row is its CSV's;
    every one of the solver's 7 sections (6 stages and the Poisson solve) is 1/8 of the step (12.5%)."""
    out, md = _quick_report(tmp_path, "table1_step_time")
    row = md_rows(md, ["256x256x256"])
    cells = 256**3
    assert row[2] == fmt(cells * 1e-9) and row[3] == fmt(1 / 3)
    assert row[5] == fmt(0.67) and row[6] == fmt(0.67 / cells / 3 * 1e9)
    assert md_rows(md, ["3072x256x768"])[-1] == "not run"  # not in the quick grids
    # the share table: the row of a grid that holds exactly its 7 section shares
    share_rows = [[c.strip() for c in line.split("|")[1:-1]] for line in md.splitlines()
                  if line.startswith("| 512x256x256 |")]
    shares = [row for row in share_rows if len(row) == 8]
    assert shares and shares[0][1:] == [fmt(12.5)] * 7
    assert (out / "fracstep_table1.png").stat().st_size > 5000


def test_fracstep_step_time_measured_on_two_gpus(tmp_path):
    """Table 1's p = 2 columns: the fake's V2 on 2 real ranks with shared factors takes 1.125 x half the V0 step
    (1 ns a cell), so E(2) = 1 / 1.125; the runs-used column names each side's recipe (and V2's form)."""
    import glob
    import json
    out, md = _quick_report(tmp_path, "table1_step_time", "2")
    cells = 256**3
    row = md_rows(md, ["256x256x256"])
    t2 = 1.125 * cells * 1e-9 / 2
    assert row[8] == fmt(t2) and row[9] == fmt(2 * t2 / cells / 3 * 1e9) and row[10] == fmt(1 / 1.125)
    assert row[11].endswith(" / tiled, shared factors")
    assert "p = 2 is MEASURED" in md
    # a faster V0 of the other recipe is the p = 1 column's, but E(2) stays against V0 of the p = 2 run's recipe
    (v0_global,) = glob.glob(str(tmp_path / "results" / "table1_step_time" / "*" / "*-gpu1-grid256x256x256.json"))
    d = json.load(open(v0_global))
    d["timing"]["step"]["median"] /= 2
    json.dump(d, open(v0_global, "w"))
    out, md = _report(tmp_path)
    row = md_rows(md, ["256x256x256"])
    assert row[2] == fmt(cells * 1e-9 / 2) and row[10] == fmt(1 / 1.125) and row[11] == "global / tiled, shared factors"


def _emulated_step(link, grid, p):
    """T(p) by the formula of reports/ha2018_scaling.py on the fake's numbers: the fake GPU takes 1 ns a cell a step;
    a V0 run's rhs, adi_x, adi_z, divergence, correct take 1/8 of its step each and fft 1/16; a V2 run's virtual rank
    phases t / 100 / p each (four of them without the exchange)."""
    nx, ny, nz = grid
    cells = nx * ny * nz
    slab = cells / p * 1e-9
    local = slab * (5 / 8 + 1 / 16)
    ranks = 2 * 4 * cells * 1e-9 / 100 / p
    comm = 3 * (cm.t_pdd(link, nx, nz, p) + cm.t_ppt(link, nx, nz, p) + cm.t_y_halo(link, nx, nz, p))
    return local + ranks + comm


def test_table1_p4_emulated_against_the_model(tmp_path):
    out, md = _quick_report(tmp_path, "table1_p4_emulated")
    assert "REPORT ERROR" not in md and "EMULATED" in md
    link = cm.find_link(os.path.join(ROOT, "results"))
    row = md_rows(md, ["256x256x256"])
    t = _emulated_step(link, (256, 256, 256), 4)
    assert row[2] == fmt(t) and row[4] == fmt(4 * t / 256**3 / 3 * 1e9)
    t_p100 = _emulated_step(cm.P100_NVLINK1, (256, 256, 256), 4)
    assert row[5] == fmt(t_p100) and t_p100 > t
    assert row[-3] == fmt(0.67)
    slab_form, v2_form = row[-1].split(" / ")  # the runs used: recipe, and V2's split solves' form
    assert slab_form in ("global", "tiled") and v2_form.endswith("factors")
    assert md_rows(md, ["3072x256x768"])[2] == "-"  # not in the quick grids


def borrowed_label(link):
    """How the report names a link it took from a committed machine's results (the fake machine measured none)."""
    return f"the link measured on {link['path'].split(os.sep)[2]} (none measured here)"


def test_the_borrowed_link_names_its_machine_never_this_machine(tmp_path):
    out, md = _quick_report(tmp_path, "fig5_components_emulated")
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    assert not any(line.startswith("| this machine's link") for line in rows)
    assert any(line.startswith("| the link measured on ") for line in rows)


def test_fig5_components_efficiency_and_shares(tmp_path):
    out, md = _quick_report(tmp_path, "fig5_components_emulated")
    link = cm.find_link(os.path.join(ROOT, "results"))
    g = (1024, 256, 64)
    t1 = g[0] * g[1] * g[2] * 1e-9 * 7 / 8  # V0: rhs, adi_x, adi_y, adi_z, divergence, correct 1/8; fft, tdma_c 1/16
    verdict = md_rows(md, [borrowed_label(link)])
    assert verdict[1] == fmt(t1 / (4 * _emulated_step(link, g, 4))) and verdict[2] == fmt(0.89)
    assert md_rows(md, ["P100 NVLink 1"])[1] == fmt(t1 / (4 * _emulated_step(cm.P100_NVLINK1, g, 4)))
    assert (out / "fracstep_fig5_speedup.png").stat().st_size > 5000
    assert "Runs used, the fastest of each: V0 1024x256x64: " in md and "V2 p = 4 1024x256x64: " in md


def _fig3_local(cells):
    """A rank's local transpose work a step by the fake's pack_copy_unpack rows (fake_nsbench.transpose_rows): each
    local pass reads and writes the field (cells x words x 8 B) at the copy bandwidth; a sub-step 3 real fields and
    1 complex one each way, 3 sub-steps: (momentum, Poisson)."""
    one = 2 * cells * 8 / COPY_BANDWIDTH
    return 3 * 2 * 3 * one, 3 * 2 * 1 * (2 * one)


def test_fig3_transpose_share(tmp_path):
    """V1's share = (measured local transposes + modelled links) / (that + the measured z-slab step)."""
    out, md = _quick_report(tmp_path, "fig3_v1_transpose_model")
    slab = 1024 * 256 * 64
    compute = slab * 1e-9
    momentum, poisson = _fig3_local(slab)
    here = cm.find_link(os.path.join(ROOT, "results"))
    for name, link in (("P100 NVLink 1", cm.P100_NVLINK1), (borrowed_label(here), here)):
        row = md_rows(md, ["1024x256x256", "1024x256x64", name])
        tr = 3 * cm.t_transposes(link, 1024 * 256 * 256, 4)
        total = compute + momentum + poisson + tr
        assert row[3] == fmt(compute * 1e3) and row[4] == fmt((momentum + poisson) * 1e3) and row[5] == fmt(tr * 1e3)
        assert row[6] == fmt(100 * (tr + momentum + poisson) / total)
        assert row[7] == fmt(100 * (momentum + poisson) / total) and row[8] == fmt(100 * tr / total)
        assert row[9] == fmt(100 * (0.6 * tr + momentum) / total) and row[-1] == fmt(46)
    assert "MEASURED" in md and "MODEL" in md


def test_fig3_without_transposes_says_not_run(tmp_path):
    """A z-slab run without the transposes' rows (an older result set): the links alone, the local part 'not run'."""
    r = run_study(tmp_path, "fig3_v1_transpose_model", "--quick", "--gpus", "1")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    for f in (tmp_path / "results").rglob("*.json"):
        if "transpose" in f.name:
            f.unlink()
    out, md = _report(tmp_path)
    row = md_rows(md, ["1024x256x256", "1024x256x64", "P100 NVLink 1"])
    compute = 1024 * 256 * 64 * 1e-9
    tr = 3 * cm.t_transposes(cm.P100_NVLINK1, 1024 * 256 * 256, 4)
    assert row[4] == "not run" and row[6] == fmt(100 * tr / (tr + compute))


def test_fig3_all_to_all_measured_at_p2(tmp_path):
    """The ranks_peer group (2 GPUs): rank 0's all-to-all (the fake: one message over fake_nsbench.PEER_LINK) against
    the model's message for this machine's link."""
    out, md = _quick_report(tmp_path, "fig3_v1_transpose_model", "2")
    cells = 1024 * 256 * 64
    link = cm.find_link(os.path.join(ROOT, "results"))
    for kind, workload, words in (("transpose_zx", "p2", 1), ("transpose_xz", "p2_complex", 2)):
        row = md_rows(md, ["1024x256x64", kind, workload])
        got = PEER_LINK[0] + cells * words * 8 / 4 / PEER_LINK[1]
        model = cm.message_time(link, cells * words * 8 / 4)
        assert row[3] == fmt(got * 1e3) and row[4] == fmt(model * 1e3) and row[5] == fmt(got / model)
        assert row[6] == fmt(2 * cells * words * 8 / 2 / COPY_BANDWIDTH * 1e3)


def test_e2_two_gpus_measured_efficiency(tmp_path):
    """E(2) = T(V0, 1 GPU) / (2 T(V2, 2 ranks)): the fake's V2 on 2 real ranks takes 1.25 x half the V0 step, its
    sections half V0's (so each component's E(2) is 1), its ghost rows (y halo) 1/20 of half the V0 step."""
    out, md = _quick_report(tmp_path, "e2_two_gpus", "2")
    t1 = 1024 * 256 * 64 * 1e-9
    t2 = 1.25 * t1 / 2
    for recipe in ("global", "tiled"):  # a pair a recipe (the fake's times do not depend on it)
        row = md_rows(md, ["1024x256x64", recipe, "per_line"])  # the run without split_factors: per line
        assert row[4] == fmt(t1 * 1e3) and row[5] == fmt(t2 * 1e3) and row[6] == fmt(t1 / t2)
        assert row[7] == fmt(0.8) and row[8] == "not reached"
    # V2 with its split factors shared (the fake's step 1.125 x half V0's): a row of its own, read apart
    t2s = 1.125 * t1 / 2
    for recipe in ("global", "tiled"):  # both recipes, each against V0 of its own recipe
        row = md_rows(md, ["1024x256x64", recipe, "shared"])
        assert row[4] == fmt(t1 * 1e3) and row[5] == fmt(t2s * 1e3) and row[7] == fmt(t1 / (2 * t2s))
    assert "Each component on 1024x256x64, recipe tiled, V2's split factors per_line" in md
    assert "Each component on 1024x256x64, recipe global, V2's split factors shared" in md
    assert md_rows(md, ["ADI-Y"])[1:] == [fmt(t1 / 8 * 1e3), fmt(t1 / 16 * 1e3), fmt(1.0)]
    assert md_rows(md, ["TDMA-C"])[1:] == [fmt(t1 / 16 * 1e3), fmt(t1 / 32 * 1e3), fmt(1.0)]
    assert md_rows(md, ["y halo"])[1:] == [fmt(0.0), fmt(t1 / 2 / 20 * 1e3), "-"]
    rest = md_rows(md, ["rest of the step"])
    assert rest[1:3] == [fmt(t1 / 8 * 1e3), fmt((t2 - 7 / 16 * t1 - t1 / 40) * 1e3)]
    assert md_rows(md, ["tdma_c", "0"])[2:] == [fmt(t1 / 2 / 100 * 1e3)] * 5
    assert md_rows(md, ["adi_y", "1"])[2:] == [fmt(2 * t1 / 2 / 100 * 1e3)] * 5  # each rank's own median


def test_e2_keeps_nccl_runs_apart(tmp_path):
    """A V2 run whose GPU ranks talked by NCCL (run.gpu_messages) is its own E(2) row, not the newest of the peer ones:
    a copy of the shared-factor run marked nccl and twice as slow gives a second row at half the efficiency."""
    import glob
    import json
    r = run_study(tmp_path, "e2_two_gpus", "--quick", "--gpus", "2")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr
    (shared,) = glob.glob(str(tmp_path / "results" / "e2_two_gpus" / "*" / "*shared_factors-recipeglobal*.json"))
    d = json.load(open(shared))
    d["run"]["gpu_messages"] = "nccl"
    d["timestamp"] = "9999"  # the newest: it would win the peer row if the key ignored gpu_messages
    d["timing"]["step"]["median"] *= 2
    json.dump(d, open(shared.replace(".json", "-nccl.json"), "w"))
    out, md = _report(tmp_path)
    t1 = 1024 * 256 * 64 * 1e-9
    peer = md_rows(md, ["1024x256x64", "global", "shared"])
    nccl = md_rows(md, ["1024x256x64", "global", "shared, messages by NCCL"])
    assert peer[7] == fmt(t1 / (2 * 1.125 * t1 / 2)) and nccl[7] == fmt(t1 / (2 * 2.25 * t1 / 2))


def test_e2_v1_is_a_row_of_its_own(tmp_path):
    """V1 on 2 real z-slab ranks (group v1_two_gpus, both recipes) is its own row, against V0 of its recipe, whatever
    V2's split factors: the fake's V1 step is 1.1 x half V0's; its components name the z halo and the all-to-all."""
    out, md = _quick_report(tmp_path, "e2_two_gpus", "2")
    t1 = 1024 * 256 * 64 * 1e-9
    t2 = 1.1 * t1 / 2
    for recipe in ("global", "tiled"):
        row = md_rows(md, ["1024x256x64", recipe, "V1: z-slabs, all-to-all transposes"])
        assert row[4] == fmt(t1 * 1e3) and row[5] == fmt(t2 * 1e3) and row[7] == fmt(t1 / (2 * t2))
        assert row[8] == "reached"  # 1 / 1.1 = 0.909
    assert "Each component on 1024x256x64, recipe tiled, V1 (z-slabs, all-to-all transposes)" in md
    assert md_rows(md, ["of which all-to-all (in ADI-Z and FFT)"])[1:3] == ["-", fmt(t1 / 2 / 10 * 1e3)]
    assert md_rows(md, ["z halo"])[1:3] == [fmt(0.0), fmt(t1 / 2 / 40 * 1e3)]


def test_e2_keeps_v2_async_apart(tmp_path):
    """V2-async (group v2_async_two_gpus: recipe tiled, shared factors, NCCL) is a row of its own beside V2 with the
    same recipe, factors and transport (run.variant in the key), each against V0 of the tiled recipe."""
    out, md = _quick_report(tmp_path, "e2_two_gpus", "2")
    t1 = 1024 * 256 * 64 * 1e-9
    t2s = 1.125 * t1 / 2  # the fake's step with shared factors, whatever the variant
    v2 = md_rows(md, ["1024x256x64", "tiled", "shared, messages by NCCL"])
    v2_async = md_rows(md, ["1024x256x64", "tiled", "shared, messages by NCCL, V2-async"])
    for row in (v2, v2_async):
        assert row[4] == fmt(t1 * 1e3) and row[5] == fmt(t2s * 1e3) and row[7] == fmt(t1 / (2 * t2s))
