#!/usr/bin/env bash
# Configures and builds nsbench into build/ (CUDA for sm_90 when nvcc is present, else CPU-only).
#   scripts/build.sh [extra cmake -D options]
# NSB_SOURCE_STAMP=1 makes SOURCE_COMMIT (scripts/stamp-source.sh) name the commit even where git answers:
# for a copy of the tree whose .git is older than its files (a remote GPU machine fed a working tree).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
jobs=${JOBS:-$(nproc)}
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CI:+-DNSB_WERROR=ON} ${NSB_SOURCE_STAMP:+-DNSB_SOURCE_STAMP=ON} "$@" >"$BUILD/configure.log" 2>&1 || {
  cat "$BUILD/configure.log"
  exit 1
}
grep -E "nsbench: CUDA" "$BUILD/configure.log" || true
cmake --build "$BUILD" -j"$jobs"
