"""Machines as data: how a study's MPI runs are launched, how many GPUs the job was granted, and the sbatch
script of a study's multi-GPU groups.

A machine file (scripts/machines/<name>.yaml) says:

    name: slurm-gpu                     # a label for messages
    launcher: srun -N {nodes} -n {ranks} --ntasks-per-node={ranks_per_node} --gpus-per-task=1
              --export=ALL,NCCL_NVLS_ENABLE=0
    gpus_per_node: 4                    # GPUs one node gives the job
    nodes: 4                            # nodes the job may use (default 1)
    env: {OMP_NUM_THREADS: 8}           # set for every run (optional)
    setup: [module load cuda openmpi]   # shell lines before the runs in a batch script (optional)
    batch: ["#SBATCH --partition=gpu", "#SBATCH --time=02:00:00"]  # header lines of the batch script (optional)

The launcher is a template: {ranks}, {nodes} (the fewest nodes that hold the ranks at gpus_per_node each,
at least 1) and {ranks_per_node} are filled per run; it is split like a shell line (no shell runs it).

Where the GPUs come from (allocated_gpus): inside a SLURM job, SLURM's variables (the job's nodes and GPUs
per node); else the machine file's nodes x gpus_per_node; else the GPUs this process's CUDA driver shows
(cuDeviceGetCount, which honours CUDA_VISIBLE_DEVICES, unlike nvidia-smi's NVML). None of these asks
nvidia-smi, so a job granted 2 of a node's 8 GPUs counts 2.
"""
import ctypes
import math
import os
import re
import shlex

import yaml

MACHINES_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "machines"))
_PLACEHOLDERS = {"ranks", "nodes", "ranks_per_node"}


class MachineFileError(ValueError):
    """A machine file that cannot be used, with the file and the key in the message."""


def load(path):
    """The machine file at path (or the name of one in scripts/machines/), checked."""
    if not os.path.exists(path) and os.path.exists(os.path.join(MACHINES_DIR, path + ".yaml")):
        path = os.path.join(MACHINES_DIR, path + ".yaml")
    try:
        with open(path) as f:
            m = yaml.safe_load(f)
    except OSError as e:
        raise MachineFileError(f"machine file {path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise MachineFileError(f"machine file {path}: not YAML ({e})") from None
    if not isinstance(m, dict):
        raise MachineFileError(f"machine file {path}: expected a mapping of keys (launcher, gpus_per_node, ...)")
    return _checked(m, path)


def _checked(m, path):
    def fail(why):
        raise MachineFileError(f"machine file {path}: {why}")
    known = {"name", "launcher", "gpus_per_node", "nodes", "env", "setup", "batch"}
    if set(m) - known:
        fail(f"unknown key(s) {sorted(set(m) - known)}; known: {sorted(known)}")
    if not isinstance(m.get("launcher"), str) or "{ranks}" not in m["launcher"]:
        fail("'launcher' must be a command template that holds {ranks}, e.g. 'mpirun -np {ranks}'")
    unknown = set(re.findall(r"{(\w*)}", m["launcher"])) - _PLACEHOLDERS
    if unknown:
        fail(f"launcher placeholder(s) {sorted(unknown)} unknown; known: {sorted(_PLACEHOLDERS)}")
    for key in ("gpus_per_node", "nodes"):
        if key in m and (not isinstance(m[key], int) or isinstance(m[key], bool) or m[key] < (0 if key == "gpus_per_node" else 1)):
            fail(f"'{key}' must be a whole number ({'0 or more' if key == 'gpus_per_node' else '1 or more'}), not {m[key]!r}")
    if not isinstance(m.get("env", {}), dict):
        fail("'env' must map variable names to values")
    for key in ("setup", "batch"):
        if not isinstance(m.get(key, []), list) or not all(isinstance(x, str) for x in m.get(key, [])):
            fail(f"'{key}' must be a list of lines")
    out = {"name": str(m.get("name") or os.path.splitext(os.path.basename(path))[0]), "path": path,
           "launcher": m["launcher"], "gpus_per_node": m.get("gpus_per_node", 0), "nodes": m.get("nodes", 1),
           "env": {str(k): str(v) for k, v in (m.get("env") or {}).items()}, "setup": m.get("setup", []),
           "batch": m.get("batch", [])}
    return out


def nodes_for(machine, ranks):
    """The fewest nodes that hold `ranks` ranks at one GPU each (1 on a machine file without GPUs)."""
    per = machine["gpus_per_node"]
    return max(1, math.ceil(ranks / per)) if per else 1


def launcher_argv(machine, ranks):
    """The launcher's argument list for a run of `ranks` MPI ranks."""
    nodes = nodes_for(machine, ranks)
    line = machine["launcher"].format(ranks=ranks, nodes=nodes, ranks_per_node=math.ceil(ranks / nodes))
    return shlex.split(line)


def cuda_device_count():
    """(count, name of device 0) that this process's CUDA driver shows, (0, None) without a driver or a GPU.
    cuDeviceGetCount honours CUDA_VISIBLE_DEVICES (a job's share of a node); nvidia-smi does not."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0, None
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return 0, None
    dev = ctypes.c_int(0)
    name = ctypes.create_string_buffer(256)
    if cuda.cuDeviceGet(ctypes.byref(dev), 0) != 0 or cuda.cuDeviceGetName(name, 256, dev) != 0:
        return count.value, None
    return count.value, name.value.decode(errors="replace")


def slurm_gpus(env=None):
    """GPUs of the SLURM job this process runs in (nodes x GPUs a node), or None outside a job or where the
    job's variables do not say. SLURM_GPUS_ON_NODE is the GPUs this node gives the job."""
    env = os.environ if env is None else env
    if "SLURM_JOB_ID" not in env:
        return None
    per_node = env.get("SLURM_GPUS_ON_NODE") or ""
    if not per_node.isdigit():  # SLURM_GPUS_PER_NODE may be "h100:4"
        per_node = (env.get("SLURM_GPUS_PER_NODE") or "").split(":")[-1]
    nodes = env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or "1"
    if not per_node.isdigit() or not nodes.isdigit():
        return None
    return int(per_node) * int(nodes)


def allocated_gpus(machine=None, env=None):
    """(GPUs this job may use, where that number came from)."""
    from_slurm = slurm_gpus(env)
    if from_slurm is not None:
        return from_slurm, "the SLURM job's variables"
    if machine is not None and machine["gpus_per_node"]:
        return machine["gpus_per_node"] * machine["nodes"], f"machine file {machine['path']}"
    count, _ = cuda_device_count()
    return count, "the CUDA driver (CUDA_VISIBLE_DEVICES honoured)"


def batch_script(machine, study, ranks_needed, run_study_args, repo_root):
    """An sbatch script that runs `scripts/run-study STUDY` inside an allocation large enough for its
    largest MPI group (ranks_needed GPUs), launching each MPI run through the machine file."""
    nodes = nodes_for(machine, ranks_needed)
    per = machine["gpus_per_node"]
    lines = ["#!/bin/bash", f"#SBATCH --job-name=nsbench-{study}", f"#SBATCH --nodes={nodes}"]
    if per:
        lines += [f"#SBATCH --gpus-per-node={per}", f"#SBATCH --ntasks-per-node={per}"]
    lines += machine["batch"]
    lines += ["# Written by scripts/run-study --emit-batch; submit with: sbatch <this file>", "set -euo pipefail"]
    lines += machine["setup"]
    lines += [f"export {k}={shlex.quote(v)}" for k, v in machine["env"].items()]
    cmd = [os.path.join(repo_root, "scripts", "run-study"), study, "--machine-file", machine["path"]] + run_study_args
    lines.append(shlex.join(cmd))
    return "\n".join(lines) + "\n"
