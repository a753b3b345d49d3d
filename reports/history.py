"""A history of the regression benchmarks: one line per benchmark and run of the regression study.

    scripts/history append RESULTS [--role current|base|baseline] [--root baselines/history]
    scripts/history plot [--gpu MODEL] [--root baselines/history] [--out FILE]

`append` reads the regression study's result files under RESULTS (.json or .json.gz, any nesting; read
by scripts/compare's own loader, compare.load_files) and adds one line per benchmark to
ROOT/<gpu-model>.tsv.gz (e.g. baselines/history/nvidia-h200.tsv.gz). A legacy ROOT/<gpu-model>.tsv is read
where no .tsv.gz exists, and replaced by the .tsv.gz at the next append. scripts/gpu-ci calls it after every run
of the regression study: role `current` for the code under test, `base` for the base branch built and
run back to back (--base-ref, --base-src), `baseline` for a --record-baseline recording.

A run is the result files of one commit on one machine in RESULTS: every repetition of a benchmark
found there is pooled, as scripts/compare pools them. Its line holds

    date         the earliest `timestamp` of the run's result files (when the run began, UTC)
    commit       the build's git_commit; dirty: 1 when the tree had uncommitted changes
    role         current, base or baseline (above)
    gpus         the GPU count of the machine; driver: its driver version (the GPU model is the file)
    benchmark    scripts/compare's name of the benchmark (variant ids under their name now)
    median_us    the median of the pooled raw samples, microseconds, 4 significant digits
    iqr_us       their interquartile range (q3 - q1), 3 significant digits
    samples      the pooled samples; repetitions: the result files (or rows) they came from

Appending is idempotent: a run already in the file (same date, commit and machine) is replaced, not
added again, and the file is kept sorted by date, commit and benchmark and gzipped with no time or name
in its header, so appending the same results twice leaves it byte for byte the same.

Why TSV: one line per benchmark and run, fixed columns, so `zcat | grep`/`cut`/`sort` answer most
questions and the csv module reads it; JSON lines would repeat every key on every line (about twice the
size) and CSV would need quoting. Benchmark names hold spaces, never tabs. Why gzipped: a back-to-back
gpu-ci adds 1,281 lines (about 220 KB) a side, the same commit, date and names over and over, and the
tracked tree has a budget of 20 MB (tests/python/test_tree_budget.py); gzip stores the 652 KB of the
nvidia-h200 history of 2026-11-29 in 40 KB. The price: a diff shows a binary change, not the added lines.

`plot` draws every benchmark's median across commits in date order, relative to its first run, with the
IQR as error bars: asv's "when did this get slower" view, one panel per solver or family and one for the
whole-solver runs (also a section of the study report, in the regression study's section).
"""
import argparse
import csv
import gzip
import io
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_ROOT = os.path.join(ROOT, "baselines", "history")
STUDY = "regression"
ROLES = ("current", "base", "baseline")
COLUMNS = ["date", "commit", "dirty", "role", "gpus", "driver", "benchmark", "median_us", "iqr_us", "samples",
           "repetitions"]
RUN_KEY = ("date", "commit", "dirty", "gpus", "driver")  # what makes a run the same run


def significant(x, digits):
    """X with DIGITS significant digits, never in exponent form (43.21, 688, 10230)."""
    return np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-")


def regression_results(path):
    """The regression study's results under PATH (compare's loader); an InputError if there are none or
    if a file belongs to another study (its benchmarks would mix with the regression set's)."""
    results = compare.load_files(path)
    other = [r for r in results if (r.get("study") or {}).get("study") != STUDY]
    if other:
        raise compare.InputError(f"{path}: {len(other)} result file(s) not of the {STUDY} study (e.g. "
                                 f"{other[0].get('command_line', '?')[:80]}); the history holds the {STUDY} study only")
    return results


def run_of(result):
    """The run a result file belongs to: (gpu model, commit, dirty, gpus, driver)."""
    model = compare.gpu_model_slug([result])  # an InputError for a result without a GPU
    gpu, build = result["machine"]["gpu"], result["build"]
    return (model, build["git_commit"], "1" if build.get("git_dirty") else "0",
            str(gpu.get("count", 1)), str(gpu.get("driver_version", "?")))


def runs(results):
    """{run: [its result files]}: RESULTS split by commit and machine (normally one run)."""
    out = {}
    for r in results:
        out.setdefault(run_of(r), []).append(r)
    return out


def run_lines(results, role, aliases):
    """The history lines of one run: one per benchmark, its repetitions pooled."""
    _, commit, dirty, gpus, driver = run_of(results[0])
    date = min(r["timestamp"] for r in results)
    lines = []
    for name, reps in sorted(compare.benchmarks(results, aliases).items()):
        samples = np.array([x for rep in reps for x in rep])
        q1, q3 = np.percentile(samples, [25, 75])
        lines.append({"date": date, "commit": commit, "dirty": dirty, "role": role, "gpus": gpus, "driver": driver,
                      "benchmark": name, "median_us": significant(float(np.median(samples)) * 1e6, 4),
                      "iqr_us": significant(float(q3 - q1) * 1e6, 3), "samples": str(len(samples)),
                      "repetitions": str(len(reps))})
    return lines


def history_path(root, model):
    """ROOT/<model>.tsv.gz, the file `append` writes."""
    return os.path.join(root, f"{model}.tsv.gz")


def legacy_path(root, model):
    """ROOT/<model>.tsv: the history before it was gzipped, read where no .tsv.gz exists yet."""
    return os.path.join(root, f"{model}.tsv")


def existing_history(root, model):
    """The history file of MODEL to read: the .tsv.gz, else a legacy .tsv, else the .tsv.gz (not there yet)."""
    path, legacy = history_path(root, model), legacy_path(root, model)
    return legacy if not os.path.isfile(path) and os.path.isfile(legacy) else path


def read_history(path):
    """The lines of a history file (.tsv.gz, or a legacy .tsv) as dicts (all values strings); [] when there is no
    file yet."""
    if not os.path.isfile(path):
        return []
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", newline="") as f:
            reader = csv.DictReader(f, delimiter="\t")
            if reader.fieldnames != COLUMNS:
                raise compare.InputError(f"{path}: columns {reader.fieldnames}, expected {COLUMNS}")
            return list(reader)
    except (OSError, EOFError) as e:  # a truncated or not gzipped .gz
        raise compare.InputError(f"{path}: unreadable ({e})") from e


def write_history(path, lines):
    """LINES sorted by date, commit and benchmark, gzipped with mtime 0 and no file name in the header: the same
    lines always make the same bytes. Written beside PATH and moved over it, so a broken-off write leaves the old."""
    lines = sorted(lines, key=lambda x: (x["date"], x["commit"], x["role"], x["benchmark"]))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
    writer.writeheader()
    writer.writerows(lines)
    with open(path + ".tmp", "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(text.getvalue().encode())
    os.replace(path + ".tmp", path)


def append(results_path, role, root=DEFAULT_ROOT, aliases=None):
    """Adds the runs under RESULTS_PATH to ROOT/<gpu-model>.tsv.gz, replacing a run already there; a legacy
    ROOT/<gpu-model>.tsv is read and removed once its lines are in the .tsv.gz.
    Returns [(history file, run's date, commit, benchmarks, 'added' or 'replaced')]."""
    if role not in ROLES:
        raise compare.UsageError(f"--role {role}: one of {', '.join(ROLES)}")
    if aliases is None and os.path.isfile(compare.default_aliases_path()):
        aliases = compare.load_aliases(compare.default_aliases_path())
    done = []
    for run, results in sorted(runs(regression_results(results_path)).items()):
        path = history_path(root, run[0])
        new = run_lines(results, role, aliases)
        if not new:
            raise compare.InputError(f"{results_path}: no benchmark with raw samples in the run of commit {run[1][:10]}")
        key = tuple(new[0][k] for k in RUN_KEY)
        old = read_history(existing_history(root, run[0]))
        kept = [x for x in old if tuple(x[k] for k in RUN_KEY) != key]
        write_history(path, kept + new)
        if os.path.isfile(legacy_path(root, run[0])):
            os.remove(legacy_path(root, run[0]))
        done.append((path, key[0], key[1], len(new), "added" if len(kept) == len(old) else "replaced"))
    return done


# ---------------------------------------------------------------- the plot

ROLE_MARKERS = {"baseline": "s", "base": "v", "current": "o"}
GATE_FLOOR = compare.THRESHOLD_FLOOR  # the gate's smallest threshold, drawn as the band of "no change"


def family(benchmark):
    """The panel a benchmark is drawn in: its solver or family ('projection', 'tridiag'), or the whole-solver runs.
    One panel a solver, not a stage: the regression study times about 70 stage kinds, and a panel each made a
    picture 8000 pixels tall (400 KB a report); the panel's red line names the stage that moved most."""
    if benchmark.startswith("stage "):
        return benchmark.split()[1].split("/", 1)[0]
    return "whole-solver runs (step time)"


def commit_positions(lines):
    """{commit: x}: the commits in the order of their first run's date."""
    first = {}
    for x in lines:
        first[x["commit"]] = min(first.get(x["commit"], x["date"]), x["date"])
    return {c: i for i, c in enumerate(sorted(first, key=lambda c: (first[c], c)))}


def run_positions(lines, commits):
    """{run date: x}: a commit measured in several runs has them side by side around its x."""
    by_commit = {}
    for date, commit in sorted({(x["date"], x["commit"]) for x in lines}):
        by_commit.setdefault(commit, []).append(date)
    return {d: commits[c] + 0.12 * (k - (len(ds) - 1) / 2) for c, ds in by_commit.items() for k, d in enumerate(ds)}


def series(lines):
    """{family: {benchmark: [line, ...] in date order}}."""
    out = {}
    for x in sorted(lines, key=lambda x: x["date"]):
        out.setdefault(family(x["benchmark"]), {}).setdefault(x["benchmark"], []).append(x)
    return out


def largest_change(benchmarks):
    """(benchmark, last / first median) of the benchmark whose median moved most between its first and last run."""
    def change(runs):
        return float(runs[-1]["median_us"]) / float(runs[0]["median_us"])
    name = max(benchmarks, key=lambda b: abs(np.log(change(benchmarks[b]))))
    return name, change(benchmarks[name])


def draw_panel(ax, title, benchmarks, xs):
    """Every benchmark of one family relative to its first run, IQR as error bars; the one that moved most in red."""
    moved, ratio = largest_change(benchmarks)
    alpha = max(0.08, min(0.6, 6 / len(benchmarks)))
    ax.axhspan(1 - GATE_FLOOR, 1 + GATE_FLOOR, color="#e8e8e8", zorder=0)
    for name, runs in benchmarks.items():
        ref = float(runs[0]["median_us"])
        x = [xs[r["date"]] for r in runs]
        y = [float(r["median_us"]) / ref for r in runs]
        err = [float(r["iqr_us"]) / ref / 2 for r in runs]
        colour, a = ("#c0392b", 1.0) if name == moved else ("#34495e", alpha)
        ax.errorbar(x, y, yerr=err, color=colour, alpha=a, linewidth=0.8, elinewidth=0.6, capsize=1.5,
                    zorder=3 if name == moved else 2)
        for role, marker in ROLE_MARKERS.items():
            pts = [(xi, yi) for xi, yi, r in zip(x, y, runs) if r["role"] == role]
            if pts:
                ax.plot(*zip(*pts), marker, color=colour, alpha=a, markersize=3, linestyle="none")
    ax.set_title(f"{title} ({len(benchmarks)} benchmarks)", fontsize=8)
    short = moved.split(" ", 1)[1].replace(title + "/", "", 1)  # the panel's title says the stage
    ax.text(0.01, 0.97, f"moved most: {short} x{ratio:.3f}", transform=ax.transAxes,
            fontsize=6, color="#c0392b", va="top")
    ax.grid(True, axis="y", alpha=0.3)
    ax.tick_params(labelsize=7)


def plot(lines, out, title):
    """Small multiples, one panel per family: each benchmark's median / its first run's median by commit."""
    import report_plots as plots  # matplotlib only where a picture is drawn
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    commits = commit_positions(lines)
    xs = run_positions(lines, commits)
    families = series(lines)
    cols = 2
    rows = (len(families) + cols - 1) // cols
    fig, axes = plots.plt.subplots(rows, cols, figsize=(10, 1.9 * rows + 0.8), sharex=True, squeeze=False)
    first_date = {c: min(x["date"] for x in lines if x["commit"] == c) for c in commits}
    hosts = {c: "/".join(sorted({x["gpus"] for x in lines if x["commit"] == c})) for c in commits}
    labels = [f"{c[:7]}\n{first_date[c][:10]}\n{hosts[c]}-GPU host" for c in commits]
    for ax, (name, benchmarks) in zip(axes.flat, sorted(families.items())):
        draw_panel(ax, name, benchmarks, xs)
    for ax in axes.flat[len(families):]:
        ax.set_visible(False)
    for ax in axes.flat:
        ax.set_xticks(list(commits.values()), labels, fontsize=6)
        ax.set_xlim(-0.5, len(commits) - 0.5)
    for ax in axes[:, 0]:
        ax.set_ylabel("median / first run's", fontsize=7)
    handles = [Line2D([], [], marker=m, color="#34495e", linestyle="none", label=f"{role} run")
               for role, m in ROLE_MARKERS.items()]
    handles.append(Patch(color="#e8e8e8", label=f"±{GATE_FLOOR:.0%} (the gate's smallest threshold)"))
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=7, frameon=False, bbox_to_anchor=(0.5, 1.0))
    fig.suptitle(title, fontsize=10, y=1.03)
    fig.tight_layout()
    plots.save(fig, os.path.dirname(out) or ".", os.path.basename(out))


def describe_runs(lines):
    """'c9b683a4c3 (2026-11-23T15:23:54Z, base, 1 GPU, driver 13000, 488 benchmarks, 2 repetitions); ...'"""
    runs = {}
    for x in lines:
        runs.setdefault(tuple(x[k] for k in RUN_KEY) + (x["role"],), []).append(x)
    parts = []
    for (date, commit, dirty, gpus, driver, role), mine in sorted(runs.items()):
        reps = "/".join(sorted({x["repetitions"] for x in mine}, key=int))
        parts.append(f"{commit[:10]}{'+' if dirty == '1' else ''} ({date}, {role}, {gpus} GPU"
                     f"{'s' if gpus != '1' else ''} in the machine, driver {driver}, {len(mine)} benchmarks, "
                     f"{reps} repetitions)")
    return "; ".join(parts)


# ---------------------------------------------------------------- the report's part

def gpu_model_of_machine(machine):
    """The GPU model of a report's machine id: 'nvidia-h200-x2' -> 'nvidia-h200' (None for a CPU machine)."""
    if machine.startswith("cpu-"):
        return None
    head, _, count = machine.rpartition("-x")
    return head if count.isdigit() else machine


def add_to_section(sec, machine, out, root=DEFAULT_ROOT):
    """The history of the machine's GPU model as a report section: a paragraph and the plot (no table: the
    history lives in baselines/history/, not in the results the report is made from). False when there is none."""
    model = gpu_model_of_machine(machine)
    path = existing_history(root, model) if model else None
    lines = read_history(path) if model else []
    if not lines:
        return False
    rel = os.path.relpath(path, ROOT)
    picture = "regression_history.png"
    plot(lines, os.path.join(out, picture), f"Regression benchmarks on the {model} across commits ({rel})")
    sec.p(f"History of the regression benchmarks on this GPU model, from {rel} (scripts/history; scripts/gpu-ci "
          f"appends every run): {len(lines)} lines, {len(commit_positions(lines))} commits. Runs: "
          f"{describe_runs(lines)}.")
    sec.fig(picture, "Each benchmark's median across commits in date order, relative to its first run, the IQR as "
                     f"error bars; grey band: ±{GATE_FLOOR:.0%}, the gate's smallest threshold. Marker: the run's role "
                     "(baseline recording, base build run back to back, current code); runs of one commit sit side by "
                     "side. Red: the benchmark of the panel whose median moved most between its first and last run.")
    return True


# ---------------------------------------------------------------- the command line

def main(argv=None):
    ap = compare.ArgumentParser(prog="history", description=__doc__.split("\n\n")[0], epilog=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    a_append = sub.add_parser("append", help="add the regression study's results under RESULTS to the history")
    a_append.add_argument("results", help="result files or a folder of them (.json, .json.gz)")
    a_append.add_argument("--role", default="current", choices=ROLES)
    a_plot = sub.add_parser("plot", help="draw a history file's benchmarks across commits")
    a_plot.add_argument("--gpu", default="nvidia-h200", help="the GPU model, the history file's name (default "
                                                             "%(default)s)")
    a_plot.add_argument("--out", help="the PNG to write (default regression-history-<gpu>.png)")
    for p in (a_append, a_plot):
        p.add_argument("--root", default=DEFAULT_ROOT, help="the history folder (default baselines/history)")
    a = ap.parse_args(argv)
    try:
        if a.command == "append":
            for path, date, commit, n, how in append(a.results, a.role, a.root):
                print(f"history: {how} {n} lines of {a.role} run {commit[:10]} ({date}) in {path}")
        else:
            path = existing_history(a.root, a.gpu)
            lines = read_history(path)
            if not lines:
                raise compare.InputError(f"no history at {path}")
            out = a.out or f"regression-history-{a.gpu}.png"
            plot(lines, out, f"Regression benchmarks on the {a.gpu} across commits")
            print(f"history: {out}")
    except compare.InputError as e:
        print(f"history: input error: {e}", file=sys.stderr)
        return compare.EXIT_INPUT_ERROR
    except compare.UsageError as e:
        print(f"history: usage error: {e}", file=sys.stderr)
        return compare.EXIT_USAGE_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
