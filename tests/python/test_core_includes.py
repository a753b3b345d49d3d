"""The generic core includes no solver or family header (issue 40; ARCHITECTURE.md): a solver, or a family such as
the Poisson methods, is added without touching the core, and the core reaches a family only through a registry
(e.g. harness/option_choices.hpp for --poisson's names)."""
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
