"""Issue 37's speedup rows (reports/common.py speedup_cells) as the sections show them - Thibault's fig4_6 and
fig4_11 urban, Kemal's Figs. 14-24 routines - and the table of the CPU stages' shares of the CPU's bandwidth
(reports/cpu_shares.py), from small fake results: a CPU whose triad is 10 GB/s on one core and 25 GB/s on four,
a GPU whose copy is 3000 GB/s, so the expectation is 300x over one core and 120x over four. With the CPU's FP64 rate
measured (50 GFLOP/s on one core, 200 on four) and a GPU of 30 TFLOP/s FP64 peak, the machine balances are 5 flop/B
(one core), 8 (four) and 10 (the GPU): a row of 20 flop/B is compute-bound on every side."""
from study_helpers import REPORTS  # noqa: F401  (puts reports/ on the path)
import common
import cpu_shares
import kemal2015
import liu2019
import study_report
import urban
from report_page import Section

TRIADS = {1: 10e9, 4: 25e9}
FP64 = {1: 50e9, 4: 200e9}
GRID = {"nx": 256, "ny": 64, "nz": 256}
# 100 SMs x 64 FP64 FMA a clock x 2 x 2.34375 GHz = 30 TFLOP/s (common.peak_flops)
GPU_FP64 = {"compute_capability": "9.0", "sm_count": 100, "sm_clock_khz": 2343750}


def machine(gpu_copy=None, triads=TRIADS, fp64=None):
    rows = [dict({"threads": t, "triad": {"bytes_per_second": b}}, **({"fp64": {"flops_per_second": fp64[t]}}
                                                                        if fp64 else {})) for t, b in (triads or {}).items()]
    return {"cpu": {"bandwidth": {"by_threads": rows} if triads else {}, "llc_bytes": 32 * 2 ** 20},
            "gpu": dict(GPU_FP64, copy_bandwidth={"bytes_per_second": gpu_copy}) if gpu_copy else None}


def run(group, backend, step_s, threads=1, recipe="best", stages=None, gpu_copy=None, fp64=None):
    """A run result: its step (median, IQR a tenth of it) and `stages` {name: (seconds a call, bytes a call[, flops
    a call])}; `fp64`: the CPU's measured FP64 rates by threads (None: a result from before they were measured)."""
    timing = {"step": {"median": step_s, "iqr": step_s / 10}, "stages": {}}
    for name, (call_s, nbytes, *flops) in (stages or {}).items():
        timing["stages"][name] = {"per_call": {"median": call_s, "iqr": call_s / 10},
                                  "model": dict({"bytes": nbytes}, **({"flops": flops[0]} if flops else {})),
                                  "calls_per_step": 1}
    return {"schema": "nsbench.run/2", "study": {"group": group},
            "run": {"backend": backend, "threads": threads, "grid": dict(GRID), "recipe": recipe},
            "machine": machine(gpu_copy, TRIADS if backend != "cuda" else None, fp64), "timing": timing, "checks": {}}


def tables(section):
    """{first header: {(first cell, second cell): row}} of a section's tables."""
    out = {}
    for block in section.blocks:
        if block[0] == "table":
            out[block[1][0] + "|" + block[1][1]] = (block[1], {(r[0], r[1]): r for r in block[2]})
    return out


def urban_results():
    step_bytes = {"pressure": (1.0, 2e9)}  # the CPU step moves 2 GB: 2 GB/s on one core, 20% of its triad
    return {"s": run("cpu", "cpu_serial", 1.0, stages=step_bytes),
            "o": run("cpu", "cpu_omp", 0.1, threads=4, stages=step_bytes),
            "g": run("one_gpu", "cuda", 0.001, recipe="urban", gpu_copy=3000e9, stages={"pressure": (0.001, 2e9)})}


def test_cells_hold_both_times_with_their_iqr_the_speedups_the_expectation_and_the_flag_with_its_cause():
    r = urban_results()
    cells = common.speedup_cells(r["g"], r["s"], r["o"])
    assert cells[:7] == ["1 (IQR 0.1)", "1000 (IQR 100)", "1000", "100 (IQR 10)", "100", "300", "120"]
    assert cells[7] == "copy / triad (no flop model)"
    # 1000x against 300x expected over one core: flagged, with the CPU side's share of its triad as the cause
    assert cells[8] == ("vs 1 core: 3.3x the bandwidth ratio: the CPU side moves its modelled bytes at 20% of its "
                        "triad bandwidth")
    assert common.speedup_headers(4)[3:5] == ["4 cores ms/step (IQR)", "speedup vs 4 cores"]
    assert len(common.speedup_headers(4)) == len(cells)


def test_results_without_the_cpus_bandwidth_show_dashes_not_numbers():
    r = urban_results()
    for cpu in (r["s"], r["o"]):
        cpu["machine"]["cpu"]["bandwidth"] = {}  # a result from before nsbench measured the CPU (the H100 ones)
    assert common.speedup_cells(r["g"], r["s"], r["o"])[5:] == ["-", "-", "-", "-"]


def test_urban_rows_beside_the_papers_four_over_one():
    s = Section("fig4_11_urban_speedup", "t")
    urban.urban_speedup(s, {}, urban_results(), [{"quantity": "speedup_4gpu_over_1gpu_256x256x64", "value": "2.6",
                                                   "source": "thesis"}], None, {})
    header, rows = tables(s)["grid|GPUs"]
    assert header[2:11] == common.speedup_headers(4) and header[-1].endswith("as the paper measured")
    one = rows[("256x64x256", "1 GPU (urban)")]
    assert one[2:9] == ["1 (IQR 0.1)", "1000 (IQR 100)", "1000", "100 (IQR 10)", "100", "300", "120"]
    assert one[10].startswith("vs 1 core: 3.3x the bandwidth ratio")
    assert all(len(row) == len(header) for row in rows.values())
    assert rows[("256x64x256", "4 GPUs (model)")][-1] == "2.6"  # the paper's own comparison stays


def test_kemal_routine_rows_per_call_against_one_core(tmp_path):
    results = {"c": run("cpu", "cpu_serial", 1.0, stages={"lamvis": (1e-3, 1e6), "flux": (1e-3, 1e6)}),
               "g": run("gpu", "cuda", 0.01, recipe="kemal", gpu_copy=3000e9,
                        stages={"lamvis": (1e-6, 1e6), "flux": (1e-5, 1e6)})}
    for r in results.values():
        r["run"]["grid"] = {"nx": 129, "ny": 129, "nz": 13}
    s = Section("fig14_24_routines", "t")
    kemal2015.kemal_routines(s, {}, results, [{"routine": "lamvis", "speedup_1gpu_vs_1cpu": "10",
                                                  "qualifier": "at least: text"}], str(tmp_path), {})
    header, rows = tables(s)["routine|grid"]
    assert header[3] == "1 core us/call (IQR)" and header[5] == "all cores (not run) us/call (IQR)"
    lamvis = rows[("lamvis (Fig. 16)", "129x129x13")]
    assert lamvis[2:10] == ["1 (IQR 0.1)", "1000 (IQR 100)", "1000", common.NOT_RUN, "-", "300", "-",
                            "copy / triad (no flop model)"]
    assert lamvis[10] == ("vs 1 core: 3.3x the bandwidth ratio: the CPU side moves its modelled bytes at 10% of its "
                          "triad bandwidth")
    assert lamvis[-1] == "10 (at least)"
    assert rows[("flux (Fig. 20)", "129x129x13")][10] == "no"  # 100x against 300x expected: no flag


def test_fig4_6_rows_come_from_the_same_cells(tmp_path):
    results = {"s": run("cpu", "cpu_serial", 1.0), "o": run("cpu", "cpu_omp", 0.1, threads=4),
               "g": run("gpu1", "cuda", 0.002, gpu_copy=3000e9)}
    s = Section("fig4_6_speedup", "t")
    study_report.speedup(s, {}, results, [], str(tmp_path), {})
    header, rows = tables(s)["grid|GPUs, recipe"]
    assert header == ["grid", "GPUs, recipe", *common.speedup_headers(4), "check"]
    row = rows[("256x64x256", "1 GPU, best")]
    assert row[2:11] == ["2 (IQR 0.2)", "1000 (IQR 100)", "500", "100 (IQR 10)", "50", "300", "120",
                         "copy / triad (no flop model)", "no"]


def test_kemal_routine_rows_over_all_cores_name_the_core_count(tmp_path):
    results = {"c": run("cpu", "cpu_serial", 1.0, stages={"lamvis": (1e-3, 1e6)}),
               "a": run("cpu_all", "cpu_omp", 0.1, threads=4, stages={"lamvis": (2e-4, 1e6)}),
               "g": run("gpu", "cuda", 0.01, recipe="kemal", gpu_copy=3000e9, stages={"lamvis": (1e-6, 1e6)})}
    for r in results.values():
        r["run"]["grid"] = {"nx": 129, "ny": 129, "nz": 13}
    s = Section("fig14_24_routines", "t")
    kemal2015.kemal_routines(s, {}, results, [], str(tmp_path), {})
    header, rows = tables(s)["routine|grid"]
    assert header[5:7] == ["4 cores us/call (IQR)", "speedup vs 4 cores"]
    assert rows[("lamvis (Fig. 16)", "129x129x13")][2:9] == ["1 (IQR 0.1)", "1000 (IQR 100)", "1000", "200 (IQR 20)",
                                                             "200", "300", "120"]


def compute_rows(intensity, fp64=FP64):
    """One step of one stage moving 1 GB at `intensity` flop/B: the GPU in 1 ms, one core in 2 s, four in 0.5 s."""
    def stage(seconds):
        return {"pressure": (seconds, 1e9, intensity * 1e9)}
    return (run("gpu1", "cuda", 1e-3, gpu_copy=3000e9, stages=stage(1e-3)),
            run("cpu", "cpu_serial", 2.0, stages=stage(2.0), fp64=fp64),
            run("cpu", "cpu_omp", 0.5, threads=4, stages=stage(0.5), fp64=fp64))


def test_a_compute_bound_row_expects_the_fp64_ratio_and_says_so():
    cells = common.speedup_cells(*compute_rows(20))
    # 30 TFLOP/s over 50 GFLOP/s on one core, over 200 on four; not the bandwidths' 300 and 120
    assert cells[2:7] == ["2000", "500 (IQR 50)", "500", "600", "150"]
    assert cells[7] == ("vs 1 core: FP64 rates (20 flop/B: compute-bound on the CPU, balance 5; compute-bound on the "
                        "GPU, balance 10); vs 4 cores: FP64 rates (20 flop/B: compute-bound on the CPU, balance 8; "
                        "compute-bound on the GPU, balance 10)")
    assert cells[8] == ("vs 1 core: 3.3x the FP64 ratio: the CPU side does its modelled flops at 20% of its measured FP64 "
                        "rate; vs 4 cores: 3.3x the FP64 ratio: the CPU side does its modelled flops at 20% of its "
                        "measured FP64 rate")


def test_a_row_between_the_balances_expects_the_rooflines_ratio():
    cells = common.speedup_cells(*compute_rows(6))
    # one core: compute-bound (6 >= 5), the GPU memory-bound (6 < 10): (6 / 50e9) / (1 / 3000e9) = 360;
    # four cores: memory-bound on both (6 < 8): the bandwidth ratio, 120
    assert cells[5:7] == ["360", "120"]
    assert cells[7] == ("vs 1 core: roofline, mixed (6 flop/B: compute-bound on the CPU, balance 5; memory-bound on "
                        "the GPU, balance 10); vs 4 cores: copy / triad (6 flop/B: memory-bound on the CPU, balance 8; "
                        "memory-bound on the GPU, balance 10)")


def test_a_result_without_the_cpus_fp64_rate_keeps_the_bandwidth_ratio_and_says_it_was_not_measured():
    cells = common.speedup_cells(*compute_rows(20, fp64=None))
    assert cells[5:7] == ["300", "120"]
    assert cells[7] == "copy / triad (20 flop/B; FP64 expectation: not measured on this host)"


def liu_run(group, backend, step_s, threads=None, recipe="cpu", gpu_copy=None):
    r = run(group, backend, step_s, threads=threads, recipe=recipe, gpu_copy=gpu_copy)
    r["run"].update(solver="imle", grid={"nx": 100, "ny": 100, "nz": 100})
    return r


def test_liu_fig8_rows_over_one_core_and_all_cores_or_say_one_was_not_run():
    results = {"g": liu_run("gpu", "cuda", 0.01, recipe="paper", gpu_copy=3000e9),
               "a": liu_run("cpu", "cpu_omp", 0.2, threads=4)}
    paper = [{"nc": "100", "gpus": "1", "speedup_vs_12thread_cpu": "7", "grid_points": "101^3"}]
    s = Section("liu_solver_speedup", "t")
    liu2019.liu_solver_speedup(s, {}, results, paper, None, {})
    header, rows = tables(s)["grid (cells)|GPU recipe"]
    assert header[2:11] == common.speedup_headers(4)
    assert rows[("100x100x100", "paper")][3:7] == [common.NOT_RUN, "-", "200 (IQR 20)", "20"]
    results["o"] = liu_run("cpu_one", "cpu_serial", 2.0, threads=1)
    s = Section("liu_solver_speedup", "t")
    liu2019.liu_solver_speedup(s, {}, results, paper, None, {})
    assert tables(s)["grid (cells)|GPU recipe"][1][("100x100x100", "paper")][3:7] == ["2000 (IQR 200)", "200",
                                                                                       "200 (IQR 20)", "20"]


def stages_result(threads, rows):
    return {"schema": "nsbench.stages/2", "threads": threads, "grid": {"nx": 64, "ny": 64, "nz": 64},
            "precision": "float", "machine": machine(), "rows": rows}


def stage_row(stage, gbs, share, model_bytes, scheme=""):
    return {"stage": stage, "variant": f"projection/{stage}/cpu_serial", "scheme": scheme, "median_s": 1e-3,
            "iqr_s": 1e-4, "bytes_per_second": gbs * 1e9, "model_bytes": model_bytes,
            "fraction_of_cpu_triad_bandwidth": share}


def test_cpu_shares_table_on_one_core_and_on_all_cores():
    gpu_rows = [{"stage": "pressure", "variant": "projection/pressure/jacobi", "median_s": 1e-4,
                 "bytes_per_second": 1e12, "fraction_of_copy_bandwidth": 0.5}]  # a GPU row: not in the table
    all_results = {"a": {"r1": stages_result(1, [stage_row("divergence", 5, 0.5, 1e9),
                                                 stage_row("pressure", 12, 1.2, 1e6, "euler")])},
                   "b": {"r2": stages_result(1, gpu_rows)}}
    sec = cpu_shares.section(all_results)
    header, rows = tables(sec)["study|stage"]
    assert header[-4:] == ["% of 1-core triad", "% of 4-core triad", "cache", "issue 37's target (own threads)"]
    assert rows[("a", "divergence")][2:] == ["cpu_serial", 1, "64x64x64", "float", "1000 (IQR 100)", "5", "50", "20",
                                             "-", "met (>= 50%)"]
    assert rows[("a", "pressure")][2] == "cpu_serial (euler)"
    assert rows[("a", "pressure")][-2].startswith("fits in the LLC")  # its 120% is the cache's
    assert rows[("a", "pressure")][-1] == "-"  # and not judged
    assert len(rows) == 2


def test_the_streaming_targets_judge_dram_rows_on_one_core_and_on_all_cores_only():
    r1 = stages_result(1, [])
    r4 = stages_result(4, [])
    dram = 1e9  # more than the fake machine's last-level cache
    assert cpu_shares.target_verdict(r1, stage_row("divergence", 4, 0.49, dram), 4) == "not met (>= 50%)"
    assert cpu_shares.target_verdict(r4, stage_row("correction", 20, 0.69, dram), 4) == "not met (>= 70%)"
    assert cpu_shares.target_verdict(r4, stage_row("momentum", 20, 0.71, dram, "ab2"), 4) == "met (>= 70%)"
    assert cpu_shares.target_verdict(r4, stage_row("momentum", 20, 0.9, dram, "eddy"), 4) == "-"  # not streaming
    assert cpu_shares.target_verdict(stages_result(2, []), stage_row("pressure", 9, 0.9, dram), 4) == "-"  # 2 of 4


def test_cpu_shares_says_so_in_one_line_where_no_result_has_them():
    sec = cpu_shares.section({"a": {"r": stages_result(1, [])}})
    assert not tables(sec)
    assert [b[0] for b in sec.blocks] == ["p"] and "No CPU stage row" in sec.blocks[0][1]
