#!/usr/bin/env bash
# The README's main job (for now): set up, build, then run the lid-driven cavity at Re = 100 to steady
# state on the CPU and print its validation against Ghia et al. (1982); with a GPU, also on the GPU
# with the thesis's recipes, each checked against the CPU reference. Results go to results/main/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
NSB=${BUILD:-build}/nsbench
out=results/main/$(uname -n)
mkdir -p "$out"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
$NSB run --case cavity --grid 64x4x64 --re 100 --backend cpu_omp --until-steady --steady-tol 1e-4 --steps 40000 \
  --json "$out/cavity_64x4x64_re100_cpu_omp_$stamp.json"
if $NSB verify | tail -1 | grep -q SKIPPED; then
  echo "main job: no GPU here, GPU runs skipped"
else
  for recipe in thibault-global thibault-optimal modern best; do
    $NSB run --backend cuda --recipe "$recipe" --case cavity --grid 256x32x256 --re 1000 --steps 200 --warmup 20 \
      --quiet --json "$out/cavity_256x32x256_${recipe}_$stamp.json"
  done
fi
echo "main job: results in $out"
