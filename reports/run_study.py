"""scripts/run-study: run the studies in studies/ with nsbench and store every run's result.

    scripts/run-study NAME|all [--quick|--full] [--nsbench PATH] [--results DIR] [--dry-run] [--again]

Each run's JSON goes to results/<study>/<machine-id>/<run-id>.json. The runner never overwrites a
result: a run whose file exists is skipped (so an interrupted study resumes where it stopped), and
--again writes a new <run-id>.<UTC time>.json beside the old one. A result file appears only when
its run finished (written under a temporary name, then renamed). Runs that need more GPUs than this
machine has are not started; a <run-id>.skipped.json records why. A failed run leaves
<run-id>.failed.json with the end of its output, and the runner goes on with the next run.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import studylib  # noqa: E402


def known_names(nsbench):
    try:
        out = subprocess.run([nsbench, "list", "--json"], capture_output=True, text=True, timeout=60, check=True)
        return json.loads(out.stdout)
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as e:
        raise SystemExit(f"run-study: cannot ask {nsbench} what it knows ({e}); build it first (scripts/build.sh)")


def fmt_time(s):
    s = int(s)
    return f"{s // 3600}h{s % 3600 // 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


def write_json(path, obj):
    tmp = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".partial")
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="run-study", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("name", help="a study name (e.g. fig4_5_global_vs_optimal), a paper folder (thibault2009) or all")
    form = ap.add_mutually_exclusive_group()
    form.add_argument("--quick", action="store_const", dest="mode", const="quick",
                      help="the same experiments at smaller cost (default)")
    form.add_argument("--full", action="store_const", dest="mode", const="full",
                      help="the paper's sizes and step counts where feasible")
    ap.add_argument("--nsbench", default=os.environ.get("NSBENCH", "build/nsbench"))
    ap.add_argument("--studies", default="studies")
    ap.add_argument("--results", default="results")
    ap.add_argument("--machine-id", default=None, help="results folder name (default: from the GPUs or the CPU)")
    ap.add_argument("--gpus", type=int, default=None, help="GPUs to assume (default: what nvidia-smi sees)")
    ap.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    ap.add_argument("--again", action="store_true", help="run even where a result exists (kept beside it)")
    a = ap.parse_args(argv)
    mode = a.mode or "quick"

    known = None if a.dry_run and not os.path.exists(a.nsbench) else known_names(a.nsbench)
    paths = studylib.find_studies(a.studies, a.name)
    if not paths:
        raise SystemExit(f"run-study: no study named '{a.name}' in {a.studies}/ "
                         f"(known: {', '.join(os.path.basename(p)[:-5] for p in studylib.find_studies(a.studies, 'all'))})")
    try:
        studies = [studylib.load_study(p, known) for p in paths]
    except studylib.StudyError as e:
        raise SystemExit(f"run-study: {e}")
    gpus, gpu_name = studylib.gpu_inventory()
    if a.gpus is not None:
        gpus = a.gpus
    machine = a.machine_id or studylib.machine_id(gpus, gpu_name)
    if known is not None and not known.get("with_cuda"):
        gpus = 0  # a CPU-only build cannot use the GPUs it sees

    plan = []
    for s in studies:
        for r in studylib.expand(s, mode):
            plan.append((s, r))
    print(f"run-study: {len(plan)} runs in {len(studies)} studies ({mode}), machine {machine}, {gpus} GPU(s)", flush=True)

    t0 = time.time()
    durations, failed, ran, skipped, resumed = [], 0, 0, 0, 0
    for i, (s, r) in enumerate(plan, 1):
        folder = os.path.join(a.results, s["study"], machine)
        final = os.path.join(folder, r["id"] + ".json")
        left = len(plan) - i
        eta = f", about {fmt_time(sum(durations) / len(durations) * left)} left" if durations else ""
        head = f"[{i}/{len(plan)}] {s['study']} {r['id']}"
        if os.path.exists(final) and not a.again:
            resumed += 1
            print(f"{head}: done earlier, kept ({final})", flush=True)
            continue
        reason = None
        if r["gpus"] > gpus:
            reason = (f"needs {r['gpus']} GPU(s), this machine has {gpus}" if gpus else
                      f"needs {r['gpus']} GPU(s); this machine has none usable (CPU-only: GPU rows skipped)")
        elif r["mpi_ranks"] and known is not None and not known.get("with_mpi"):
            reason = "needs the MPI driver; this nsbench was built without MPI"
        if a.again and os.path.exists(final):
            final = os.path.join(folder, f"{r['id']}.{datetime.datetime.utcnow().strftime('%Y%m%dT%H%M%SZ')}.json")
        argv = studylib.command_line(r, a.nsbench, final + ".tmp")
        if a.dry_run:
            print(f"{head}: {'SKIP (' + reason + ')' if reason else ' '.join(argv)}")
            continue
        os.makedirs(folder, exist_ok=True)
        if reason:
            skipped += 1
            write_json(os.path.join(folder, r["id"] + ".skipped.json"),
                       {"id": r["id"], "reason": reason, "command": " ".join(argv), "when": time.time()})
            print(f"{head}: SKIPPED, {reason}", flush=True)
            continue
        print(f"{head}: running ({fmt_time(time.time() - t0)} elapsed{eta})", flush=True)
        start = time.time()
        env = dict(os.environ, NCCL_NVLS_ENABLE="0", OMP_WAIT_POLICY=os.environ.get("OMP_WAIT_POLICY", "passive"))
        if r["mpi_ranks"]:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        durations.append(time.time() - start)
        tmp = final + ".tmp"
        if proc.returncode not in (0, 2) or not os.path.exists(tmp):
            failed += 1
            tail = (proc.stdout + proc.stderr)[-3000:]
            write_json(os.path.join(folder, r["id"] + ".failed.json"),
                       {"id": r["id"], "command": " ".join(argv), "exit_code": proc.returncode, "output_tail": tail})
            print(f"{head}: FAILED (exit {proc.returncode}): {tail.strip().splitlines()[-1] if tail.strip() else ''}",
                  flush=True)
            if os.path.exists(tmp):
                os.remove(tmp)
            continue
        with open(tmp) as f:
            result = json.load(f)
        result["study"] = {"study": s["study"], "run_id": r["id"], "group": r["group"], "mode": mode,
                           "params": r["params"], "machine_id": machine, "command": " ".join(argv)}
        write_json(final, result)
        os.remove(tmp)
        stale = os.path.join(folder, r["id"] + ".failed.json")
        if os.path.exists(stale):
            os.remove(stale)
        ran += 1
        verdict = ""
        ref = result.get("checks", {}).get("reference", {})
        if ref.get("performed"):
            verdict = ", check " + ("PASS" if ref.get("pass") else "FAIL")
        step = result.get("timing", {}).get("step", {}).get("median")
        print(f"{head}: {durations[-1]:.1f} s" + (f", {step * 1e3:.4g} ms/step" if step else "") + verdict, flush=True)
    print(f"run-study: {ran} run, {resumed} kept from earlier, {skipped} skipped, {failed} failed "
          f"in {fmt_time(time.time() - t0)}; results under {a.results}/<study>/{machine}/")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
