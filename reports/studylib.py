"""Study files: parsing, validation, expansion into concrete nsbench commands, and where results live.

A study file (studies/<paper>/<name>.yaml) names the table or figure it reproduces, the paper's
published numbers (a CSV beside it) and the runs. Each entry of `runs` is a group: `args` are nsbench
options, and every option given as a list is a matrix dimension; `quick:` / `full:` replace options
for that form of the study, and `quick: skip` leaves a group out of the quick form (the full form only: a
size or sweep too costly for a first look). Example:

    study: fig4_5_global_vs_optimal
    title: Whole solver, all-global kernels vs the optimal global/shared mix
    reproduces: Thibault 2009, Fig. 4.5
    paper: {csv: paper/fig4_5.csv, hardware: "Tesla C870", source: "thesis Fig. 4.5 text"}
    baseline: thibault-global on one GPU
    report: recipe_compare
    runs:
      - group: gpu
        command: run
        gpus: 1
        args: {backend: cuda, recipe: [thibault-global, thibault-optimal], grid: 256x32x256, steps: 200}
        quick: {steps: 30}

A stage override names its variant as STAGE=VARIANT[:TUNING], the stage either as 'pressure' (the
projection solver's, as before nsbench had several solvers) or as 'projection/pressure'.
"""
import itertools
import os
import re
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

# targets: a report's rows as data (issue 43's table, studies/targets/; reports/stage_targets.py checks them)
STUDY_KEYS = {"study", "title", "reproduces", "paper", "baseline", "report", "runs", "notes", "timeout_s", "targets"}
REQUIRED_STUDY_KEYS = {"study", "title", "reproduces", "baseline", "report", "runs"}
PAPER_KEYS = {"csv", "hardware", "source"}
RUN_KEYS = {"group", "command", "gpus", "mpi", "args", "quick", "full"}
COMMANDS = {"run", "stages", "bandwidth", "tune"}
# nsbench options a study may set, per command (the CLI's own names without the dashes).
OPTIONS = {
    "run": {"case", "grid", "re", "dt", "safety", "gamma", "scheme", "backend", "threads", "precision", "recipe",
            "stage", "steps", "warmup", "iterations", "jacobi-iterations", "jacobi-tol", "check-every", "launch", "ranks", "halo",
            "no-check", "until-steady", "steady-tol", "poisson", "solver", "case-param", "profile", "profile-steps",
            "tune-cache"},
    "stages": {"grid", "precision", "stage", "variant", "tuning", "samples", "warmup", "backend", "threads", "solver"},
    "bandwidth": {"samples", "max-mib"},
    "tune": {"case", "solver", "grid", "precision", "backend", "ranks", "budget", "cache", "samples", "steps", "warmup",
             "top-k", "iterations", "jacobi-tol", "threads", "re", "case-param", "no-check"},
}
REPORTS = {"cpu_gflops", "stage_compare", "recipe_compare", "speedup", "scaling", "block_shapes", "registers",
           "bandwidth", "roofline", "regression", "wave_speedup", "validation"}
REPORTS |= {"tridiag_bandwidth", "fracstep_step_time"}  # reports/ha2018.py
REPORTS |= {"table1_p4_emulated", "fig5_components_emulated", "fig3_v1_transpose_model",
            "fracstep_e2_measured"}  # reports/ha2018_scaling.py
REPORTS |= {"liu_cpu_threads", "liu_stage_speedup", "liu_solver_speedup"}  # reports/liu2019.py
REPORTS |= {"kemal_techniques", "kemal_routines", "kemal_ranks"}  # reports/kemal2015.py
REPORTS |= {"gohari_grid", "gohari_flow", "gohari_checks", "gohari_profile", "gohari_sor_omega"}  # reports/gohari2012.py
REPORTS |= {"urban_block_shapes", "urban_speedup", "cube_refinement", "urban_per_gpu"}  # reports/urban.py
REPORTS |= {"poisson_time_to_tolerance"}  # reports/poisson_report.py
REPORTS |= {"stage_targets"}  # reports/stage_targets.py
REPORTS |= {"tuned_vs_named"}  # reports/tuned_report.py
# --poisson names a solver accepts besides the Poisson family's methods (which `list --json` lists): streamvort's
# four-colour SOR of its 9-point stream-function equation (harness/solvers/streamvort/case.cpp).
SOLVER_OWN_POISSON = {"sor"}
GRID_RE = re.compile(r"^([1-9][0-9]*)x([1-9][0-9]*)x([1-9][0-9]*)$")
# A study's name is a folder under the results root, a group's is part of file names: letters, digits, _ and - (a
# group may also hold . and +), never a path (no /, no leading dot: `study: ../../x` must not write elsewhere).
STUDY_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
GROUP_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


# Where a user's own runs go (results/local/<study>/<machine-id>/, ignored by git) and so where the report
# looks by default. The reference results shipped in the repository sit in results/<study>/<machine-id>/
# and are read only when asked for (--results results).
LOCAL_RESULTS = os.path.join("results", "local")
SHIPPED_RESULTS = "results"


class StudyError(ValueError):
    """A study file that cannot be run, with a message naming the file and the problem."""


def _fail(path, msg):
    raise StudyError(f"{path}: {msg}")


def load_study(path, known=None):
    """Reads and validates one study file. `known` (from `nsbench list --json`) also checks recipe,
    variant, halo and case names; without it only the structure is checked."""
    try:
        with open(path, encoding="utf-8") as f:
            s = yaml.safe_load(f)
    except yaml.YAMLError as e:
        _fail(path, f"not valid YAML: {e}")
    except (OSError, UnicodeDecodeError) as e:
        _fail(path, f"cannot read it ({e})")
    if not isinstance(s, dict):
        _fail(path, "a study file is a mapping (study:, title:, runs:, ...)")
    unknown = set(s) - STUDY_KEYS
    if unknown:
        _fail(path, f"unknown key(s) {sorted(unknown)}; known: {sorted(STUDY_KEYS)}")
    missing = REQUIRED_STUDY_KEYS - set(s)
    if missing:
        _fail(path, f"missing key(s) {sorted(missing)}")
    if not isinstance(s["study"], str) or not STUDY_NAME_RE.match(s["study"]):
        _fail(path, f"bad study name {s['study']!r}: letters, digits, _ and - (it names a folder under the results root)")
    if "timeout_s" in s and (isinstance(s["timeout_s"], bool) or not isinstance(s["timeout_s"], (int, float))
                             or s["timeout_s"] <= 0):
        _fail(path, f"bad timeout_s {s['timeout_s']!r}: a positive number of seconds (run-study's default per run)")
    if not isinstance(s["report"], str) or s["report"] not in REPORTS:
        _fail(path, f"unknown report '{s['report']}'; known: {sorted(REPORTS)}")
    paper = s.get("paper")
    if paper is not None:
        if not isinstance(paper, dict):
            _fail(path, f"paper: a mapping ({', '.join(sorted(PAPER_KEYS))})")
        if set(paper) - PAPER_KEYS:
            _fail(path, f"paper: unknown key(s) {sorted(set(paper) - PAPER_KEYS)}; known: {sorted(PAPER_KEYS)}")
        csv = os.path.join(os.path.dirname(path), paper.get("csv", ""))
        if "csv" in paper and not os.path.isfile(csv):
            _fail(path, f"paper csv '{paper['csv']}' not found next to the study")
    if not isinstance(s["runs"], list) or not s["runs"]:
        _fail(path, "runs: a non-empty list of run groups")
    names = known_names(known) if known else None
    groups = set()
    for i, r in enumerate(s["runs"]):
        where = f"runs[{i}]"
        if not isinstance(r, dict):
            _fail(path, f"{where}: a mapping")
        if set(r) - RUN_KEYS:
            _fail(path, f"{where}: unknown key(s) {sorted(set(r) - RUN_KEYS)}; known: {sorted(RUN_KEYS)}")
        if r.get("group") in groups:
            _fail(path, f"{where}: group '{r.get('group')}' used twice")
        groups.add(r.get("group"))
        if not r.get("group"):
            _fail(path, f"{where}: needs a group name")
        if not isinstance(r["group"], str) or not GROUP_NAME_RE.match(r["group"]):
            _fail(path, f"{where}: bad group name {r['group']!r}: letters, digits, _, -, . and + (it is part of "
                        f"the runs' file names)")
        cmd = r.get("command", "run")
        if cmd not in COMMANDS:
            _fail(path, f"{where}: unknown command '{cmd}'; known: {sorted(COMMANDS)}")
        for section in ("args", "quick", "full"):
            opts = r.get(section, {}) or {}
            if section == "quick" and opts == "skip":
                continue
            if not isinstance(opts, dict):
                _fail(path, f"{where}.{section}: a mapping of nsbench options")
            bad = set(opts) - OPTIONS[cmd]
            if bad:
                _fail(path, f"{where}.{section}: unknown nsbench {cmd} option(s) {sorted(bad)}; "
                            f"known: {sorted(OPTIONS[cmd])}")
            for v in _values(opts.get("grid")):
                m = GRID_RE.match(str(v))
                if not m:
                    _fail(path, f"{where}.{section}: bad grid '{v}': expected NXxNYxNZ, e.g. 256x32x256")
            for key in ("steps", "warmup", "ranks", "samples"):
                for v in _values(opts.get(key)):
                    if not isinstance(v, int) or v < (0 if key == "warmup" else 1):
                        _fail(path, f"{where}.{section}: bad {key} '{v}': a positive integer")
            if names:
                _check_names(path, f"{where}.{section}", opts, names)
        gpus = r.get("gpus", 0)
        if not (gpus == "ranks" or (isinstance(gpus, int) and gpus >= 0)):
            _fail(path, f"{where}: gpus is a count or 'ranks'")
    s["_path"] = path
    s["_dir"] = os.path.dirname(path)
    return s


def _values(v):
    if v is None:
        return []
    return v if isinstance(v, list) else [v]


def known_names(listing):
    """What a study may name, from `nsbench list --json` of either schema (nsbench.list/2, solver-generic; or
    nsbench.list/1): {recipes, cases, stages (names and 'solver/stage' ids), halo {name: tunings},
    variants {'solver/stage/variant': tunings}, with_cuda, with_mpi}."""
    def names(items):
        return {x["name"] if isinstance(x, dict) else x for x in items or []}

    variants = {}
    for v in listing.get("variants", []):
        vid = v.get("id") or f"{v.get('solver', common.LEGACY_SOLVER)}/{v['stage']}/{v['name']}"
        variants[common.variant_id(vid)] = v.get("tunings", [])
    stages = set()
    for st in listing.get("stages", []):  # list/2 only; list/1 has its stages in the variants
        stages |= {st["id"], st["name"]} if isinstance(st, dict) else {st}
    for vid in variants:
        solver, stage = vid.split("/")[:2]
        stages |= {stage, f"{solver}/{stage}"}
    return {"recipes": names(listing.get("recipes")), "cases": names(listing.get("cases")), "stages": stages,
            "halo": {h["name"]: h.get("tunings", []) for h in listing.get("halo", [])}, "variants": variants,
            "with_cuda": bool(listing.get("with_cuda")), "with_mpi": bool(listing.get("with_mpi")),
            "poisson_methods": set(listing["poisson_methods"]) if "poisson_methods" in listing else None}


TUNED_RECIPE = "tuned"  # not a named recipe: nsbench run finds it in a tune cache (--tune-cache), or exits 4


def _check_names(path, where, opts, known):
    for v in _values(opts.get("recipe")):
        if v not in known["recipes"] and v != TUNED_RECIPE:
            _fail(path, f"{where}: unknown recipe '{v}'; known: {sorted(known['recipes'])}")
    for v in _values(opts.get("case")):
        if v not in known["cases"]:
            _fail(path, f"{where}: unknown case '{v}'; known: {sorted(known['cases'])}")
    methods = known.get("poisson_methods")
    for v in _values(opts.get("poisson")):
        if methods is not None and str(v).partition(":")[0] not in methods | SOLVER_OWN_POISSON:  # name[:options]
            _fail(path, f"{where}: unknown Poisson method '{v}' (--poisson); this nsbench has: {sorted(methods)}")
    for v in _values(opts.get("halo")):
        name, _, tuning = str(v).partition(":")
        if name not in known["halo"] and not known.get("with_cuda", True):
            continue  # a GPU halo, which a CPU-only build does not list
        if name not in known["halo"]:
            _fail(path, f"{where}: unknown halo variant '{name}'; known: {sorted(known['halo'])}")
        if tuning and tuning not in known["halo"][name]:
            _fail(path, f"{where}: unknown tuning '{tuning}' of halo/{name}; known: {known['halo'][name]}")
    for v in _values(opts.get("stage")):
        for choice in (v if isinstance(v, list) else [v]):
            if "=" not in str(choice):  # `nsbench stages --stage NAME`: a stage, not an override
                if choice not in known["stages"]:
                    _fail(path, f"{where}: unknown stage '{choice}'; known: {sorted(known['stages'])}")
                continue
            # STAGE=VARIANT[:TUNING], STAGE as 'pressure' (the projection solver implied) or 'projection/pressure'
            stage, _, rest = str(choice).partition("=")
            name, _, tuning = rest.partition(":")
            vid = common.variant_id(f"{stage}/{name}")
            if vid not in known["variants"] and not known.get("with_cuda", True):
                continue  # a CPU-only build lists no GPU variant; its GPU runs are skipped with the reason
            if vid not in known["variants"]:
                _fail(path, f"{where}: unknown variant '{stage}/{name}' in stage override '{choice}'")
            if tuning and tuning not in known["variants"][vid]:
                _fail(path, f"{where}: unknown tuning '{tuning}' of {vid}")
    variant_names = {common.variant_name(vid) for vid in known["variants"]}
    for v in _values(opts.get("variant")):  # `nsbench stages --variant NAME` (a CPU-only build lists no GPU variant)
        if common.variant_name(str(v)) not in variant_names and known.get("with_cuda", True):
            _fail(path, f"{where}: unknown variant '{v}'")


# Folders whose studies 'all' leaves out: the regression set (studies/regression/) belongs to scripts/gpu-ci; issue
# 43's targets (studies/targets/) run by name (scripts/device-run.sh targets): every row needs its full size and 20
# calls, about 2.5 minutes of one H200, too long for the quick suite. The report shows the targets (reported=True).
RUN_BY_NAME_ONLY = {"regression", "targets"}
REPORTED_WHEN_RUN = {"targets"}


def find_studies(root, name, reported=False):
    """Study files for NAME ('all': every paper's studies, less RUN_BY_NAME_ONLY's folders, of which `reported`
    keeps those the report shows; a study name; or a folder name)."""
    out = []
    left_out = RUN_BY_NAME_ONLY - (REPORTED_WHEN_RUN if reported else set())
    for paper in sorted(os.listdir(root)):
        folder = os.path.join(root, paper)
        if not os.path.isdir(folder) or (name == "all" and paper in left_out):
            continue
        for f in sorted(os.listdir(folder)):
            if f.endswith(".yaml") and (name in ("all", paper) or f[:-5] == name):
                out.append(os.path.join(folder, f))
    return out


def expand(study, mode):
    """The study's concrete runs for mode 'quick' or 'full': dicts with id, group, command, args,
    gpus (needed), mpi_ranks (0: no mpirun)."""
    runs = []
    for g in study["runs"]:
        if g.get(mode) == "skip":
            continue
        cmd = g.get("command", "run")
        opts = dict(g.get("args") or {})
        opts.update(g.get(mode) or {})
        # Stage overrides are repeatable, not a matrix: a list of lists is a matrix over sets of overrides.
        dims = [(k, v) for k, v in opts.items() if isinstance(v, list) and not (k == "stage" and not isinstance(v[0], list))]
        fixed = {k: v for k, v in opts.items() if k not in dict(dims)}
        for combo in itertools.product(*[v for _, v in dims]) if dims else [()]:
            args = dict(fixed)
            args.update({k: v for (k, _), v in zip(dims, combo)})
            ranks = int(args.get("ranks", 1))
            mpi = bool(g.get("mpi", False))
            if mpi:
                args.pop("ranks", None)
            gpus = g.get("gpus", 0)
            gpus = ranks if gpus == "ranks" else int(gpus)
            label = "-".join(_slug(k, v) for k, v in zip([k for k, _ in dims], combo))
            rid = f"{mode}-{g['group']}" + (f"-{label}" if label else "")
            runs.append({"id": rid, "group": g["group"], "command": cmd, "args": args, "gpus": gpus,
                         "mpi_ranks": ranks if mpi else 0, "params": dict(zip([k for k, _ in dims], combo))})
    ids = [r["id"] for r in runs]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise StudyError(f"{study['_path']}: two runs would share the id(s) {sorted(dup)}")
    return runs


def _slug(k, v):
    if isinstance(v, list):
        v = "+".join(str(x) for x in v)
    s = re.sub(r"[^A-Za-z0-9_+]+", "_", f"{k}{v}".replace("=", "_").replace(":", "_").replace(".", "p"))
    return s.strip("_")


# Arguments whose value is a path in this repository (the committed tune cache, baselines/tuned/): a study names them
# from the repository's root, and they are passed absolute, so that run-study may be started from any folder.
REPO_PATH_ARGS = {"tune-cache"}
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def command_line(run, nsbench, json_path, launcher=None):
    """argv for one run, the MPI launcher in front when the run is an MPI one: launcher(ranks) gives its arguments
    (a machine file's, machines.launcher_argv), else NSB_MPIRUN or Open MPI's mpirun."""
    argv = [nsbench, run["command"]]
    for k, v in run["args"].items():
        if k in REPO_PATH_ARGS and not os.path.isabs(str(v)):
            v = os.path.join(REPO_ROOT, str(v))
        if isinstance(v, bool):  # a flag: present when true (no-check, until-steady)
            if v:
                argv.append(f"--{k}")
            continue
        for item in (v if isinstance(v, list) else [v]):
            argv += [f"--{k}", str(item)]
    if run["command"] == "run":
        argv.append("--quiet")
    argv += ["--json", json_path]
    if run["mpi_ranks"] and launcher is not None:
        argv = launcher(run["mpi_ranks"]) + argv
    elif run["mpi_ranks"]:
        pre = [os.environ.get("NSB_MPIRUN", "mpirun"), "-np", str(run["mpi_ranks"]), "-x", "NCCL_NVLS_ENABLE=0"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            pre.insert(1, "--allow-run-as-root")
        argv = pre + argv
    return argv


def gpu_inventory():
    """(count, model name) of the GPUs this process may use, from the CUDA driver (machines.cuda_device_count:
    it honours CUDA_VISIBLE_DEVICES, a job's share of a node, where nvidia-smi's NVML shows every GPU);
    (0, None) without a GPU or a driver."""
    import machines  # here, not at the top: machines imports nothing of studylib, but keep studylib light
    return machines.cuda_device_count()


def machine_id(gpus=None, gpu_name=None):
    """A folder name for this machine: 'nvidia-h200-x2', or 'cpu-<model>-<cores>c' without a GPU."""
    if gpus is None:
        gpus, gpu_name = gpu_inventory()
    if gpus:
        return f"{_name_slug(gpu_name or 'unnamed-gpu')}-x{gpus}"
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1]
                    break
    except OSError:
        pass
    return f"cpu-{_name_slug(model)}-{os.cpu_count()}c"


def _name_slug(s):
    s = re.sub(r"\(R\)|\(TM\)|CPU|@.*|Processor", "", s)
    return re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")[:40]


RECORD_KINDS = ("skipped", "failed")  # run-study's records of a run without a result: <id>.skipped.json, ...
STAMPED_RE = re.compile(r"^(.+)\.([0-9]{8}T[0-9]{6}Z)$")  # <id>.<UTC time>: a repeat beside <id>.json; ids may hold dots


def result_files(folder):
    """{run id: [result paths, oldest first]} in a results/<study>/<machine>/ folder: <id>.json (or <id>.json.gz,
    as main stores results), then the repeats and re-runs <id>.<UTC stamp>.json beside it. A plain .json beside a
    .json.gz of the same name is the newer one: run-study wrote it locally after the committed one."""
    files = {}
    if not os.path.isdir(folder):
        return files
    for f in sorted(os.listdir(folder)):
        stem = common.result_stem(f)
        if stem is None or f.startswith(".") or stem.rsplit(".", 1)[-1] in RECORD_KINDS:
            continue
        m = STAMPED_RE.match(stem)
        rid, stamp = (m.group(1), m.group(2)) if m else (stem, "")
        files.setdefault(rid, []).append(((stamp, not f.endswith(".gz")), os.path.join(folder, f)))
    return {rid: [p for _, p in sorted(v)] for rid, v in files.items()}


def load_results(folder):
    """The newest result per run id in a results/<study>/<machine>/ folder, {id: result}, and the records of runs
    without a usable result, {id: record}: skipped ({reason}), failed ({exit_code, output_tail}) and unreadable
    ({unreadable: file, reason}: a truncated or damaged newest result, named so that the report can say so)."""
    results, records = {}, {}
    if not os.path.isdir(folder):
        return results, records
    for f in sorted(os.listdir(folder)):
        stem = common.result_stem(f)
        rid, _, kind = (stem or "").rpartition(".")
        if kind in RECORD_KINDS and rid:
            path = os.path.join(folder, f)
            try:
                records[rid] = common.read_json(path)
            except (OSError, EOFError, ValueError) as e:
                records[rid] = {"unreadable": path, "reason": f"not valid JSON ({e})"}
    for rid, paths in result_files(folder).items():
        try:
            results[rid] = common.read_result(paths[-1])
            records.pop(rid, None)  # a result supersedes an earlier skip or failure
        except common.ResultFileError as e:
            records[rid] = {"id": rid, "unreadable": e.path, "reason": e.reason}
    attach_twin_checks(results)
    return results, records


# A GPU run timed without its own check (--no-check: the CPU cannot check its grid in time) is checked through a
# twin in the same study on the same machine (issue 38): the CPU run of the same case, precision and grid, whose
# residual history (checks.residual_history, one value a step from the same start) the GPU run's must equal to
# rounding; else a run of the same configuration on a smaller grid that passed that check (a down-scaled twin).
TWIN_TOLERANCE = {"float": 1e-4, "double": 1e-10}  # relative, on each residual of the steps both ran
RESHAPING_OPTIONS = {"--grid", "--steps", "--warmup", "--json"}  # what a down-scaled twin may change (with a value)
OUTPUT_FLAGS = {"--quiet", "--no-check"}


def configuration(result):
    """The run's command line without its grid, step counts and output: what a run and its down-scaled twin share."""
    words, out, skip = (result.get("command_line") or "").split()[1:], [], False
    for w in words:
        if skip or w in OUTPUT_FLAGS:
            skip = False
            continue
        skip = w in RESHAPING_OPTIONS
        if not skip:
            out.append(w)
    return " ".join(out)


def _history(result):
    """checks.residual_history when it is one residual a step (a list of numbers), else None."""
    h = (result.get("checks") or {}).get("residual_history")
    return h if isinstance(h, list) and h and all(isinstance(x, (int, float)) for x in h) else None


def _grid(result):
    g = (result.get("run") or {}).get("grid") or {}
    return (g.get("nx"), g.get("ny"), g.get("nz"))


def _needs_twin(result):
    checks, run = result.get("checks") or {}, result.get("run") or {}
    return (run.get("backend") == "cuda" and not (checks.get("reference") or {}).get("performed")
            and (checks.get("validation") or {}).get("kind") in (None, "none") and _history(result))


def attach_twin_checks(results):
    """Adds checks.twin ({kind, twin, steps, max_relative_difference, tolerance, pass}) to the results of one study
    folder that need one and have a twin there; derived when the results are read, never written to a file."""
    cpu = {}
    for rid, r in sorted(results.items()):
        run = r.get("run") or {}
        if str(run.get("backend", "")).startswith("cpu") and _history(r):
            cpu.setdefault((run.get("case"), run.get("precision"), _grid(r)), (rid, r))
    for rid, r in results.items():
        run = r.get("run") or {}
        twin = cpu.get((run.get("case"), run.get("precision"), _grid(r)))
        tol = TWIN_TOLERANCE.get(run.get("precision"))
        if _needs_twin(r) and twin and tol:
            got, ref = _history(r), _history(twin[1])
            n = min(len(got), len(ref))
            diff = max(abs(a - b) / max(abs(b), 1e-300) for a, b in zip(got[:n], ref[:n]))
            r["checks"]["twin"] = {"kind": "cpu_twin", "twin": twin[0], "steps": n, "max_relative_difference": diff,
                                   "tolerance": tol, "pass": diff <= tol}
    checked = [(rid, r) for rid, r in results.items() if "twin" in r.get("checks", {})]
    for rid, r in results.items():  # the down-scaled twin: the largest checked grid of the same configuration
        if not _needs_twin(r) or "twin" in r["checks"]:
            continue
        same = [(_grid(t), tid, t) for tid, t in checked if configuration(t) == configuration(r)]
        if same:
            _, tid, t = max(same, key=lambda x: [v or 0 for v in x[0]])
            r["checks"]["twin"] = {"kind": "down_scaled_twin", "twin": tid, "grid": "x".join(map(str, _grid(t))),
                                   "pass": bool(t["checks"]["twin"]["pass"])}


# What must be the same for an earlier result to stand for a run of this build on this class of machine.
BUILD_KEYS = ("git_commit", "git_dirty", "compiler", "cxx_flags", "cuda_compiler", "cuda_flags", "cuda_architectures",
              "build_type", "with_cuda")


def run_identity(result):
    """The build and the class of machine a result was made by: every build key, the CPU model, the GPUs' name,
    count and driver (None where the result has no GPU record). Not the host nor the GPU's PCI bus: a batch job
    that lands on another node of the same partition keeps what an earlier job made."""
    build = result.get("build") or {}
    machine = result.get("machine") or {}
    gpu = machine.get("gpu") or {}
    ident = {k: build.get(k) for k in BUILD_KEYS}
    ident.update({"cpu": (machine.get("cpu") or {}).get("model"), "gpu": gpu.get("name"), "gpu_count": gpu.get("count"),
                  "gpu_driver": gpu.get("driver_version")})
    return ident


def identity_differences(earlier, now):
    """What differs between two run_identity()s, as 'key earlier -> now' strings (empty: the same)."""
    def short(k, v):
        return str(v)[:10] if k == "git_commit" and v else str(v)
    return [f"{k} {short(k, earlier.get(k))} -> {short(k, now.get(k))}" for k in now if earlier.get(k) != now.get(k)]


def describe_run(result):
    """'commit 03a8eac4bb (dirty), ran 2026-11-22T04:37:45Z' for messages and the report."""
    build = result.get("build") or {}
    dirty = " (uncommitted changes)" if build.get("git_dirty") else ""
    return f"commit {str(build.get('git_commit', '?'))[:10]}{dirty}, ran {result.get('timestamp', '?')}"


# How long a plan of runs is expected to take, from the wall times (study.wall_s) the committed results record.
def machine_gpu_count(machine):
    """The GPU count a machine id names: 'nvidia-h200-x2' 2, 'cpu-intel-xeon-2c' 0, anything else None."""
    m = re.search(r"-x([0-9]+)$", machine)
    return int(m.group(1)) if m else (0 if machine.startswith("cpu-") else None)


def reference_machines(results_root, study, machine):
    """The machine folders holding a study's committed results, the closest to `machine` first: the same machine
    id, then the same GPU count (the same GPU model first), then any; ties by name."""
    base = os.path.join(results_root, study)
    if not os.path.isdir(base):
        return []
    count, model = machine_gpu_count(machine), machine.rpartition("-x")[0]

    def distance(m):
        return m != machine, machine_gpu_count(m) != count, m.rpartition("-x")[0] != model, m
    return sorted((m for m in os.listdir(base) if os.path.isdir(os.path.join(base, m))), key=distance)


def reference_wall_times(results_root, study, run_ids, machine):
    """{run id: (seconds, machine id)}: each run's wall time as its newest committed result on the closest machine
    that has one records it (reference_machines' order). Runs without such a result are left out."""
    found = {}
    for m in reference_machines(results_root, study, machine):
        files = result_files(os.path.join(results_root, study, m))
        for rid in run_ids:
            if rid in found or rid not in files:
                continue
            try:
                wall = (common.read_result(files[rid][-1]).get("study") or {}).get("wall_s")
            except common.ResultFileError:
                continue
            if isinstance(wall, (int, float)):
                found[rid] = (float(wall), m)
    return found


def _median(values):
    v = sorted(values)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2 if v else None


def estimate_runs(plan, results_root, machine):
    """Expected seconds of each (study, run) in `plan`, in order, and what each figure rests on: (seconds, source),
    source the machine id of the committed twin, or for a run without one the median of those that have one in its
    group ('group median'), else in its study ('study median'), else in the whole plan ('plan median'); None where
    the plan has no reference at all (counted 0)."""
    wanted = {}
    for s, r in plan:
        wanted.setdefault(s["study"], []).append(r["id"])
    walls = {name: reference_wall_times(results_root, name, ids, machine) for name, ids in wanted.items()}
    known = [walls[s["study"]].get(r["id"]) for s, r in plan]
    pools = {}  # (kind, key): the referenced seconds of a group, a study and the plan
    for (s, r), ref in zip(plan, known):
        for pool in (("group", (s["study"], r["group"])), ("study", s["study"]), ("plan", None)):
            if ref:
                pools.setdefault(pool, []).append(ref[0])
    out = []
    for (s, r), ref in zip(plan, known):
        fallbacks = (("group", (s["study"], r["group"])), ("study", s["study"]), ("plan", None))
        pool = next((p for p in fallbacks if p in pools), None)
        out.append(ref or ((_median(pools[pool]), f"{pool[0]} median") if pool else (0.0, None)))
    return out
