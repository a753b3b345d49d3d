"""The CPU stages' shares of the CPU's measured bandwidth (issue 37, item 3): every CPU row of `nsbench stages`
results on a machine (rows with fraction_of_cpu_triad_bandwidth, harness/stage_bench.cpp) against the CPU's
STREAM triad bandwidth on one core and on all cores (machine.cpu.bandwidth, harness/cpu_bandwidth.cpp)."""
import common
from common import fmt
from report_page import Section

HEADERS = ["study", "stage", "variant (workload)", "threads", "grid", "precision", "us/call (IQR)", "GB/s",
           "% of 1-core triad"]


def cpu_stage_rows(all_results):
    """[(study, stages result, row)] of every CPU stage row that carries its share of the CPU's triad bandwidth."""
    out = []
    for study, results in sorted(all_results.items()):
        for rid, r in sorted(results.items()):
            if not common.is_schema(r, "stages"):
                continue
            for row in r.get("rows", []):
                if row.get("fraction_of_cpu_triad_bandwidth") is not None:
                    out.append((study, r, row))
    return out


def all_core_threads(result):
    """The most threads the CPU's bandwidth was measured on (the machine's all cores), or None."""
    rows = (((result.get("machine") or {}).get("cpu") or {}).get("bandwidth") or {}).get("by_threads", [])
    return max((row["threads"] for row in rows), default=None)


def share(result, row, threads):
    """The row's achieved bandwidth over the CPU's triad on `threads` threads: the harness's own fraction where
    the row ran on those threads, else computed from machine.cpu.bandwidth; None where it was not measured."""
    if threads == (result.get("threads") or 1):
        return row["fraction_of_cpu_triad_bandwidth"]
    triad = common.cpu_stream_bandwidth(result, threads)
    return row["bytes_per_second"] / triad if triad else None


def cache_note(result, row):
    """Where the fixture's modelled bytes fit in the last-level cache, a share over 100% is the cache's, not DRAM's."""
    llc = ((result.get("machine") or {}).get("cpu") or {}).get("llc_bytes")
    if llc and row.get("model_bytes") and row["model_bytes"] <= llc:
        return f"fits in the LLC ({fmt(row['model_bytes'] / 2 ** 20)} of {fmt(llc / 2 ** 20)} MiB)"
    return "-"


# Issue 37's targets: the projection solver's streaming stages (their plain workloads), from DRAM, at least this share
# of the CPU's triad bandwidth on the row's own threads: one core's on one core, all cores' on all cores.
STREAMING = {("momentum", "euler"), ("momentum", "ab2"), ("divergence", "euler"), ("pressure", "euler"),
             ("correction", "euler")}
TARGET_ONE_CORE, TARGET_ALL_CORES = 0.5, 0.7


def target_verdict(result, row, cores):
    """'met (>= 70%)' / 'not met (>= 50%)' for a streaming projection row that streams from DRAM on one core or
    on all cores; '-' for every other row (a cache-resident fixture, another stage, workload or thread count)."""
    threads = result.get("threads") or 1
    if (not row["variant"].startswith("projection/") or (row["stage"], row.get("scheme") or "euler") not in STREAMING
            or cache_note(result, row) != "-" or threads not in (1, cores)):
        return "-"
    target = TARGET_ONE_CORE if threads == 1 else TARGET_ALL_CORES
    met = row["fraction_of_cpu_triad_bandwidth"] >= target
    return f"{'met' if met else 'not met'} (>= {fmt(100 * target)}%)"


def section(all_results):
    """The report section; one line where no result on the machine has such rows."""
    sec = Section("cpu_bandwidth_shares", "The CPU stages' shares of the CPU's measured bandwidth (issue 37)")
    found = cpu_stage_rows(all_results)
    if not found:
        sec.p("No CPU stage row on this machine carries its share of the CPU's bandwidth "
              "(fraction_of_cpu_triad_bandwidth): no `nsbench stages --backend cpu_serial/cpu_omp` result here was "
              "made since nsbench measures the CPU's bandwidth.")
        return sec
    cores = max((all_core_threads(r) or 0 for _, r, _ in found), default=0) or None
    rows = []
    for study, r, row in found:
        g = r["grid"]
        workload = f" ({row['scheme']})" if row.get("scheme") else ""
        one, every = share(r, row, 1), share(r, row, cores) if cores else None
        rows.append([study, row["stage"], common.variant_name(row["variant"]) + workload, r.get("threads") or 1,
                     f"{g['nx']}x{g['ny']}x{g['nz']}", r.get("precision", "-"),
                     common.fmt_time((row["median_s"], row.get("iqr_s")), 1e6), fmt(row["bytes_per_second"] * 1e-9),
                     fmt(100 * one if one is not None else None), fmt(100 * every if every is not None else None),
                     cache_note(r, row), target_verdict(r, row, cores)])
    sec.p("Each CPU stage row of `nsbench stages`: its modelled bytes over its median time, against the CPU's STREAM "
          "triad bandwidth measured on one core and on all cores (machine.cpu.bandwidth). The share on the row's own "
          "threads is the harness's (fraction_of_cpu_triad_bandwidth); the other is the same bytes over the other "
          "measurement. Issue 37's targets for the projection solver's streaming stages: 50% of one core's triad on "
          "one core, 70% of all cores' on all cores, judged where the row streams from DRAM (the study "
          "cpu_stage_shares, 320^3 in double, measures them). Where the fixture fits in the last-level cache, shares "
          "over 100% are the cache's.")
    sec.table(HEADERS + [f"% of {cores or 'all'}-core triad", "cache", "issue 37's target (own threads)"], rows)
    return sec
