"""Shared by the report scripts: reading result files into one form, variant ids, stage order, number
formatting, and running a table function over result files given on the command line."""
import gzip
import json
import math
import os
import sys

# Results written before nsbench's core became solver-generic (schema nsbench.run/1, nsbench.stages/1)
# name variants "stage/variant" and carry no solver and no timing.stage_order: every one of them is a
# run of the projection solver, whose stages ran in this order. This is the only place that knows it.
LEGACY_SOLVER = "projection"
LEGACY_PROJECTION_STAGE_ORDER = ["momentum", "velocity_bc", "divergence", "pressure", "pressure_bc", "correction",
                                 "reduce"]


class ResultFileError(ValueError):
    """A result file that cannot be read (truncated, not JSON, not a result), naming the file."""

    def __init__(self, path, reason):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def variant_id(vid):
    """'solver/stage/variant' for a variant id of either form: a two-part 'stage/variant' (old result files,
    study files) is a projection-solver variant."""
    return vid if vid.count("/") >= 2 else f"{LEGACY_SOLVER}/{vid}"


def variant_name(vid):
    """The variant's own name, the last part of its id ('jacobi_global_2d_zloop'; 'p2p_sync' of 'halo/p2p_sync')."""
    return vid.rsplit("/", 1)[-1]


def stage_of(vid):
    """The stage kind a variant id belongs to ('pressure' of 'projection/pressure/jacobi_global_2d_zloop')."""
    return variant_id(vid).split("/")[1]


def stage_name(entry):
    """A stage as timing.stage_order names it ('momentum', or 'projection/momentum'), shortened for display."""
    return entry.rsplit("/", 1)[-1]


def is_schema(result, kind):
    """Whether a result is of kind 'run', 'stages', 'bandwidth' or 'tune', whatever its schema version."""
    return str(result.get("schema", "")).startswith(f"nsbench.{kind}/")


def normalize_result(r):
    """Brings a result of any schema version to the newest form, in place: three-part variant ids, run.solver,
    timing.stage_order. Every reader of result files goes through this (read_result)."""
    for row in r.get("rows", []):
        if "variant" in row:
            row["variant"] = variant_id(row["variant"])
            row.setdefault("solver", row["variant"].split("/")[0])
    if "kernels" in r and isinstance(r["kernels"], dict):
        r["kernels"] = {_kernel_key(k): v for k, v in r["kernels"].items()}
    stages = (r.get("timing") or {}).get("stages") or {}
    for s in stages.values():
        if "variant" in s:
            s["variant"] = variant_id(s["variant"])
    for s in ((r.get("profile") or {}).get("stages") or {}).values():
        if "variant" in s:
            s["variant"] = variant_id(s["variant"])
    if is_schema(r, "run"):
        r.setdefault("run", {}).setdefault("solver", LEGACY_SOLVER)
        if "timing" in r and "stage_order" not in r["timing"]:
            order = [s for s in LEGACY_PROJECTION_STAGE_ORDER if s in stages]
            r["timing"]["stage_order"] = order + sorted(set(stages) - set(order))
    return r


def _kernel_key(key):
    """'stage/variant:kernel' -> 'solver/stage/variant:kernel'."""
    vid, sep, kernel = key.partition(":")
    return variant_id(vid) + sep + kernel


# A result file as run-study and nsbench write it (.json), and as main stores it (.json.gz, scripts/pack-results).
RESULT_SUFFIXES = (".json.gz", ".json")


def result_stem(name):
    """'quick-x.json.gz' or 'quick-x.json' -> 'quick-x'; None for a name that is not a result file's."""
    for suffix in RESULT_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return None


def read_json(path):
    """The JSON in a .json or .json.gz file (OSError, EOFError, ValueError as open and json.load raise them)."""
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        return json.load(f)


def read_result(path):
    """One result file (.json, or .json.gz as results are stored), normalised; ResultFileError (naming the
    file) when it cannot be read."""
    try:
        r = read_json(path)
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise ResultFileError(path, f"cannot read it ({e})")
    except json.JSONDecodeError as e:
        raise ResultFileError(path, f"not valid JSON, truncated or damaged ({e})")
    if not isinstance(r, dict):
        raise ResultFileError(path, "not a result (a JSON object is expected)")
    return normalize_result(r)


def fmt(v, digits=3):
    """A number as a person reads it: plain decimals, never an exponent; `digits` significant digits below
    1000, whole numbers from 1000 up (16812, not 1.68e+04). None prints '-', booleans yes/no."""
    if v is None:
        return "-"
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else str(v)
    if abs(v) >= 10 ** (digits - 1) or abs(v) >= 1000:
        return str(int(round(v)))
    decimals = digits - 1 - math.floor(math.log10(abs(v)))
    text = f"{v:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def print_tables(paths, table, doc):
    """Prints table(result) for each result file; a file that cannot be read is named in one line (exit 1), not a
    traceback: `nsbench stages` without a GPU writes none."""
    if not paths:
        print(doc)
        return 2
    for p in paths:
        try:
            result = read_result(p)
        except ResultFileError as e:
            print(f"{os.path.basename(sys.argv[0])}: {e.path}: {e.reason}", file=sys.stderr)
            return 1
        print(table(result))
        print()
    return 0


# FP32 and FP64 results per clock per SM (fused multiply-add counted once), by compute capability: the CUDA C++
# Programming Guide's arithmetic-instruction throughput table. A GPU not listed gets no compute roof.
FMA_PER_CLOCK_PER_SM = {"6.0": (64, 32), "7.0": (64, 32), "7.5": (64, 2), "8.0": (64, 32), "8.6": (128, 2),
                        "8.9": (128, 2), "9.0": (128, 64)}


def peak_flops(gpu):
    """{'float': flop/s, 'double': flop/s} from the GPU record (SMs x FMA/clock x 2 x SM clock); {} if unknown."""
    lanes = FMA_PER_CLOCK_PER_SM.get(str(gpu.get("compute_capability")))
    if not lanes or not gpu.get("sm_count") or not gpu.get("sm_clock_khz"):
        return {}
    clock = gpu["sm_clock_khz"] * 1e3
    return {"float": gpu["sm_count"] * lanes[0] * 2 * clock, "double": gpu["sm_count"] * lanes[1] * 2 * clock}


def cpu_stream_bandwidth(result, threads, kernel="triad"):
    """The CPU's STREAM `kernel` bandwidth (bytes/s) on `threads` threads from a result's machine block
    (machine.cpu.bandwidth, harness/cpu_bandwidth.cpp), or None where the result predates it or did not
    measure that thread count."""
    bandwidth = (((result.get("machine") or {}).get("cpu") or {}).get("bandwidth") or {})
    for row in bandwidth.get("by_threads", []):
        if row.get("threads") == threads:
            return row[kernel]["bytes_per_second"]
    return None


def cpu_fp64_rate(result, threads):
    """The CPU's measured FP64 rate (flop/s) on `threads` threads, beside its bandwidth (machine.cpu.bandwidth
    by_threads[].fp64, harness/cpu_bandwidth.cpp), or None where the result predates it."""
    bandwidth = (((result.get("machine") or {}).get("cpu") or {}).get("bandwidth") or {})
    for row in bandwidth.get("by_threads", []):
        if row.get("threads") == threads:
            return (row.get("fp64") or {}).get("flops_per_second")
    return None


def gpu_fp64_peak(result):
    """The GPU's FP64 peak (flop/s) from its machine block (peak_flops), None where it is not known."""
    return peak_flops(((result.get("machine") or {}).get("gpu") or {})).get("double")


def cpu_threads_of_run(result):
    """The OpenMP threads a CPU run used: 1 for cpu_serial, run.threads for cpu_omp."""
    run = result.get("run") or {}
    return 1 if run.get("backend") == "cpu_serial" else run.get("threads")


def bandwidth_expectation(gpu_result, cpu_result):
    """The speedup the hardware leads one to expect of a memory-bound step: the GPU's measured copy bandwidth
    over the CPU's measured triad bandwidth on the CPU run's threads (issue 37). None where either result
    lacks its measurement (results made before nsbench measured the CPU's bandwidth)."""
    gpu_copy = gpu_copy_bandwidth(gpu_result)
    cpu_triad = cpu_stream_bandwidth(cpu_result, cpu_threads_of_run(cpu_result))
    if not gpu_copy or not cpu_triad:
        return None
    return gpu_copy / cpu_triad


def speedup_flag(speedup, expectation, cause=None, ratio="the bandwidth ratio"):
    """'' when a speedup is within twice the hardware expectation, else why it is flagged (`cause`, from
    flag_cause, where the results carry byte models); '-' without both. `ratio` names the expectation (the
    bandwidth ratio, the FP64 ratio or the roofline's: hardware_expectation)."""
    if speedup is None or expectation is None:
        return "-"
    if speedup <= 2 * expectation:
        return ""
    return (f"{speedup / expectation:.1f}x {ratio}: "
            + (cause or "the CPU side is below its bandwidth (see its stages' share)"))


# ---------------------------------------------------------------- issue 37's speedup rows, one helper for every section

SPEEDUP_NOTE = (
    "Times are medians with their interquartile range. Expected: what the hardware leads one to expect, by the "
    "row's byte/flop model (its stages' modelled flops over modelled bytes, I) against each side's machine balance "
    "(the CPU's measured FP64 rate over its measured triad bandwidth on the CPU run's threads; the GPU's FP64 peak "
    "over its measured copy bandwidth): memory-bound on both sides, the GPU's copy bandwidth over the CPU's triad "
    "bandwidth; compute-bound on both, the GPU's FP64 peak over the CPU's measured FP64 rate; between, the ratio of "
    "the two rooflines, max(bytes / bandwidth, flops / FP64 rate) (machine.gpu.copy_bandwidth, "
    "machine.cpu.bandwidth and its fp64 rows). The basis column names which. A result from before nsbench measured "
    "the CPU's FP64 rate keeps the bandwidth ratio and says 'FP64 expectation: not measured on this host'; '-' where "
    "a result predates the CPU's bandwidth measurement. A speedup over twice its expectation is flagged with the two "
    "sides' shares of their bandwidths by the stages' byte models.")


def time_stats(result, stage=None):
    """(median, IQR) in seconds of a run's step, or of one stage's call (stage: a timing.stages key); None where
    the result does not time it."""
    timing = (result or {}).get("timing") or {}
    stats = timing.get("step") if stage is None else (timing.get("stages", {}).get(stage) or {}).get("per_call")
    if not stats or stats.get("median") is None:
        return None
    return stats["median"], stats.get("iqr")


def fmt_time(stats, scale=1e3):
    """'0.47 (IQR 0.02)': a (median, IQR) pair in seconds, printed in ms (scale 1e3) or us (1e6); '-' without it."""
    if stats is None:
        return "-"
    median, iqr = stats
    return fmt(median * scale) + (f" (IQR {fmt(iqr * scale)})" if iqr is not None else "")


def modelled(result, quantity, stage=None):
    """What the stages' models count (quantity: "bytes" or "flops") in a step (model[quantity] x calls_per_step,
    summed), or in one call of `stage`; None where the result carries no such model."""
    stages = ((result or {}).get("timing") or {}).get("stages") or {}
    if stage is not None:
        return ((stages.get(stage) or {}).get("model") or {}).get(quantity)
    total = sum((st.get("model") or {}).get(quantity, 0) * st.get("calls_per_step", 0) for st in stages.values())
    return total or None


def modelled_bytes(result, stage=None):
    return modelled(result, "bytes", stage)


def modelled_flops(result, stage=None):
    return modelled(result, "flops", stage)


def arithmetic_intensity(gpu_result, cpu_result, stage=None):
    """Modelled flops over modelled bytes of the row (the GPU run's models, else the CPU run's); None without both."""
    for r in (gpu_result, cpu_result):
        nbytes, flops = modelled_bytes(r, stage), modelled_flops(r, stage)
        if nbytes and flops:
            return flops / nbytes
    return None


# What each kind of bound compares (hardware_expectation), and how a flag names it.
RATIO_OF_BOUND = {("memory", "memory"): ("copy / triad", "the bandwidth ratio"),
                  ("compute", "compute"): ("FP64 rates", "the FP64 ratio"),
                  ("memory", "compute"): ("roofline, mixed", "the roofline ratio"),
                  ("compute", "memory"): ("roofline, mixed", "the roofline ratio")}


def hardware_expectation(gpu_result, cpu_result, stage=None):
    """(expected speedup, basis, the ratio's name for a flag) of a GPU run over a CPU run (issue 37): by the row's
    arithmetic intensity I against each side's machine balance (FP64 rate / bandwidth), the ratio of the two
    rooflines max(1 / bandwidth, I / FP64 rate): the copy / triad bandwidth ratio where the row is memory-bound on
    both sides, the FP64 ratio where compute-bound on both. The bandwidth ratio alone (said so) where the row has
    no flop model or a rate was not measured; (None, '-', ...) without the bandwidths."""
    ratio = bandwidth_expectation(gpu_result, cpu_result)
    if ratio is None:
        return None, "-", "the bandwidth ratio"
    intensity = arithmetic_intensity(gpu_result, cpu_result, stage)
    if intensity is None:
        return ratio, "copy / triad (no flop model)", "the bandwidth ratio"
    threads = cpu_threads_of_run(cpu_result)
    cpu_flops, gpu_flops = cpu_fp64_rate(cpu_result, threads), gpu_fp64_peak(gpu_result)
    if not cpu_flops or not gpu_flops:
        missing = "not measured on this host" if not cpu_flops else "the GPU's FP64 peak not known"
        return ratio, f"copy / triad ({fmt(intensity)} flop/B; FP64 expectation: {missing})", "the bandwidth ratio"
    triad, copy = cpu_stream_bandwidth(cpu_result, threads), gpu_copy_bandwidth(gpu_result)
    cpu_balance, gpu_balance = cpu_flops / triad, gpu_flops / copy
    bound = ("compute" if intensity >= cpu_balance else "memory", "compute" if intensity >= gpu_balance else "memory")
    expected = max(1 / triad, intensity / cpu_flops) / max(1 / copy, intensity / gpu_flops)
    basis, name = RATIO_OF_BOUND[bound]
    return expected, (f"{basis} ({fmt(intensity)} flop/B: {bound[0]}-bound on the CPU, balance {fmt(cpu_balance)}; "
                      f"{bound[1]}-bound on the GPU, balance {fmt(gpu_balance)})"), name


def gpu_copy_bandwidth(result):
    return (((result.get("machine") or {}).get("gpu") or {}).get("copy_bandwidth") or {}).get("bytes_per_second")


def flag_cause(gpu_result, cpu_result, stage=None):
    """Why a speedup is far above its expectation, from the byte/flop models: the CPU side's share of its triad
    bandwidth (of its measured FP64 rate where the row is compute-bound on the CPU) and the GPU side's of its copy
    bandwidth (over 100%: caches serve part of the traffic)."""
    data = modelled_bytes(cpu_result, stage)
    cpu_t, gpu_t = time_stats(cpu_result, stage), time_stats(gpu_result, stage)
    threads = cpu_threads_of_run(cpu_result)
    triad = cpu_stream_bandwidth(cpu_result, threads)
    copy = gpu_copy_bandwidth(gpu_result)
    if not data or not cpu_t or not gpu_t or not triad or not copy:
        return None
    cpu_share, gpu_share = data / cpu_t[0] / triad, data / gpu_t[0] / copy
    flops, cpu_flops = modelled_flops(cpu_result, stage), cpu_fp64_rate(cpu_result, threads)
    if flops and cpu_flops and flops / data >= cpu_flops / triad:  # compute-bound on the CPU: its flops are the limit
        parts = [f"the CPU side does its modelled flops at {fmt(100 * flops / cpu_t[0] / cpu_flops)}% of its measured "
                 "FP64 rate"]
    else:
        parts = [f"the CPU side moves its modelled bytes at {fmt(100 * cpu_share)}% of its triad bandwidth"
                 + (" (its caches serve part)" if cpu_share > 1 else "")]
    if gpu_share > 1:
        parts.append(f"the GPU side at {fmt(100 * gpu_share)}% of its copy bandwidth (its caches serve part)")
    return "; ".join(parts)


NOT_RUN = "not run on this machine yet"


def speedup_headers(cores, unit="ms/step"):
    """The headers of speedup_cells' cells; `cores` is the all-cores run's thread count (None: not run)."""
    n = f"{cores} cores" if cores else "all cores (not run)"
    return [f"GPU {unit} (IQR)", f"1 core {unit} (IQR)", "speedup vs 1 core", f"{n} {unit} (IQR)",
            f"speedup vs {cores or 'all'} cores", "expected vs 1 core", f"expected vs {cores or 'all'} cores",
            "expectation's basis (byte/flop model)", "flag (over 2x expected)"]


def speedup_cells(gpu_result, cpu_one, cpu_all, stage=None, scale=1e3):
    """Issue 37's cells of one GPU result against the CPU runs on one core and on all cores (either may be None:
    its time says it was not run on this machine yet): both times with their IQR, the speedups over each, the
    hardware's expectation for each (hardware_expectation) and its basis, and a flag with its cause where a speedup
    is over twice its expectation. `stage`: compare one stage's time per call instead of the step. '-' wherever a
    time or a measured bandwidth is missing."""
    gpu_t = time_stats(gpu_result, stage)
    cells, flags, expectations, bases = [fmt_time(gpu_t, scale)], [], [], []
    for label, cpu in (("1 core", cpu_one), (f"{cpu_threads_of_run(cpu_all or {})} cores", cpu_all)):
        cpu_t = time_stats(cpu, stage) if cpu else None
        s = cpu_t[0] / gpu_t[0] if cpu_t and gpu_t and gpu_t[0] else None
        e, basis, ratio = hardware_expectation(gpu_result, cpu, stage) if cpu and gpu_result else (None, "-", "")
        cells += [fmt_time(cpu_t, scale) if cpu else NOT_RUN, fmt(s)]
        expectations.append(e)
        if basis != "-":
            bases.append((label, basis))
        flag = speedup_flag(s, e, flag_cause(gpu_result, cpu, stage) if s and e and s > 2 * e else None, ratio)
        if flag not in ("", "-"):
            flags.append(f"vs {label}: {flag}")
    judged = any(e is not None for e in expectations)  # "no": within twice its expectation; "-": nothing to judge by
    return cells + [fmt(e) for e in expectations] + [basis_cell(bases), "; ".join(flags) or ("no" if judged else "-")]


def basis_cell(bases):
    """One basis where both columns share it, else each with its column's label; '-' where neither has one."""
    if not bases:
        return "-"
    if len({b for _, b in bases}) == 1:
        return bases[0][1]
    return "; ".join(f"vs {label}: {b}" for label, b in bases)
