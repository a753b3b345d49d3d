"""reports/common.py: one form for results of every schema version, and one number format."""
import json

import pytest

import study_helpers  # noqa: F401  (puts reports/ on the path)
import common  # noqa: E402
import run_table  # noqa: E402
import stage_table  # noqa: E402


def test_variant_ids_of_both_forms_become_three_part():
    assert common.variant_id("pressure/jacobi_global_2d_zloop") == "projection/pressure/jacobi_global_2d_zloop"
    assert common.variant_id("projection/pressure/jacobi_global_2d_zloop") == "projection/pressure/jacobi_global_2d_zloop"
    assert common.variant_id("wave/update/global") == "wave/update/global"
    assert common.variant_name("projection/pressure/jacobi_global_2d_zloop") == "jacobi_global_2d_zloop"
    assert common.variant_name("halo/p2p_sync") == "p2p_sync"
    assert common.stage_of("pressure/jacobi_global_2d_zloop") == "pressure"


def old_run():
    return {"schema": "nsbench.run/1", "run": {},
            "timing": {"stages": {s: {"variant": f"{s}/v"} for s in ("reduce", "pressure", "momentum", "extra")}},
            "kernels": {"momentum/v:k<float>": {"registers": 1}},
            "profile": {"stages": {"momentum": {"variant": "momentum/v"}}}}


def test_an_old_run_result_gets_solver_ids_and_the_legacy_stage_order():
    r = common.normalize_result(old_run())
    assert r["run"]["solver"] == "projection"
    assert r["timing"]["stages"]["pressure"]["variant"] == "projection/pressure/v"
    assert r["profile"]["stages"]["momentum"]["variant"] == "projection/momentum/v"
    assert list(r["kernels"]) == ["projection/momentum/v:k<float>"]
    # the projection solver's step order, and a stage it does not know last rather than lost
    assert r["timing"]["stage_order"] == ["momentum", "pressure", "reduce", "extra"]


def test_a_new_run_result_keeps_its_own_stage_order():
    r = old_run()
    r["schema"] = "nsbench.run/2"
    r["timing"]["stage_order"] = ["extra", "momentum", "pressure", "reduce"]
    assert common.normalize_result(r)["timing"]["stage_order"] == ["extra", "momentum", "pressure", "reduce"]


def test_stage_rows_of_both_schemas_read_alike():
    old = {"schema": "nsbench.stages/1", "rows": [{"stage": "pressure", "variant": "pressure/a"}]}
    new = {"schema": "nsbench.stages/2", "rows": [{"solver": "projection", "stage": "pressure",
                                                   "variant": "projection/pressure/a"}]}
    assert common.normalize_result(old) == common.normalize_result(new) | {"schema": "nsbench.stages/1"}


def test_a_truncated_file_is_named(tmp_path):
    p = tmp_path / "r.json"
    p.write_text('{"schema": "nsbench.run/2", "timing": {"st')
    with pytest.raises(common.ResultFileError) as e:
        common.read_result(str(p))
    assert str(p) in str(e.value) and "truncated" in str(e.value)


@pytest.mark.parametrize("value, text", [(16812.4, "16812"), (2849634.0, "2849634"), (840, "840"), (146.2, "146"),
                                         (14.36, "14.4"), (1.0, "1"), (0.6914, "0.691"), (0.000123456, "0.000123"),
                                         (7.8, "7.8"), (99.96, "100"), (0.0, "0"), (None, "-"), (True, "yes")])
def test_numbers_print_plainly(value, text):
    assert common.fmt(value) == text


def test_numbers_with_more_digits():
    assert common.fmt(8.7193, 4) == "8.719" and common.fmt(1234.5, 4) == "1234"


def test_the_table_scripts_read_old_and_new_results(tmp_path, capsys):
    run = {"schema": "nsbench.run/2", "machine": {"gpu": {"name": "G"}},
           "run": {"case": "cavity", "grid": {"nx": 8, "ny": 8, "nz": 8}, "precision": "float", "recipe": "best",
                   "solver": "projection"},
           "checks": {"reference": {"performed": True, "pass": True}},
           "timing": {"step": {"median": 1e-3, "iqr": 1e-5}, "gflops": 10.0, "stage_order": ["b_stage", "a_stage"],
                      "stages": {"a_stage": {"per_step": {"median": 2e-4}}, "b_stage": {"per_step": {"median": 3e-4}}}}}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    assert run_table.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "| b_stage | a_stage |" in out and "| 300 | 200 |" in out  # the result's own stage order
    stages = {"schema": "nsbench.stages/1", "grid": {"nx": 8, "ny": 8, "nz": 8}, "precision": "float",
              "machine": {"gpu": {"name": "G", "copy_bandwidth": {"bytes_per_second": 1e12}}},
              "rows": [{"stage": "pressure", "variant": "pressure/a", "tuning": "t", "median_s": 1e-5, "iqr_s": 0,
                        "bytes_per_second": 1e11, "fraction_of_copy_bandwidth": 0.1}]}
    spath = tmp_path / "stages.json"
    spath.write_text(json.dumps(stages))
    assert stage_table.main([str(spath)]) == 0
    assert "| pressure | projection/pressure/a |" in capsys.readouterr().out
