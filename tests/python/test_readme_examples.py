"""README's CPU examples run as written (issue 39: a newcomer met a traceback, a refusal as root and an untracked
folder). The block after the marker `<!-- readme-cpu-examples` is read from README.md, so the test and README cannot
drift. Each line runs in a scratch folder laid out like the repository (reports/, scripts/, studies/, results/ linked;
build/nsbench the nsbench under test), and whatever the examples write must land in build/ (ignored by git).

The nsbench: $NSB_README_NSBENCH (ctest passes its own build's), else build-cpu/nsbench; the test is skipped, saying
so, without one."""
import json
import os
import re
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MARKER = "<!-- readme-cpu-examples"
LINKED = ("reports", "scripts", "studies", "results")


def cpu_examples():
    """The lines of README's code block after the marker."""
    text = open(os.path.join(ROOT, "README.md")).read()
    assert MARKER in text, "README.md lost its CPU examples' marker"
    block = re.search(r"```sh\n(.*?)```", text[text.index(MARKER):], re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def nsbench():
    path = os.environ.get("NSB_README_NSBENCH") or os.path.join(ROOT, "build-cpu", "nsbench")
    if not os.access(path, os.X_OK):
        pytest.skip(f"no nsbench to run README's examples with ({path} absent: build CPU-only with "
                    f"BUILD=build-cpu scripts/build.sh -DNSB_ENABLE_CUDA=OFF, or set NSB_README_NSBENCH)")
    return path


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    work = tmp_path_factory.mktemp("readme")
    for name in LINKED:
        os.symlink(os.path.join(ROOT, name), work / name)
    (work / "build").mkdir()
    os.symlink(nsbench(), work / "build" / "nsbench")
    return work


@pytest.mark.parametrize("line", cpu_examples())
def test_readme_cpu_example_runs_as_written(scratch, line):
    env = dict(os.environ, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="passive")
    r = subprocess.run(["bash", "-c", line], cwd=scratch, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0 and "Traceback" not in r.stderr, f"{line}\n{r.stdout[-2000:]}{r.stderr[-2000:]}"
    written = sorted(set(os.listdir(scratch)) - set(LINKED) - {"build"})
    assert not written, f"{line} wrote {written} outside build/: untracked files in a checkout"


def test_the_examples_are_cpu_ones_and_the_block_is_there():
    lines = cpu_examples()
    assert len(lines) >= 5 and not any("--backend cuda" in line for line in lines)


def test_stage_table_reads_a_cpu_result_and_names_a_missing_file(tmp_path):
    cpu = {"schema": "nsbench.stages/2", "grid": {"nx": 8, "ny": 8, "nz": 8}, "precision": "float",
           "machine": {"cpu": {"model": "Some CPU"}}, "build": {},
           "rows": [{"stage": "pressure", "variant": "projection/pressure/cpu_omp", "tuning": "default",
                     "scheme": "", "median_s": 1e-5, "iqr_s": 1e-7, "bytes_per_second": 1e9,
                     "fraction_of_copy_bandwidth": float("nan"), "kernels": []}]}
    (tmp_path / "s.json").write_text(json.dumps(cpu))  # NaN, as nsbench writes a CPU row's fraction of copy
    table = os.path.join(ROOT, "reports", "stage_table.py")
    r = subprocess.run(["python3", table, "s.json"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and "8x8x8, float, CPU Some CPU" in r.stdout and "| - | - |" in r.stdout, r.stderr
    r = subprocess.run(["python3", table, "absent.json"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "stage_table.py: absent.json: cannot read it" in r.stderr
