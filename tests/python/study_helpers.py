"""What the study, runner and report tests share: paths, the fake nsbench, and running scripts/run-study."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REPORTS = os.path.join(ROOT, "reports")
sys.path.insert(0, REPORTS)
FAKE = os.path.join(HERE, "fake_nsbench.py")
STUDIES = os.path.join(ROOT, "studies")


def known(old_schema=False):
    """The fake nsbench's `list --json` (nsbench.list/2, or nsbench.list/1 with old_schema)."""
    env = dict(os.environ, FAKE_NSBENCH_SCHEMA="1" if old_schema else "")
    return json.loads(subprocess.run([sys.executable, FAKE, "list", "--json"], capture_output=True, text=True,
                                     env=env).stdout)


def run_study(tmp_path, *args, env=None, results=True, popen=False, studies=STUDIES):
    """scripts/run-study with the fake nsbench and mpirun, machine id 'testbox'; results under tmp_path/results
    (or, with results=False, wherever the runner puts them by default, run from tmp_path)."""
    # The fake mpirun has no slot limit: the MPI runs of 8 ranks run on a 2-core machine too (unless env says otherwise).
    e = dict(os.environ, NSB_MPIRUN=os.path.join(HERE, "fake_mpirun.sh"), NSB_MPI_SLOTS="64", **(env or {}))
    where = ["--results", str(tmp_path / "results")] if results else []
    argv = [sys.executable, os.path.join(REPORTS, "run_study.py"), *args, "--nsbench", FAKE, "--studies", studies,
            *where, "--machine-id", "testbox"]
    if popen:  # started, not waited for (popen=True): for the tests of two runners at once and of Ctrl-C
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                                cwd=tmp_path if not results else ROOT)
    return subprocess.run(argv, capture_output=True, text=True, env=e, cwd=tmp_path if not results else ROOT)


def md_rows(md, first_cells):
    """The cells of the Markdown table row that starts with the given cells."""
    prefix = "| " + " | ".join(first_cells) + " |"
    line = next(line for line in md.splitlines() if line.startswith(prefix))
    return [c.strip() for c in line.split("|")[1:-1]]
