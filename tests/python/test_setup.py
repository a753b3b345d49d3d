"""scripts/setup.sh checks capabilities (commands, headers, libraries, Python modules), installs only what
is missing and never fails offline for something that is present. Runs it with its test-only hooks
(NSB_SETUP_PRETEND_MISSING, NSB_SETUP_OFFLINE) and a fake apt-get (and sudo) first on PATH that records
how it was called, so nothing is ever installed."""
import os
import stat
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SETUP = os.path.join(ROOT, "scripts", "setup.sh")


def fake_tools(folder, update_rc, install_rc, cmake_version):
    """apt-get that appends its arguments to folder/apt-get.calls and exits with the given codes; sudo
    that runs its command (so that a non-root run reaches the fake apt-get, never the real one); with
    cmake_version, a cmake that says it is that version (as pip's CMake 4 does, dpkg knowing nothing)."""
    folder.mkdir(parents=True, exist_ok=True)
    calls = folder / "apt-get.calls"
    scripts = {
        "apt-get": f'#!/bin/sh\necho "$*" >>"{calls}"\n'
                   f'case "$1" in update) exit {update_rc} ;; install) exit {install_rc} ;; esac\nexit 0\n',
        "sudo": '#!/bin/sh\nexec "$@"\n',
    }
    if cmake_version:
        scripts["cmake"] = f'#!/bin/sh\necho "cmake version {cmake_version}"\n'
    for name, text in scripts.items():
        path = folder / name
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return calls


def run_setup(tmp_path, update_rc=0, install_rc=100, cmake_version=None, **env):
    calls = fake_tools(tmp_path / "bin", update_rc, install_rc, cmake_version)
    environment = dict(os.environ, PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}", **env)
    for hook in ("NSB_SETUP_PRETEND_MISSING", "NSB_SETUP_OFFLINE"):
        if hook not in env:
            environment.pop(hook, None)
    r = subprocess.run([SETUP], capture_output=True, text=True, env=environment, cwd=ROOT, timeout=300)
    r.apt_calls = calls.read_text().splitlines() if calls.exists() else []
    r.output = r.stdout + r.stderr
    return r


@pytest.fixture(scope="module")
def everything_present(tmp_path_factory):
    """The other tests pretend things missing; they mean something only where nothing really is."""
    r = run_setup(tmp_path_factory.mktemp("probe"))
    if "missing" in r.output.lower():
        pytest.skip(f"this machine really lacks something setup.sh checks:\n{r.output}")
    return r


def test_all_present_passes_without_calling_apt_get(everything_present):
    r = everything_present
    assert r.returncode == 0, r.output
    assert "everything nsbench needs is here" in r.stdout
    assert r.apt_calls == []
    assert "CUDA compiler" in r.stdout.splitlines()[-1]  # the CUDA message stays last


def test_offline_and_a_required_module_missing_fails_and_names_its_package(everything_present, tmp_path):
    r = run_setup(tmp_path, NSB_SETUP_PRETEND_MISSING="yaml", NSB_SETUP_OFFLINE="1")
    assert r.returncode == 1, r.output
    assert "MISSING (required): Python module yaml; Debian package python3-yaml, or pip install pyyaml" in r.stderr
    assert "no package index reachable" in r.stderr
    assert r.apt_calls == []  # offline: apt-get is not even tried


def test_offline_and_optional_ones_missing_warns_and_passes(everything_present, tmp_path):
    r = run_setup(tmp_path, NSB_SETUP_PRETEND_MISSING="benchmark,mpi,ccache", NSB_SETUP_OFFLINE="1")
    assert r.returncode == 0, r.output
    warnings = [line for line in r.stderr.splitlines() if line.startswith("setup: warning: missing (optional")]
    assert len(warnings) == 3, r.stderr
    for package in ("libbenchmark-dev", "libopenmpi-dev", "Debian package ccache"):
        assert any(package in w for w in warnings), (package, warnings)
    assert "MISSING (required)" not in r.stderr
    assert "everything required is here" in r.stdout


def test_installs_only_the_packages_of_what_is_missing(everything_present, tmp_path):
    r = run_setup(tmp_path, install_rc=100, NSB_SETUP_PRETEND_MISSING="yaml,ccache")
    assert r.apt_calls == ["update -qq", "install -y -qq ccache python3-yaml"]
    assert r.returncode == 1 and "apt-get install failed" in r.stderr
    assert "MISSING (required): Python module yaml" in r.stderr


def test_an_unreachable_package_index_is_reported(everything_present, tmp_path):
    r = run_setup(tmp_path, update_rc=100, NSB_SETUP_PRETEND_MISSING="pytest")
    assert r.apt_calls == ["update -qq"]
    assert r.returncode == 1 and "apt-get update failed" in r.stderr
    assert "Debian package python3-pytest, or pip install pytest" in r.stderr


def test_apt_logs_go_to_a_new_folder_each_run_not_a_fixed_tmp_name(everything_present, tmp_path):
    logs = []
    for run in ("a", "b"):
        r = run_setup(tmp_path / run, update_rc=100, NSB_SETUP_PRETEND_MISSING="pytest", TMPDIR=str(tmp_path))
        log = r.stderr.split("see ")[1].split(":")[0]
        assert log.startswith(str(tmp_path / "nsbench-apt.")) and os.path.isfile(log), r.stderr
        logs.append(log)
    assert logs[0] != logs[1]


def test_a_missing_compiler_is_not_reported_as_missing_headers(everything_present, tmp_path):
    r = run_setup(tmp_path, CXX=str(tmp_path / "no-such-g++"), NSB_SETUP_OFFLINE="1")
    assert r.returncode == 1
    missing = [line for line in r.stderr.splitlines() if line.startswith("setup: MISSING")]
    assert len(missing) == 2 and "C++20 compiler" in missing[0] and "OpenMP" in missing[1], r.stderr


def test_cmake_is_judged_by_its_version_not_by_its_package(everything_present, tmp_path):
    r = run_setup(tmp_path / "new", cmake_version="4.1.2", NSB_SETUP_OFFLINE="1")
    assert r.returncode == 0 and "everything nsbench needs is here" in r.stdout, r.output
    r = run_setup(tmp_path / "old", cmake_version="3.22.1", NSB_SETUP_OFFLINE="1")
    assert r.returncode == 1
    assert "MISSING (required): cmake >= 3.25; Debian package cmake, or pip install cmake" in r.stderr
