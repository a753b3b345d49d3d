"""Study files: parsing, validation, expansion into concrete nsbench commands, and where results live.

A study file (studies/<paper>/<name>.yaml) names the table or figure it reproduces, the paper's
published numbers (a CSV beside it) and the runs. Each entry of `runs` is a group: `args` are nsbench
options, and every option given as a list is a matrix dimension; `quick:` / `full:` replace options
for that form of the study. Example:

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
"""
import itertools
import json
import os
import re
import subprocess

import yaml

STUDY_KEYS = {"study", "title", "reproduces", "paper", "baseline", "report", "runs", "notes"}
REQUIRED_STUDY_KEYS = {"study", "title", "reproduces", "baseline", "report", "runs"}
PAPER_KEYS = {"csv", "hardware", "source"}
RUN_KEYS = {"group", "command", "gpus", "mpi", "args", "quick", "full"}
COMMANDS = {"run", "stages", "bandwidth"}
# nsbench options a study may set, per command (the CLI's own names without the dashes).
OPTIONS = {
    "run": {"case", "grid", "re", "dt", "safety", "gamma", "scheme", "backend", "threads", "precision", "recipe",
            "stage", "steps", "warmup", "jacobi-iterations", "jacobi-tol", "check-every", "launch", "ranks", "halo",
            "no-check"},
    "stages": {"grid", "precision", "stage", "variant", "tuning", "samples", "warmup"},
    "bandwidth": {"samples", "max-mib"},
}
REPORTS = {"cpu_gflops", "stage_compare", "recipe_compare", "speedup", "scaling", "block_shapes", "registers",
           "bandwidth", "roofline", "regression"}
GRID_RE = re.compile(r"^([1-9][0-9]*)x([1-9][0-9]*)x([1-9][0-9]*)$")


class StudyError(ValueError):
    """A study file that cannot be run, with a message naming the file and the problem."""


def _fail(path, msg):
    raise StudyError(f"{path}: {msg}")


def load_study(path, known=None):
    """Reads and validates one study file. `known` (from `nsbench list --json`) also checks recipe,
    variant, halo and case names; without it only the structure is checked."""
    with open(path) as f:
        try:
            s = yaml.safe_load(f)
        except yaml.YAMLError as e:
            _fail(path, f"not valid YAML: {e}")
    if not isinstance(s, dict):
        _fail(path, "a study file is a mapping (study:, title:, runs:, ...)")
    unknown = set(s) - STUDY_KEYS
    if unknown:
        _fail(path, f"unknown key(s) {sorted(unknown)}; known: {sorted(STUDY_KEYS)}")
    missing = REQUIRED_STUDY_KEYS - set(s)
    if missing:
        _fail(path, f"missing key(s) {sorted(missing)}")
    if s["report"] not in REPORTS:
        _fail(path, f"unknown report '{s['report']}'; known: {sorted(REPORTS)}")
    paper = s.get("paper")
    if paper is not None:
        if set(paper) - PAPER_KEYS:
            _fail(path, f"paper: unknown key(s) {sorted(set(paper) - PAPER_KEYS)}; known: {sorted(PAPER_KEYS)}")
        csv = os.path.join(os.path.dirname(path), paper.get("csv", ""))
        if "csv" in paper and not os.path.isfile(csv):
            _fail(path, f"paper csv '{paper['csv']}' not found next to the study")
    if not isinstance(s["runs"], list) or not s["runs"]:
        _fail(path, "runs: a non-empty list of run groups")
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
        cmd = r.get("command", "run")
        if cmd not in COMMANDS:
            _fail(path, f"{where}: unknown command '{cmd}'; known: {sorted(COMMANDS)}")
        for section in ("args", "quick", "full"):
            opts = r.get(section, {}) or {}
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
            if known:
                _check_names(path, f"{where}.{section}", opts, known)
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


def _check_names(path, where, opts, known):
    for v in _values(opts.get("recipe")):
        if v not in known["recipes"]:
            _fail(path, f"{where}: unknown recipe '{v}'; known: {known['recipes']}")
    for v in _values(opts.get("case")):
        if v not in known["cases"]:
            _fail(path, f"{where}: unknown case '{v}'; known: {known['cases']}")
    halos = {h["name"]: h for h in known["halo"]}
    for v in _values(opts.get("halo")):
        name, _, tuning = str(v).partition(":")
        if name not in halos:
            _fail(path, f"{where}: unknown halo variant '{name}'; known: {sorted(halos)}")
        if tuning and tuning not in halos[name]["tunings"]:
            _fail(path, f"{where}: unknown tuning '{tuning}' of halo/{name}; known: {halos[name]['tunings']}")
    variants = {(v["stage"], v["name"]): v for v in known["variants"]}
    for v in _values(opts.get("stage")):
        for choice in (v if isinstance(v, list) else [v]):
            stage, _, rest = str(choice).partition("=")
            name, _, tuning = rest.partition(":")
            if (stage, name) not in variants:
                _fail(path, f"{where}: unknown variant '{stage}/{name}' in stage override '{choice}'")
            if tuning and tuning not in variants[(stage, name)]["tunings"]:
                _fail(path, f"{where}: unknown tuning '{tuning}' of {stage}/{name}")


def find_studies(root, name):
    """Study files for NAME ('all': every paper's studies; a study name; or a folder name). The
    regression set (studies/regression/) belongs to scripts/gpu-ci and is run only by name."""
    out = []
    for paper in sorted(os.listdir(root)):
        folder = os.path.join(root, paper)
        if not os.path.isdir(folder) or (name == "all" and paper == "regression"):
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


def command_line(run, nsbench, json_path):
    """argv for one run (mpirun in front when the run is an MPI one)."""
    argv = [nsbench, run["command"]]
    for k, v in run["args"].items():
        if k == "no-check":
            if v:
                argv.append("--no-check")
            continue
        for item in (v if isinstance(v, list) else [v]):
            argv += [f"--{k}", str(item)]
    if run["command"] == "run":
        argv.append("--quiet")
    argv += ["--json", json_path]
    if run["mpi_ranks"]:
        pre = [os.environ.get("NSB_MPIRUN", "mpirun"), "-np", str(run["mpi_ranks"]), "-x", "NCCL_NVLS_ENABLE=0"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            pre.insert(1, "--allow-run-as-root")
        argv = pre + argv
    return argv


def gpu_inventory():
    """(count, model name) of the GPUs nvidia-smi sees; (0, None) without a GPU or a driver."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return 0, None
    names = [l.strip() for l in out.stdout.splitlines() if l.strip()] if out.returncode == 0 else []
    return len(names), (names[0] if names else None)


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


def load_results(folder):
    """Newest result per run id in a results/<study>/<machine>/ folder: {id: json}, and the skip and
    failure records {id: record}."""
    results, skipped, newest = {}, {}, {}
    if not os.path.isdir(folder):
        return results, skipped
    for f in sorted(os.listdir(folder)):
        p = os.path.join(folder, f)
        if f.endswith(".skipped.json") or f.endswith(".failed.json"):
            with open(p) as fh:
                skipped[f.rsplit(".", 2)[0]] = json.load(fh)
        elif f.endswith(".json") and not f.startswith("."):
            rid, _, stamp = f[:-5].partition(".")  # id.json, or id.<UTC stamp>.json for a repeat: newest wins
            if rid in newest and newest[rid] > stamp:
                continue
            newest[rid] = stamp
            with open(p) as fh:
                results[rid] = json.load(fh)
    for rid in results:
        skipped.pop(rid, None)  # a result supersedes an earlier skip or failure
    return results, skipped
