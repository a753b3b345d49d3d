#!/bin/sh
# cli_bad_alloc_named: nsbench under an address-space limit 1 GB above what it maps once running, so that
# a run needing about 2 GB meets std::bad_alloc in a host array and must name it. The limit is measured,
# not fixed: a CUDA build maps its libraries (cuBLAS, cuSPARSE, cuFFT, NCCL: well over 1 GB of address
# space), and a fixed 1.5 GB left the H200 build no room for OpenMP's second thread
# ("libgomp: Thread creation failed"). The stack limit is fixed too: each thread's stack is reserved at it.
# The run is kept off the GPU (cpu-omp, no visible device): the limit is meant for host arrays.
set -u
nsb=$1
ulimit -s 8192
export CUDA_VISIBLE_DEVICES=
"$nsb" run --case poiseuille --recipe cpu-omp --grid 16x16x16 --steps 100000000 --no-check --quiet --threads 2 &
pid=$!
# Wait for the running time loop: its OpenMP team (a second thread) exists once it steps.
tries=0
while [ $tries -lt 200 ]; do
  threads=$(awk '/^Threads:/ {print $2}' /proc/$pid/status 2>/dev/null)
  [ "${threads:-0}" -ge 2 ] && break
  sleep 0.05; tries=$((tries + 1))
done
mapped_kb=$(awk '/^VmPeak:/ {print $2}' /proc/$pid/status 2>/dev/null)
kill $pid 2>/dev/null; wait $pid 2>/dev/null
[ -n "$mapped_kb" ] || { echo "cli_bad_alloc.sh: could not read nsbench's VmPeak from /proc" >&2; exit 1; }
echo "nsbench maps ${mapped_kb} kB running; limit $((mapped_kb + 1000000)) kB"
ulimit -v $((mapped_kb + 1000000))
exec "$nsb" run --case poiseuille --recipe cpu-omp --grid 256x224x256 --steps 1 --quiet --threads 2
