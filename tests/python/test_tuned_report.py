"""Issue 41's report section: the tuned recipe against every named recipe, grid by grid (reports/tuned_report.py,
studies/targets/tuned_vs_named.yaml), from `nsbench tune --json` results; end to end through run-study with the fake
nsbench, and its rules on hand-made results."""
import glob
import importlib.machinery
import importlib.util
import json
import os

from study_helpers import ROOT, STUDIES, known, md_rows, run_study
import study_report  # noqa: E402
import studylib  # noqa: E402
import tuned_report  # noqa: E402

PATH = os.path.join(STUDIES, "targets", "tuned_vs_named.yaml")
_loader = importlib.machinery.SourceFileLoader("tune_cache", os.path.join(ROOT, "scripts", "tune-cache"))
tune_cache = importlib.util.module_from_spec(importlib.util.spec_from_loader("tune_cache", _loader))
_loader.exec_module(tune_cache)


def test_the_study_parses_runs_tune_and_only_by_name():
    s = studylib.load_study(PATH, known())
    runs = studylib.expand(s, "quick")
    assert {r["command"] for r in runs} == {"tune"}
    assert {r["group"] for r in runs} == {"thibault", "cube256", "imle"}
    assert any(r["args"]["grid"] == "256x256x256" and r["args"]["precision"] == "float" for r in runs)
    assert PATH not in studylib.find_studies(STUDIES, "all")  # the quick suite does not pay for minutes of search
    assert PATH in studylib.find_studies(STUDIES, "all", reported=True)


def tune_result(grid, tuned_ms, tuned_iqr_ms, named, seconds=100.0, precision="float"):
    """A nsbench.tune/1 result: the tuned step and the named recipes' rows {name: (median ms, iqr ms)}."""
    nx, ny, nz = grid
    rows = [{"phase": "named", "what": "step", "candidate": n, "verdict": "pass", "reason": "", "median_s": m * 1e-3,
             "iqr_s": q * 1e-3} for n, (m, q) in named.items()]
    return {"schema": "nsbench.tune/1", "seconds": seconds, "candidates": rows,
            "key": {"solver": "projection", "precision": precision},
            "tuned": {"grid": {"nx": nx, "ny": ny, "nz": nz}, "chosen": "the search's choice",
                      "step_median_s": tuned_ms * 1e-3, "step_iqr_s": tuned_iqr_ms * 1e-3}}


def test_slower_only_beyond_the_larger_iqr():
    within = tune_result((256, 32, 256), 1.05, 0.02, {"best": (1.0, 0.06), "modern": (1.2, 0.01)})
    assert tuned_report.verdict(within["tuned"], tuned_report.confirmation_rows(within)) == "never slower"
    beyond = tune_result((256, 32, 256), 1.10, 0.02, {"best": (1.0, 0.03), "modern": (1.05, 0.01)})
    assert tuned_report.verdict(beyond["tuned"], tuned_report.confirmation_rows(beyond)) == \
        "slower than best, modern"


def test_a_named_recipe_that_did_not_run_is_left_out_and_none_at_all_is_said():
    r = tune_result((64, 32, 64), 1.0, 0.01, {"best": (1.1, 0.01)})
    r["candidates"].append({"phase": "named", "what": "step", "candidate": "modern", "verdict": "error",
                            "reason": "cannot launch", "median_s": None, "iqr_s": None})
    assert [n for n, _, _ in tuned_report.confirmation_rows(r)] == ["best"]
    r["candidates"] = []
    assert tuned_report.verdict(r["tuned"], []) == "no named recipe ran"


def test_the_three_minute_target_holds_only_for_the_float_cube():
    assert tuned_report.seconds_cell(tune_result((256, 256, 256), 1, 0, {}, seconds=150)) == "150 (met: <= 180)"
    assert tuned_report.seconds_cell(tune_result((256, 256, 256), 1, 0, {}, seconds=200)) == "200 (not met: <= 180)"
    assert tuned_report.seconds_cell(tune_result((256, 256, 256), 1, 0, {}, seconds=200, precision="double")) == "200"
    assert tuned_report.seconds_cell(tune_result((256, 32, 256), 1, 0, {}, seconds=200)) == "200"


def test_the_tuned_stages_under_stream_launches_split_the_gain_from_the_launch_mode():
    r = tune_result((128, 32, 128), 0.2, 0.01, {"best": (0.6, 0.01)})
    r["recipe"] = {"recipes": [{"name": "tuned", "launch": "graph", "poisson": "jacobi"}]}
    r["candidates"] += [{"phase": "step", "candidate": "launch=stream poisson=jacobi", "verdict": "pass",
                         "config": {"launch": "stream"}, "median_s": 0.5e-3, "iqr_s": 0.02e-3},
                        {"phase": "step", "candidate": "launch=graph poisson=jacobi", "verdict": "pass",
                         "config": {"launch": "graph"}, "median_s": 0.2e-3, "iqr_s": 0.01e-3}]
    cells = tuned_report.table_row(r)
    assert cells[3] == "the search's choice; graph launch; poisson jacobi"
    assert cells[5] == "0.5 (0.02)"  # the searched stages on a stream, as the named recipes launch
    r["candidates"] = [c for c in r["candidates"] if c["phase"] != "step"]
    assert tuned_report.table_row(r)[5] == "-"


def test_run_study_and_the_report_show_every_grid_against_every_named_recipe(tmp_path):
    done = run_study(tmp_path, "tuned_vs_named", "--quick", "--gpus", "1", env={"FAKE_TUNE_FACTOR": "1.2"})
    assert done.returncode == 0, done.stderr
    study_report.build_report(str(tmp_path / "results"), STUDIES, "testbox", str(tmp_path / "report"))
    md = (tmp_path / "report" / "report.md").read_text()
    assert "REPORT ERROR" not in md
    section = md[md.index("| solver | grid | precision | tuned recipe"):]
    # The fake's search is 1.2x the fastest named recipe ('best', 1.0x): the tuned recipe is then 'best' itself.
    cells = md_rows(section, ["projection", "256x32x256", "float"])
    assert cells[3] == "named recipe best, faster beyond the noise"
    assert cells[8] == "never slower"
    assert md_rows(section, ["projection", "256x256x256", "float"])[-1].endswith("(met: <= 180)")
    assert md_rows(md, ["quick-cube256", "ran"])[-1] == "PASS"  # the confirmation's reference check


def test_a_study_reads_the_committed_tune_cache_from_any_folder():
    run = {"command": "run", "args": {"recipe": "tuned", "tune-cache": "baselines/tuned"}, "mpi_ranks": 0}
    argv = studylib.command_line(run, "nsbench", "x.json")
    assert argv[argv.index("--tune-cache") + 1] == os.path.join(ROOT, "baselines", "tuned")


def test_every_committed_tuned_recipe_is_its_tune_results_recipe_in_nsbenchs_layout():
    """baselines/tuned/ is made by scripts/tune-cache from committed tune results, never by hand: each recipe names
    its result, sits in the folder of that result's key, and is that result's recipe."""
    cache = os.path.join(ROOT, "baselines", "tuned")
    recipes = glob.glob(os.path.join(cache, "**", "recipe.json"), recursive=True)
    assert recipes, "no committed tuned recipe"
    for path in recipes:
        with open(path) as f:
            recipe = json.load(f)
        source = os.path.join(ROOT, recipe.pop("from_result"))
        result = tune_cache.read_result(source)
        assert os.path.dirname(path) == os.path.join(cache, tune_cache.key_folder(result["key"])), path
        assert recipe == result["recipe"], f"{path} differs from the recipe of {source}"
