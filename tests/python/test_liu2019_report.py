"""The Liu report (reports/liu2019.py) shows the full form of a run where the quick form timed the same thing."""
from study_helpers import ROOT  # noqa: F401  (puts reports/ on the path)
import liu2019  # noqa: E402


def _run(mode, stamp, step_s):
    return {"schema": "nsbench.run/1", "timestamp": stamp, "study": {"mode": mode},
            "run": {"solver": "imle", "grid": {"nx": 100, "ny": 100, "nz": 100}, "backend": "cpu_omp",
                    "recipe": "cpu-omp"},
            "timing": {"step": {"median": step_s}, "stages": {"mls": {"per_step": {"median": step_s / 2}}}}}


def _stages(mode, backend, seconds):
    return {"schema": "nsbench.stages/1", "study": {"mode": mode}, "backend": backend,
            "grid": {"nx": 100, "ny": 100, "nz": 100},
            "rows": [{"solver": "imle", "stage": "mls", "variant": "imle/mls/x", "median_s": seconds}]}


def test_the_full_form_wins_over_a_newer_quick_run_and_the_newest_run_within_a_form():
    results = {"full-new": _run("full", "2026-11-27T06:00:00Z", 2.0), "full-old": _run("full", "2026-11-27T05:00:00Z", 3.0),
               "quick-new": _run("quick", "2026-11-28T00:00:00Z", 1.0)}
    (step, parts), = liu2019.imle_runs(results).values()
    assert step == 2.0 and parts["mls"] == 1.0


def test_stage_rows_of_a_grid_timed_in_full_drop_the_quick_rows():
    results = {"q": _stages("quick", "cuda", 1.0), "f": _stages("full", "cuda", 5.0), "c": _stages("quick", "cpu_omp", 7.0)}
    rows = liu2019.imle_rows(results)
    assert sorted((r["_backend"], r["median_s"]) for r in rows) == [("cpu_omp", 7.0), ("cuda", 5.0)]


def test_a_runs_halo_time_comes_from_its_halo_timer():
    r = _run("full", "2026-11-27T06:00:00Z", 2.0)
    r["timing"]["halo"] = {"halo": {"per_step": {"median": 0.01}}}
    (step, parts), = liu2019.imle_runs({"r": r}).values()
    assert parts["halo"] == 0.01 and parts["mls"] == 1.0


def test_a_run_with_chosen_poisson_kernels_is_kept_apart_from_the_figures_runs():
    plain, cublas = _run("full", "2026-11-27T05:00:00Z", 2.0), _run("full", "2026-11-27T06:00:00Z", 3.0)
    cublas["run"]["poisson_kernels"] = {"poisson/cg_update": "separate_cublas", "poisson/apply_dot": "separate_cublas"}
    choice = liu2019.poisson_choice(cublas)
    assert choice == "poisson/apply_dot=separate_cublas, poisson/cg_update=separate_cublas"
    (step, _), = liu2019.imle_runs({"p": plain, "c": cublas}).values()  # the newer cuBLAS run does not replace it
    assert step == 2.0
    (step, _), = liu2019.imle_runs({"p": plain, "c": cublas}, choice).values()
    assert step == 3.0


class _Page:
    """The report page's table and paragraph calls, kept."""
    def __init__(self):
        self.tables, self.text = [], []

    def table(self, header, rows):
        self.tables.append((header, rows))

    def p(self, text):
        self.text.append(text)


def test_the_cg_of_chosen_poisson_kernels_is_its_own_labelled_row():
    def solver_run(backend, recipe, pressure_s, kernels=None):
        r = _run("full", "2026-11-27T06:00:00Z", 2 * pressure_s)
        r["run"].update(backend=backend, recipe=recipe, poisson_kernels=kernels or {})
        r["timing"]["sections"] = {"pressure": {"per_step": {"median": pressure_s}}}
        return r
    cublas = {"poisson/apply_dot": "separate_cublas", "poisson/cg_update": "separate_cublas"}
    results = {"cpu": solver_run("cpu_serial", "cpu-serial", 1.0), "gpu": solver_run("cuda", "paper", 0.01),
               "cublas": solver_run("cuda", "paper", 0.02, cublas), "rows": _stages("full", "cpu_serial", 7.0)}
    page = _Page()
    liu2019.liu_stage_speedup(page, {}, results, [], None, results)
    rows = {r[1]: r for r in page.tables[0][1]}
    plain = rows["CG (100 iterations, in the solver)"]
    chosen = rows["CG (100 iterations, in the solver) with poisson/apply_dot=separate_cublas, "
                  "poisson/cg_update=separate_cublas"]
    assert plain[6] == liu2019.fmt(100.0) and chosen[6] == liu2019.fmt(50.0)  # over the one-thread CG, 1 GPU
