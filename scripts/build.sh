#!/usr/bin/env bash
# Configures and builds nsbench into build/ (CUDA for sm_90 when nvcc is present, else CPU-only).
#   scripts/build.sh [extra cmake -D options]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
jobs=${JOBS:-$(nproc)}
mkdir -p "$BUILD"
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CI:+-DNSB_WERROR=ON} "$@" >"$BUILD/configure.log" 2>&1 || {
  cat "$BUILD/configure.log"
  exit 1
}
grep -E "nsbench: CUDA" "$BUILD/configure.log" || true
cmake --build "$BUILD" -j"$jobs"
