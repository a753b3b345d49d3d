"""Issue 43's targets (studies/targets/stage_targets.yaml, reports/stage_targets.py): the study parses and expands,
every row is measured with >= 20 calls at its size, and the report's verdicts and derived figures on synthetic results."""
import gzip
import os
import re

import pytest

from study_helpers import STUDIES, known, md_rows, run_study
import study_report  # noqa: E402
import stage_targets  # noqa: E402
import studylib  # noqa: E402

PATH = os.path.join(STUDIES, "targets", "stage_targets.yaml")
COPY = 4e12
GPU = {"copy_bandwidth": {"bytes_per_second": COPY}, "compute_capability": "9.0", "sm_count": 132,
       "sm_clock_khz": 1980000}


def study():
    return studylib.load_study(PATH, known())


def test_the_study_parses_expands_and_times_every_row_20_times_or_more():
    s = study()
    quick, full = studylib.expand(s, "quick"), studylib.expand(s, "full")
    assert [r["args"] for r in quick] == [r["args"] for r in full]  # the quick form is the full form
    for r in full:
        calls = r["args"].get("samples") if r["command"] == "stages" else r["args"]["steps"]
        assert calls >= stage_targets.MIN_CALLS, r["id"]
    targets = stage_targets.load_targets(s)
    assert {t["group"] for t in targets} == {g["group"] for g in s["runs"]}  # every run serves a row, every row a run
    sizes = {r["group"]: r["args"]["grid"] for r in full}
    assert sizes["tridiag"] == sizes["momentum"] == "512x512x512" and sizes["kemal"] == "1033x1033x13"
    assert sizes["cg"] == sizes["solve"] == "256x256x256" and sizes["gohari"] == "4096x4096x1"
    assert sizes["imle_ccd"] == sizes["imle_mls"] == "201x201x201" and sizes["urban"] == "256x64x256"
    assert len(targets) == 19


@pytest.mark.parametrize("change, message", [
    ({"measure": "speed"}, "unknown measure 'speed'"),
    ({"group": "nowhere"}, "no run group 'nowhere'"),
    ({"target": {"above": 3}}, "target is {at_least: N} or {at_most: N}"),
    ({"stage": "lines_y"}, "needs the stage as solver/stage"),
    ({"colour": "red"}, "unknown key(s) ['colour']"),
])
def test_a_bad_target_row_is_named(change, message):
    s = study()
    s["targets"] = [dict(s["targets"][0], **change)]
    with pytest.raises(studylib.StudyError, match=re.escape(message)):
        stage_targets.load_targets(s)


def stage_result(group, rows, precision="double", grid=(512, 512, 512), params=None):
    return {"schema": "nsbench.stages/2", "precision": precision, "grid": dict(zip(("nx", "ny", "nz"), grid)),
            "machine": {"gpu": GPU}, "study": {"group": group, "params": params or {}}, "rows": rows}


def stage_row(variant, seconds, model_bytes=0.0, model_flops=0.0, tuning="b64", scheme=""):
    """A row whose calls took the given seconds (all kept as raw samples)."""
    s = sorted(seconds)
    return {"variant": variant, "tuning": tuning, "scheme": scheme, "samples": len(s), "raw_seconds": list(seconds),
            "median_s": s[len(s) // 2], "iqr_s": 0.0, "model_bytes": model_bytes, "model_flops": model_flops}


def run_result(group, method, step_seconds, count=20, checks=None, stages=None, precision="double",
               grid=(256, 256, 256), params=None):
    q1, median, q3 = step_seconds
    return {"schema": "nsbench.run/2", "machine": {"gpu": GPU}, "study": {"group": group, "params": params or {}},
            "run": {"precision": precision, "poisson_method": method, "grid": dict(zip(("nx", "ny", "nz"), grid)),
                    "jacobi": {"tolerance": 1e-6}, "recipe": "urban"},
            "timing": {"step": {"q1": q1, "median": median, "q3": q3, "iqr": q3 - q1, "count": count},
                       "stages": stages or {}},
            "checks": checks or {}}


def row_of(targets, name):
    return next(t for t in targets if t["row"] == name)


def test_copy_percent_is_the_best_variant_and_its_spread_comes_from_the_calls_quartiles():
    # 5 words x 512^3 x 8 bytes = 5.37 GB; 1.6 ms a call at 4 TB/s copy = 83.9% of copy
    data = 5 * 512 ** 3 * 8
    fast = [1.6e-3] * 18 + [1.5e-3, 1.7e-3, 1.6e-3, 1.6e-3]
    results = {"a": stage_result("tridiag", [stage_row("tridiag/lines_y/thomas_thread", [3.2e-3] * 30, data),
                                             stage_row("tridiag/lines_y/partition", fast, data, tuning="bx8_sz16")],
                                 params={"precision": "double"})}
    t = row_of(stage_targets.load_targets(study()), "tridiag/lines_y best, double")
    m, missing = stage_targets.measure(results, t)
    assert missing is None
    assert m["value"] == pytest.approx(100 * data / 1.6e-3 / COPY) and m["value"] == pytest.approx(83.886, rel=1e-4)
    assert m["what"] == "partition:bx8_sz16" and m["calls"] == 22
    assert m["low"] == pytest.approx(m["high"])  # the middle half of the calls all took 1.6 ms
    assert stage_targets.verdict(t, m, missing) == "met"
    results["a"]["rows"][1]["raw_seconds"] = [2e-3] * 22
    results["a"]["rows"][1]["median_s"] = 2e-3
    m, missing = stage_targets.measure(results, t)
    assert m["value"] == pytest.approx(67.1, rel=1e-3) and stage_targets.verdict(t, m, missing) == "not met"


def test_a_row_with_too_few_calls_or_no_result_is_not_measured_and_says_why():
    t = row_of(stage_targets.load_targets(study()), "tridiag/lines_y best, float")
    m, missing = stage_targets.measure({}, t)
    assert m is None and "no result of group 'tridiag', precision float" in stage_targets.verdict(t, m, missing)
    results = {"a": stage_result("tridiag", [stage_row("tridiag/lines_y/partition", [1e-3] * 10, 1e9)],
                                 precision="float", params={"precision": "float"})}
    m, missing = stage_targets.measure(results, t)
    assert stage_targets.verdict(t, m, missing) == "not measured: 10 calls (fewer than 20)"
    results["a"]["params"] = {}
    other = {"b": stage_result("tridiag", [stage_row("tridiag/contiguous/x", [1e-3] * 30, 1e9)], precision="float",
                               params={"precision": "float"})}
    assert "no row of tridiag/lines_y" in stage_targets.measure(other, t)[1]


def test_a_scheme_row_reads_only_its_scheme():
    t = row_of(stage_targets.load_targets(study()), "imle CC-CCD, y lines")
    rows = [stage_row("imle/ccd/transposed", [1e-4] * 30, 1e8, scheme="x_dirichlet"),
            stage_row("imle/ccd/transposed", [4e-5] * 30, 1e8, scheme="y_dirichlet")]
    m, _ = stage_targets.measure({"a": stage_result("imle_ccd", rows, grid=(201, 201, 201))}, t)
    assert m["value"] == pytest.approx(62.5) and m["what"] == "transposed:b64 (y_dirichlet)"


def test_fp64_peak_percent_against_the_gpu_record():
    # H200 record: 132 SMs x 64 FP64 FMA x 2 x 1.98 GHz = 33.45 TFLOP/s; 1e11 flops in 5 ms = 20 TFLOP/s = 59.8%
    t = row_of(stage_targets.load_targets(study()), "imle MLS (fused_register)")
    results = {"a": stage_result("imle_mls", [stage_row("imle/mls/fused_register", [5e-3] * 20, 1e9, 1e11)],
                                 grid=(201, 201, 201))}
    m, missing = stage_targets.measure(results, t)
    assert m["value"] == pytest.approx(100 * 1e11 / 5e-3 / (132 * 64 * 2 * 1.98e9)) and m["value"] == pytest.approx(59.79, rel=1e-3)
    assert stage_targets.verdict(t, m, missing) == "met"


def test_cg_iteration_takes_the_faster_method_at_11_words_a_point():
    # 11 x 8 bytes x 256^3 = 1.476 GB an iteration; 1000 iterations in 0.5 s = 0.5 ms: 2.95 TB/s = 73.8% of 4 TB/s
    t = row_of(stage_targets.load_targets(study()), "CG iteration (operator + dots + updates)")
    results = {"cg": run_result("cg", "cg", (0.59, 0.6, 0.61), checks={"poisson_iterations": 1000}),
               "dev": run_result("cg", "cg_device_check", (0.49, 0.5, 0.51), checks={"poisson_iterations": 1000})}
    m, missing = stage_targets.measure(results, t)
    assert m["value"] == pytest.approx(100 * 11 * 8 * 256 ** 3 / 0.5e-3 / COPY) and m["value"] == pytest.approx(73.82, rel=1e-3)
    assert (m["low"], m["high"]) == (pytest.approx(m["value"] * 0.5 / 0.51), pytest.approx(m["value"] * 0.5 / 0.49))
    assert m["what"].startswith("cg_device_check") and m["extra"] == "0.5 ms an iteration"
    assert stage_targets.verdict(t, m, missing) == "not met"


def test_sweep_equivalents_and_an_unreached_tolerance():
    t = row_of(stage_targets.load_targets(study()), "multigrid to 1e-6 (mg_graph:w130)")
    checks = {"jacobi_sweep_seconds": 1e-4, "poisson_relative_residual": 9e-7, "poisson_iterations": 8}
    results = {"mg": run_result("solve", "mg_graph:w130", (3.9e-3, 4e-3, 4.1e-3), checks=checks,
                                params={"poisson": "mg_graph:w130"})}
    m, missing = stage_targets.measure(results, t)
    assert (m["value"], m["low"], m["high"]) == (pytest.approx(40), pytest.approx(39), pytest.approx(41))
    assert stage_targets.verdict(t, m, missing) == "met"  # <= 40
    results["mg"]["checks"]["poisson_relative_residual"] = 2e-6
    assert stage_targets.verdict(t, *stage_targets.measure(results, t)).startswith("not met: tolerance 0.000001 not")
    fft = row_of(stage_targets.load_targets(study()), "FFT direct solve")
    assert stage_targets.measure(results, fft)[1].startswith("no result of group 'solve', poisson fft")


def test_step_over_model_at_the_copy_bandwidth():
    # stages' byte models a step: 2 GB x 1 call + 0.5 GB x 4 calls = 4 GB at 4 TB/s = 1 ms; a 2 ms step = 2x its model
    t = row_of(stage_targets.load_targets(study()), "urban whole step")
    stages = {"pressure": {"model": {"bytes": 0.5e9}, "calls_per_step": 4},
              "momentum": {"model": {"bytes": 2e9}, "calls_per_step": 1}}
    results = {"u": run_result("urban", None, (1.9e-3, 2e-3, 2.2e-3), count=200, stages=stages, precision="float",
                               grid=(256, 64, 256))}
    m, missing = stage_targets.measure(results, t)
    assert (m["value"], m["low"], m["high"]) == (pytest.approx(2.0), pytest.approx(1.9), pytest.approx(2.2))
    assert stage_targets.verdict(t, m, missing) == "not met"
    results["u"]["timing"]["step"]["count"] = 19
    assert stage_targets.measure(results, t)[1] == "19 calls (fewer than 20)"


def test_the_table_has_every_row_and_the_limiter_column_and_the_ncu_targets_name_the_best_variant():
    s = study()
    data = 5 * 512 ** 3 * 4
    results = {"a": stage_result("tridiag", [stage_row("tridiag/lines_y/partition", [1e-3] * 30, data, tuning="bx8_sz16")],
                                 precision="float", params={"precision": "float"})}
    s["targets"][0]["limiter"] = "registers: 12.5% occupancy (ncu/ncu_tridiag.txt)"
    s["targets"][1].pop("limiter", None)  # a row not profiled yet says so
    rows = stage_targets.table_rows(s, results)
    assert len(rows) == len(s["targets"]) and len(rows[0]) == len(stage_targets.HEADERS)
    assert rows[0][-1].startswith("registers") and rows[1][-1] == "not profiled yet"
    assert rows[0][2].startswith("67.1 % of copy (67.1-67.1)") and rows[0][-2] == "not met"
    assert rows[0][7] == ">= 80 % of copy" and rows[-1][7] == "<= 1.6 x byte model"
    assert all(r[-2].startswith("not measured: ") for r in rows[1:])
    lines = stage_targets.ncu_targets(s, results)
    assert lines[0] == "tridiag/lines_y:partition:bx8_sz16:float:512x512x512"
    assert "poisson/apply_dot:fused_atomic::double:256x256x256" in lines  # a whole-run row's own profile entry
    assert len(lines) == 1 + sum(1 for t in s["targets"] if "profile" in t)


def test_all_runs_leave_the_targets_out_and_the_report_shows_them(tmp_path):
    assert PATH not in studylib.find_studies(STUDIES, "all")  # the quick suite does not pay for it
    assert PATH in studylib.find_studies(STUDIES, "all", reported=True)
    assert studylib.find_studies(STUDIES, "stage_targets") == [PATH]
    done = run_study(tmp_path, "stage_targets", "--quick", "--gpus", "1")
    assert done.returncode == 0, done.stderr
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(tmp_path / "report"))
    md = (tmp_path / "report" / "report.md").read_text()
    section = md[md.index("| row | size | measured"):]
    assert "REPORT ERROR" not in md
    for t in stage_targets.load_targets(study()):  # every row of the issue, with a verdict and a limiter cell
        cells = md_rows(section, [t["row"], t["size"]])
        assert cells[-2] in ("met", "not met") or cells[-2].startswith("not measured: "), cells
        assert cells[-1] == t.get("limiter", "not profiled yet").replace("|", "\\|")


def test_every_limiter_cites_an_ncu_profile_that_is_committed():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for t in stage_targets.load_targets(study()):
        if "limiter" not in t:
            continue
        cited = re.findall(r"\(ncu: (\S+)\)$", t["limiter"])
        assert cited, f"{t['row']}: the limiter names no profile file: {t['limiter']}"
        assert os.path.isfile(os.path.join(root, cited[0])), f"{t['row']}: {cited[0]} is not in the tree"


def test_a_result_at_another_size_does_not_count():
    t = row_of(stage_targets.load_targets(study()), "imle CC-CCD, y lines")
    rows = [stage_row("imle/ccd/transposed", [4e-5] * 30, 1e8, scheme="y_dirichlet")]
    m, missing = stage_targets.measure({"a": stage_result("imle_ccd", rows, grid=(200, 200, 200))}, t)
    assert m is None and missing.startswith("no result of group 'imle_ccd' at 201x201x201")


def test_every_number_of_a_limiter_is_one_its_profile_states():
    """The limiter lines are read off ncu's text by a person: each percentage, register count, cycle count and
    eligible-warp count they quote must be a value the cited profile prints (at the line's precision)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for t in stage_targets.load_targets(study()):
        if "limiter" not in t:
            continue
        cited = re.findall(r"\(ncu: (\S+)\)$", t["limiter"])[0]
        with gzip.open(os.path.join(root, cited), "rt") as f:
            stated = [float(v.replace(",", "")) for v in re.findall(r"\d[\d,]*(?:\.\d+)?", f.read())]
        quoted = t["limiter"][:t["limiter"].rindex("(ncu:")]
        for m in re.finditer(r"(\d+(?:\.\d+)?)(?=%| registers| cycles| eligible)", quoted):
            digits = len(m.group(1).partition(".")[2])
            assert any(round(v, digits) == float(m.group(1)) for v in stated), \
                f"{t['row']}: {m.group(0)} is not in {cited}"
