#!/usr/bin/env bash
# Installs what nsbench needs on a fresh Debian/Ubuntu machine; safe to run again (it installs only
# what is missing) and offline-aware: on a machine without network (a GPU runner) it checks that
# everything is already there and never tries to download.
#
# The CUDA toolkit is not installed here: it is expected at /usr/local/cuda (or nvcc on PATH). Without
# it nsbench builds CPU-only and says so.
set -euo pipefail

# Build: compiler, CMake, JSON, CLI, tests, Google Benchmark (and its compare.py); Open MPI for the
# multi-process driver; Python with numpy,
# matplotlib, PyYAML and pytest for studies, reports and their tests.
packages=(cmake ninja-build g++ ccache git nlohmann-json3-dev libcli11-dev libgtest-dev
          libopenmpi-dev openmpi-bin libbenchmark-dev libbenchmark-tools python3 python3-numpy python3-matplotlib python3-yaml python3-pytest)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present (${packages[*]})"
else
  echo "setup: missing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if $sudo apt-get update -qq >/tmp/nsbench-apt-update.log 2>&1; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/tmp/nsbench-apt-install.log 2>&1 || {
      tail -20 /tmp/nsbench-apt-install.log
      echo "setup: apt-get install failed" >&2
      exit 1
    }
    echo "setup: installed ${missing[*]}"
  else
    # No package index reachable: maybe the headers came another way (a GPU image); let CMake decide.
    echo "setup: no network to install ${missing[*]}; continuing with what is installed" >&2
  fi
fi

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA compiler: $( (command -v nvcc || echo /usr/local/cuda/bin/nvcc) | head -1)"
else
  echo "setup: no CUDA compiler found: nsbench will build CPU-only (GPU variants and tests skipped)"
fi
