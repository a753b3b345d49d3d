"""The generic core includes no solver or family header, and no solver includes another solver (issue 40;
ARCHITECTURE.md): a solver, or a family such as the Poisson methods, is added without touching the core, the core
reaches a family only through a registry (e.g. harness/option_choices.hpp for --poisson's names), and what two
solvers share is a family of its own (grid2d for ogrid and streamvort, transpose for fracstep and the Poisson FFT)."""
import os
import re

from study_helpers import ROOT

HARNESS = os.path.join(ROOT, "harness")
SOLVERS = sorted(d for d in os.listdir(os.path.join(HARNESS, "solvers"))
                 if os.path.isdir(os.path.join(HARNESS, "solvers", d)))
CORE_FOLDERS = [HARNESS, os.path.join(HARNESS, "run"), os.path.join(HARNESS, "cuda")]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def core_includes():
    for folder in CORE_FOLDERS:
        for name in sorted(os.listdir(folder)):
            if name.endswith((".hpp", ".cpp", ".cu", ".cuh")):
                with open(os.path.join(folder, name)) as f:
                    for header in INCLUDE.findall(f.read()):
                        yield os.path.relpath(os.path.join(folder, name), ROOT), header


def test_the_core_includes_no_solver_or_family_header():
    assert {"projection", "poisson", "wave"} <= set(SOLVERS)
    offending = [f"{path} includes {header}" for path, header in core_includes()
                 if header.split("/")[0] in SOLVERS or header.startswith("solvers/")]
    assert offending == []


# The folders that are families, shared by solvers; every other folder of harness/solvers is a solver.
FAMILIES = {"poisson", "tridiag", "transpose", "halo", "grid2d"}
TREES = [os.path.join(HARNESS, "solvers"), os.path.join(ROOT, "variants"), os.path.join(ROOT, "reference_cpu")]


def solver_includes():
    """(file, its solver, the folder a header of another solver or family names) for every solver file."""
    for tree in TREES:
        for solver in sorted(set(SOLVERS) - FAMILIES):
            for folder, _, names in os.walk(os.path.join(tree, solver)):
                for name in sorted(n for n in names if n.endswith((".hpp", ".cpp", ".cu", ".cuh"))):
                    with open(os.path.join(folder, name)) as f:
                        for header in INCLUDE.findall(f.read()):
                            yield os.path.relpath(os.path.join(folder, name), ROOT), solver, header.split("/")[0]


def test_no_solver_includes_another_solver():
    assert {"projection", "streamvort", "ogrid", "fracstep"} <= set(SOLVERS) - FAMILIES
    offending = [f"{path} includes {top}/" for path, solver, top in solver_includes()
                 if top in set(SOLVERS) - FAMILIES and top != solver]
    assert offending == []
