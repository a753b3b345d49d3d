"""scripts/build.sh says, before a CUDA build starts, that it builds the CUDA variants, about how long that takes on
few cores and how to build CPU-only (issue 39: "The CUDA build is silent"). A fake cmake on PATH stands in for the
real one: it answers the configure step as CMakeLists.txt would and builds nothing."""
import os
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build_sh(tmp_path, cuda):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cmake").write_text(f'#!/bin/sh\n[ "$1" = --build ] && exit 0\n'
                                   f'echo "-- nsbench: CUDA {cuda} (architectures: 90)"\n')
    (bin_dir / "cmake").chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", BUILD=str(tmp_path / "build"))
    return subprocess.run([os.path.join(ROOT, "scripts", "build.sh")], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("cuda, says", [("ON", True), ("OFF", False)])
def test_a_cuda_build_says_so_with_its_time_and_the_cpu_only_option(tmp_path, cuda, says):
    r = build_sh(tmp_path, cuda)
    assert r.returncode == 0, r.stderr
    assert ("every CUDA variant is built too" in r.stdout) == says
    assert ("BUILD=build-cpu scripts/build.sh -DNSB_ENABLE_CUDA=OFF" in r.stdout) == says
    if says:
        assert "docs/build-time/2026-11-29-2core-cold/" in r.stdout
