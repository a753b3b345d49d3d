"""Issue 37's hardware expectation of a speedup: the GPU's measured copy bandwidth over the CPU's measured triad
bandwidth on the CPU run's threads, and the flag where a speedup is over twice it (reports/common.py; the
sections' rows show both: tests/python/test_speedup_rows.py)."""
import math

from study_helpers import REPORTS  # noqa: F401  (puts reports/ on the path)
import common


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
