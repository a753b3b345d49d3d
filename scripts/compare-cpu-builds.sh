#!/usr/bin/env bash
# Are two nsbench builds' CPU results the same bits? Runs cases that exercise every projection path
# (both time schemes, upwinding, OpenMP, the Jacobi tolerance mode, three ranks in float) with each
# binary and compares the validation errors, the divergence and the Jacobi counts, digit for digit:
# a refactor of the core must leave all of them unchanged.
#   scripts/compare-cpu-builds.sh OLD_NSBENCH NEW_NSBENCH     (exit 0: identical, 1: a difference)
set -euo pipefail
old=$1 new=$2
dir=$(mktemp -d)
status=0
i=0
while read -r args; do
  i=$((i + 1))
  for side in old new; do
    bin=$old; [ $side = new ] && bin=$new
    # shellcheck disable=SC2086
    OMP_NUM_THREADS=2 $bin run $args --warmup 0 --quiet --json "$dir/$side$i.json" >"$dir/$side$i.log" 2>&1 ||
      { echo "run $i ($side): failed: $(tail -1 "$dir/$side$i.log")"; status=1; }
  done
  python3 - "$dir/old$i.json" "$dir/new$i.json" "$args" <<'PY' || status=1
import json, sys
o, n = (json.load(open(p)) for p in sys.argv[1:3])
def facts(r):
    c = r["checks"]
    its = c.get("jacobi_last_iterations", r["run"].get("jacobi", {}).get("last_iterations"))
    return (c["validation"].get("max_error"), c["validation"].get("rms_error"), c["validation"].get("energy_ratio"),
            c["divergence_rms"], its)
same = facts(o) == facts(n)
print(("identical" if same else "DIFFERENT"), sys.argv[3], "| max error, rms error, energy, divergence, sweeps:",
      facts(n), "" if same else f"(old: {facts(o)})")
sys.exit(0 if same else 1)
PY
done <<'CASES'
--case cavity --grid 32x4x32 --re 100 --steps 60
--case cavity --grid 24x6x24 --re 1000 --steps 40 --scheme ab2 --gamma 0.5
--case channel --grid 16x8x16 --steps 50 --backend cpu_omp --threads 2
--case taylor_green --grid 16x16x16 --steps 30 --jacobi-tol 1e-6 --jacobi-iterations 500 --check-every 5
--case taylor_green --grid 12x12x12 --steps 20 --ranks 3 --precision float
CASES
rm -rf "$dir"
exit $status
