#!/usr/bin/env bash
# Makes sure this machine has what nsbench needs to build and test, installing only what is missing.
#
# It checks capabilities, not Debian package names: a command on PATH (CMake with its version), a
# header the C++ compiler finds, a library it links, a module Python imports. A GPU image often has
# them from pip or from source rather than from dpkg, and offline it must not be asked to download
# them again. Each missing capability maps to the Debian package that provides it, and only those are
# installed (apt-get update, then apt-get install); with everything present apt-get is not called at
# all. What is still missing afterwards (no network, no root) is named with the package or pip module
# that provides it. Exit code 1 only when something required is missing; Google Benchmark, MPI and
# ccache are optional (a warning: nsbench builds without them).
#
# Headers and libraries are looked for where the compiler looks (/usr/include, /usr/local/include,
# ...) and under every CMAKE_PREFIX_PATH entry. Python modules are checked in the python3 that
# scripts/py runs. The compiler is $CXX, else g++.
#
# The CUDA toolkit is not installed here: it is expected at /usr/local/cuda (or nvcc on PATH). Without
# it nsbench builds CPU-only and says so.
#
# Test-only hooks (tests/python/test_setup.py), not for normal use:
#   NSB_SETUP_PRETEND_MISSING=yaml,benchmark   treat these capabilities (ids in CAPABILITIES) as missing
#   NSB_SETUP_OFFLINE=1                        act as if no package index could be reached
# shellcheck disable=SC2317  # the have_* checks are called by name, from CAPABILITIES
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
CXX_CMD=${CXX:-g++}

# id | required or optional | what | Debian package | another way to get it | the check (function args)
CAPABILITIES=(
  "cmake|required|cmake >= 3.25|cmake|pip install cmake|have_cmake 3.25"
  "cxx|required|a C++20 compiler ($CXX_CMD)|g++||have_cxx20"
  "openmp|required|OpenMP ($CXX_CMD -fopenmp)|g++||have_openmp"
  "ninja|required|ninja|ninja-build|pip install ninja|have_command ninja"
  "git|required|git|git||have_command git"
  "python3|required|python3|python3||have_command python3"
  "json|required|nlohmann/json.hpp (nlohmann-json)|nlohmann-json3-dev||have_header nlohmann/json.hpp"
  "cli11|required|CLI/CLI.hpp (CLI11)|libcli11-dev||have_header CLI/CLI.hpp"
  "gtest|required|GoogleTest (gtest/gtest.h and libgtest)|libgtest-dev||have_header_and_library gtest/gtest.h gtest"
  "numpy|required|Python module numpy|python3-numpy|pip install numpy|have_python_module numpy"
  "matplotlib|required|Python module matplotlib|python3-matplotlib|pip install matplotlib|have_python_module matplotlib"
  "yaml|required|Python module yaml|python3-yaml|pip install pyyaml|have_python_module yaml"
  "pytest|required|Python module pytest|python3-pytest|pip install pytest|have_python_module pytest"
  "benchmark|optional|Google Benchmark (benchmark/benchmark.h and libbenchmark) for nsbench-micro|libbenchmark-dev||\
have_header_and_library benchmark/benchmark.h benchmark"
  "benchmark-compare|optional|Google Benchmark's compare.py for tests/micro_compare.sh|libbenchmark-tools||\
have_benchmark_compare_py"
  "mpi|optional|MPI (mpi.h) for the mpirun driver|libopenmpi-dev||have_mpi_header"
  "mpirun|optional|mpirun|openmpi-bin||have_command mpirun"
  "ccache|optional|ccache (faster rebuilds)|ccache||have_command ccache"
)

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# CMAKE_PREFIX_PATH entries (':' or ';' separated): CMake looks there, so the checks do too.
PREFIX_FLAGS=()
IFS=':;' read -ra prefixes <<<"${CMAKE_PREFIX_PATH:-}"
for p in "${prefixes[@]}"; do
  [ -n "$p" ] && PREFIX_FLAGS+=("-I$p/include" "-L$p/lib" "-L$p/lib64")
done

# The checks: each returns 0 when the capability is here. Sources come on stdin. A header only needs
# to be found, so the preprocessor suffices (parsing nlohmann/json.hpp or CLI11 takes seconds).
compiles() { "$CXX_CMD" -std=c++20 -x c++ -fsyntax-only "${PREFIX_FLAGS[@]}" - >/dev/null 2>&1; }
preprocesses() { "$CXX_CMD" -std=c++20 -x c++ -E "${PREFIX_FLAGS[@]}" - -o /dev/null >/dev/null 2>&1; }
links() { "$CXX_CMD" -std=c++20 -x c++ - "${PREFIX_FLAGS[@]}" "$@" -o "$SCRATCH/a.out" >/dev/null 2>&1; }
have_command() { command -v "$1" >/dev/null 2>&1; }
have_cmake() {
  local version
  version=$(cmake --version 2>/dev/null | sed -n '1s/^cmake version \([0-9][0-9.]*\).*/\1/p')
  [ -n "$version" ] && [ "$(printf '%s\n' "$1" "$version" | sort -V | head -1)" = "$1" ]
}
have_cxx20() { printf '#include <span>\nstd::span<const int> empty;\nconsteval int one() { return 1; }\n' | compiles; }
have_openmp() { printf '#include <omp.h>\nint main() { return omp_get_max_threads() < 1; }\n' | links -fopenmp; }
# Without a compiler to ask (it is missing too), look where it would, so that the report names only
# what is really missing.
found_in() {  # found_in FILE DIR...: FILE is in one of the DIRs (globs allowed)
  local file=$1 dir; shift
  for dir in "$@"; do [ -e "$dir/$file" ] && return 0; done
  return 1
}
have_header() {
  if have_command "$CXX_CMD"; then printf '#include <%s>\n' "$1" | preprocesses
  else found_in "$1" /usr/include /usr/local/include "${prefixes[@]/%//include}"; fi
}
have_library() {
  if have_command "$CXX_CMD"; then printf 'int main() {}\n' | links -l"$1" -pthread
  else
    local name
    for name in "lib$1.so" "lib$1.a"; do
      found_in "$name" /usr/lib /usr/lib/*-linux-gnu /usr/local/lib /usr/local/lib64 \
        "${prefixes[@]/%//lib}" "${prefixes[@]/%//lib64}" && return 0
    done
    return 1
  fi
}
have_header_and_library() { have_header "$1" && have_library "$2"; }
have_mpi_header() {  # Debian keeps mpi.h off the default include path; CMake's FindMPI asks mpicxx
  if have_command mpicxx; then printf '#include <mpi.h>\n' | mpicxx -x c++ -E - -o /dev/null >/dev/null 2>&1
  else have_header mpi.h; fi
}
have_python_module() { [ -n "$PYTHON_FOR_NSBENCH" ] && "$PYTHON_FOR_NSBENCH" -c "import $1" >/dev/null 2>&1; }
have_benchmark_compare_py() { [ -f /usr/share/benchmark/compare.py ] || [ -f .carry/benchmark-tools/compare.py ]; }

pretended_missing() { [[ ",${NSB_SETUP_PRETEND_MISSING:-}," == *",$1,"* ]]; }

# Fills MISSING with the CAPABILITIES lines whose check fails.
check_all() {
  # The python3 scripts/py runs (the first with the studies' modules), else the plain one, to report on.
  PYTHON_FOR_NSBENCH=$(scripts/py -c 'import sys; print(sys.executable)' 2>/dev/null || command -v python3 || true)
  MISSING=()
  local line id need what package other check
  for line in "${CAPABILITIES[@]}"; do
    IFS='|' read -r id need what package other check <<<"$line"
    if pretended_missing "$id" || ! $check; then MISSING+=("$line"); fi
  done
}

# Installs the Debian packages given; non-zero when it could not (offline, no apt-get, not root).
apt_install() {
  if [ "${NSB_SETUP_OFFLINE:-0}" = 1 ]; then
    echo "setup: no package index reachable (NSB_SETUP_OFFLINE=1): cannot install $*" >&2; return 1
  fi
  have_command apt-get || { echo "setup: no apt-get here: cannot install $*" >&2; return 1; }
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    have_command sudo || { echo "setup: not root and no sudo: cannot install $*" >&2; return 1; }
    sudo=sudo
  fi
  echo "setup: installing $* (apt-get)"
  # The logs go to a new folder of this run's own (mktemp): a fixed /tmp name, written as root, could be a link
  # someone else planted, and two runs at once would write into one file.
  local logs
  logs=$(mktemp -d "${TMPDIR:-/tmp}/nsbench-apt.XXXXXX") || { echo "setup: cannot create a folder for apt-get's logs" >&2; return 1; }
  local update_log=$logs/update.log install_log=$logs/install.log
  if ! $sudo apt-get update -qq >"$update_log" 2>&1; then
    echo "setup: apt-get update failed (no network?), see $update_log: cannot install $*" >&2; return 1
  fi
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >"$install_log" 2>&1; then
    tail -5 "$install_log" >&2
    echo "setup: apt-get install failed (no network?), see $install_log" >&2; return 1
  fi
  echo "setup: apt-get installed $*"
}

# Says what is still missing and how to get it; non-zero when something required is.
report_missing() {
  local line id need what package other check status=0
  for line in "${MISSING[@]}"; do
    IFS='|' read -r id need what package other check <<<"$line"
    if [ "$need" = required ]; then
      echo "setup: MISSING (required): $what; Debian package $package${other:+, or $other}" >&2
      status=1
    else
      echo "setup: warning: missing (optional, nsbench builds without it): $what; Debian package $package" >&2
    fi
  done
  return $status
}

# What is missing, in words joined by "; ", and the Debian packages that provide it, one a line.
missing_in_words() {
  local line what joined=""
  for line in "${MISSING[@]}"; do IFS='|' read -r _ _ what _ <<<"$line"; joined+="${joined:+; }$what"; done
  echo "$joined"
}
missing_packages() {
  local line package
  for line in "${MISSING[@]}"; do IFS='|' read -r _ _ _ package _ <<<"$line"; echo "$package"; done | sort -u
}

[ -n "${NSB_SETUP_PRETEND_MISSING:-}" ] &&
  echo "setup: test hook NSB_SETUP_PRETEND_MISSING=$NSB_SETUP_PRETEND_MISSING: treating these as missing"
check_all
if [ ${#MISSING[@]} -eq 0 ]; then
  echo "setup: everything nsbench needs is here (${#CAPABILITIES[@]} checks: commands, headers, libraries," \
       "Python modules)"
else
  echo "setup: missing: $(missing_in_words)"
  # shellcheck disable=SC2046  # one word per package
  apt_install $(missing_packages) && check_all
fi
report_missing
status=$?
[ $status -eq 0 ] && [ ${#MISSING[@]} -gt 0 ] && echo "setup: everything required is here"

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA compiler: $( (command -v nvcc || echo /usr/local/cuda/bin/nvcc) | head -1)"
else
  echo "setup: no CUDA compiler found: nsbench will build CPU-only (GPU variants and tests skipped)"
fi
[ $status -eq 0 ] || echo "setup: install what is MISSING above, then run scripts/setup.sh again" >&2
exit $status
