"""Issue 37's hardware expectation of a speedup: the GPU's measured copy bandwidth over the CPU's measured triad
bandwidth on the CPU run's threads, and the flag where a speedup is over twice it (reports/common.py; the
fig4_6 table in reports/study_report.py shows both where the results carry both bandwidths)."""
import math

from study_helpers import REPORTS  # noqa: F401  (puts reports/ on the path)
import common
import study_report


def cpu_bandwidth(triad_by_threads):
    return {"by_threads": [{"threads": t, "copy": {"bytes_per_second": 2 * b}, "triad": {"bytes_per_second": b}}
                           for t, b in triad_by_threads.items()]}


def cpu_run(backend, threads, step_s, triads={1: 10e9, 4: 25e9}):
    return {"run": {"backend": backend, "threads": threads, "grid": {"nx": 8, "ny": 8, "nz": 8}, "recipe": backend},
            "machine": {"cpu": {"bandwidth": cpu_bandwidth(triads)}, "gpu": None},
            "timing": {"step": {"median": step_s}}, "checks": {}}


def gpu_run(step_s, copy=3000e9):
    return {"run": {"backend": "cuda", "grid": {"nx": 8, "ny": 8, "nz": 8}, "recipe": "best"},
            "machine": {"cpu": {}, "gpu": {"copy_bandwidth": {"bytes_per_second": copy}}},
            "timing": {"step": {"median": step_s}}, "checks": {}}


def test_expectation_is_gpu_copy_over_cpu_triad_on_the_runs_threads():
    assert math.isclose(common.bandwidth_expectation(gpu_run(1), cpu_run("cpu_serial", 0, 1)), 300)
    assert math.isclose(common.bandwidth_expectation(gpu_run(1), cpu_run("cpu_omp", 4, 1)), 120)
    assert common.bandwidth_expectation(gpu_run(1), cpu_run("cpu_omp", 8, 1)) is None  # 8 threads not measured
    old = cpu_run("cpu_serial", 0, 1)
    del old["machine"]["cpu"]["bandwidth"]  # a result from before nsbench measured the CPU
    assert common.bandwidth_expectation(gpu_run(1), old) is None


def test_a_speedup_over_twice_the_expectation_is_flagged():
    assert common.speedup_flag(500, 300) == ""
    assert common.speedup_flag(601, 300).startswith("2.0x the bandwidth ratio")
    assert common.speedup_flag(None, 300) == common.speedup_flag(5, None) == "-"


def test_speedup_table_gains_the_expectation_columns_only_where_measured():
    header = ["grid", "GPUs, recipe", "GPU ms/step", "1 core ms/step", "speedup vs 1 core", "4 cores ms/step",
              "speedup vs all cores", "check"]
    g = gpu_run(0.001)
    cpu1, cpun = {"8x8x8": cpu_run("cpu_serial", 0, 1.0)}, {"8x8x8": cpu_run("cpu_omp", 4, 0.1)}
    rows = [["8x8x8", "1 GPU, best", "1", "1000", "1000", "100", "100", "ok"]]
    h, r = study_report.with_bandwidth_expectation(header, rows, [g], cpu1, cpun, 4)
    assert h[-4:] == ["expected vs 1 core (copy / triad)", "expected vs 4 cores", "flag (over 2x expected)", "check"]
    assert r[0][-4:-2] == ["300", "120"]
    assert r[0][-2].startswith("3.3x the bandwidth ratio")  # 1000x over one core against 300x expected
    del cpu1["8x8x8"]["machine"]["cpu"]["bandwidth"], cpun["8x8x8"]["machine"]["cpu"]["bandwidth"]
    assert study_report.with_bandwidth_expectation(header, rows, [g], cpu1, cpun, 4) == (header, rows)
