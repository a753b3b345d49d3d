#!/bin/bash
# Before (main 2c11884: portable, scalar loops, whole-grid obstacles) and after (cpuref), interleaved; pinned threads.
out=/tmp/cpuref-bench/out; mkdir -p $out
export OMP_PROC_BIND=close OMP_PLACES=cores
after=/work/wt-cpuref/build-cpu/nsbench; before=/tmp/cpuref-bench/nsbench-main
for backend in cpu_serial cpu_omp; do
  for side in before after; do
    nsb=$before; [ $side = after ] && nsb=$after
    $nsb run --precision float --steps 4 --warmup 1 --no-check --backend $backend --grid 512x64x512 --quiet \
      --json $out/$side-cavity-$backend-512x64x512.json --force > /dev/null; echo "$side cavity $backend rc $? $(uptime)"
    $nsb run --case urban --re 155 --gamma 1 --scheme ab2 --precision float --steps 3 --warmup 1 --jacobi-iterations 20 \
      --no-check --backend $backend --grid 256x64x256 --quiet --json $out/$side-urban-$backend-256x64x256.json --force > /dev/null
    echo "$side urban $backend rc $? $(uptime)"
  done
  $after stages --backend $backend --solver projection --grid 256x256x256 --precision float --samples 7 --warmup 2 \
    --stage divergence --json $out/after-stages-$backend-divergence.json --force | tail -n 1
  for stage in pressure correction; do
    $after stages --backend $backend --solver projection --grid 256x256x256 --precision float --samples 7 --warmup 2 \
      --stage $stage --json $out/after-stages-$backend-$stage.json --force | tail -n 1
  done
  echo "$(uptime)"
done
echo ALLDONE
