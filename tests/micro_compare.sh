#!/usr/bin/env bash
# nsbench-micro on a GPU: two short runs of two benchmarks to JSON (the nsbench context must be in
# them), then Google Benchmark's compare.py (Debian's libbenchmark-tools) must read both.
set -uo pipefail
micro=$1 dir=$2
mkdir -p "$dir"
filter='divergence/global_2d/bx32_by8_sz8/euler/256x256x256/float|pressure/jacobi_global_2d_zloop/bx32_by8_sz8/euler/256x256x256/float'
for run in a b; do
  out=$("$micro" --benchmark_filter="$filter" --benchmark_min_time=0.05 --benchmark_repetitions=3 \
        --benchmark_format=json --benchmark_out="$dir/$run.json" 2>&1) || { echo "$out"; exit 1; }
  case "$out" in *"SKIPPED: no usable GPU"*) echo "$out"; exit 0 ;; esac
done
grep -q '"nsbench_machine"' "$dir/a.json" || { echo "no nsbench context in the JSON"; exit 1; }
grep -q '"bytes_per_second"' "$dir/a.json" || { echo "no bytes_per_second counter"; exit 1; }
# Debian's libbenchmark-tools; on a machine where packages cannot be installed (the lent GPU machine),
# a copy of that package's files carried into the git-ignored .carry/benchmark-tools/.
cmp=/usr/share/benchmark/compare.py
[ -f "$cmp" ] || cmp=$(dirname "$0")/../.carry/benchmark-tools/compare.py
[ -f "$cmp" ] || { echo "SKIPPED: no compare.py (apt-get install libbenchmark-tools)"; exit 0; }
py=$(dirname "$0")/../scripts/py
"$py" "$cmp" benchmarks "$dir/a.json" "$dir/b.json" && echo "compare.py read both files"
