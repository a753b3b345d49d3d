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
# Say so before a long CUDA build starts: on a machine without a GPU nobody expects one from an installed nvcc.
if grep -qE "nsbench: CUDA (ON|TRUE|1)" "$BUILD/configure.log"; then
  echo "build: nvcc found, so every CUDA variant is built too (sm_90): about 13 minutes of build on 2 cores from cold"
  echo "       (docs/build-time/2026-11-29-2core-cold/), far less on many. Without a GPU, build CPU-only:"
  echo "       BUILD=build-cpu scripts/build.sh -DNSB_ENABLE_CUDA=OFF"
fi
cmake --build "$BUILD" -j"$jobs"
