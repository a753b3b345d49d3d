"""Machines as data (reports/machines.py, scripts/machines/*.yaml): the launcher argument lists for srun,
mpirun and mpiexec (dry runs), the GPU count of an allocation, refusals that name the file and the key,
and the sbatch script of a study."""
import os

import pytest

from study_helpers import ROOT  # noqa: F401  (puts reports/ on the path)

import machines  # noqa: E402

SHIPPED = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "machines")


def write(tmp_path, text):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    return str(p)


def test_srun_places_one_rank_a_gpu_over_the_fewest_nodes():
    m = machines.load(os.path.join(SHIPPED, "slurm-srun.yaml"))
    assert machines.launcher_argv(m, 8) == ["srun", "-N", "2", "-n", "8", "--ntasks-per-node=4", "--gpus-per-task=1",
                                            "--export=ALL,NCCL_NVLS_ENABLE=0"]
    assert machines.launcher_argv(m, 2)[:5] == ["srun", "-N", "1", "-n", "2"]


def test_mpirun_and_mpiexec_argument_lists():
    assert machines.launcher_argv(machines.load("local-mpirun"), 2) == ["mpirun", "-np", "2", "-x", "NCCL_NVLS_ENABLE=0"]
    assert machines.launcher_argv(machines.load("mpich-mpiexec"), 3) == ["mpiexec", "-n", "3", "-genv",
                                                                          "NCCL_NVLS_ENABLE", "0"]


@pytest.mark.parametrize("text, says", [
    ("launcher: mpirun -np 4\n", "must be a command template that holds {ranks}"),
    ("launcher: srun -n {ranks} -c {cores}\n", "placeholder(s) ['cores'] unknown"),
    ("launcher: mpirun -np {ranks}\ngpu_per_node: 4\n", "unknown key(s) ['gpu_per_node']"),
    ("launcher: mpirun -np {ranks}\nnodes: 0\n", "'nodes' must be a whole number"),
    ("- a list\n", "expected a mapping"),
])
def test_a_bad_machine_file_is_refused_naming_file_and_key(tmp_path, text, says):
    path = write(tmp_path, text)
    with pytest.raises(machines.MachineFileError) as e:
        machines.load(path)
    assert path in str(e.value) and says in str(e.value)


def test_gpus_come_from_the_slurm_job_not_from_the_node():
    job = {"SLURM_JOB_ID": "7", "SLURM_JOB_NUM_NODES": "2", "SLURM_GPUS_ON_NODE": "2"}
    assert machines.slurm_gpus(job) == 4  # a job granted 2 of each node's 8 GPUs counts 2 a node
    assert machines.slurm_gpus({"SLURM_JOB_ID": "7", "SLURM_NNODES": "3", "SLURM_GPUS_PER_NODE": "h100:4"}) == 12
    assert machines.slurm_gpus({}) is None  # a login node: not a job
    assert machines.allocated_gpus(None, job) == (4, "the SLURM job's variables")


def test_outside_a_job_the_machine_file_says_how_many():
    m = machines.load("slurm-srun")
    assert machines.allocated_gpus(m, {}) == (16, f"machine file {m['path']}")


def test_the_batch_script_allocates_the_largest_group_and_runs_the_study_through_the_file():
    m = machines.load("slurm-srun")
    text = machines.batch_script(m, "fig4_8_scaling", 8, ["--full"], "/repo")
    lines = text.splitlines()
    assert lines[0] == "#!/bin/bash"
    assert "#SBATCH --nodes=2" in lines and "#SBATCH --gpus-per-node=4" in lines and "#SBATCH --time=02:00:00" in lines
    assert "module load cuda openmpi || true" in lines
    assert lines[-1] == f"/repo/scripts/run-study fig4_8_scaling --machine-file {m['path']} --full"


def test_run_study_launches_mpi_runs_through_the_machine_file(tmp_path):
    from study_helpers import run_study
    r = run_study(tmp_path, "fig4_8_scaling", "--quick", "--gpus", "8", "--dry-run", "--machine-file", "slurm-srun")
    assert r.returncode == 0, r.stdout + r.stderr
    mpi_lines = [line for line in r.stdout.splitlines() if " --ranks " not in line and "srun " in line]
    assert mpi_lines and all("srun -N 1 -n 2 --ntasks-per-node=2 --gpus-per-task=1" in line for line in mpi_lines)
    assert "mpirun" not in r.stdout


def test_run_study_emits_the_batch_script_of_the_multi_gpu_groups(tmp_path):
    from study_helpers import run_study
    script = tmp_path / "fig4_8.sbatch"
    r = run_study(tmp_path, "fig4_8_scaling", "--quick", "--machine-file", "slurm-srun", "--emit-batch", str(script))
    assert r.returncode == 0, r.stdout + r.stderr
    text = script.read_text()
    assert "#SBATCH --nodes=1" in text and "--machine-file" in text and "--groups" in text
    assert f"submit it with: sbatch {script}" in r.stdout
    bad = run_study(tmp_path, "fig4_8_scaling", "--quick", "--emit-batch", str(script))
    assert bad.returncode != 0 and "--emit-batch needs --machine-file" in bad.stderr


def test_a_bad_machine_file_stops_run_study_naming_it(tmp_path):
    from study_helpers import run_study
    bad = tmp_path / "bad.yaml"
    bad.write_text("launcher: srun -n 4\n")
    r = run_study(tmp_path, "fig4_8_scaling", "--quick", "--dry-run", "--machine-file", str(bad))
    assert r.returncode != 0 and f"machine file {bad}" in r.stderr
