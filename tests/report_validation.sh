#!/usr/bin/env bash
# The flow_validation study end to end on the CPU: real nsbench runs (its CPU rows), then the report,
# which must draw the four validation pictures and print the errors nsbench measured. The channel's
# steady error is known exactly, (dz/H)^2 = 1/32^2 = 0.000977 (the wall rule's), so a wrong profile fails.
set -euo pipefail
nsbench=$1 dir=$2
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir" && mkdir -p "$dir/studies"
cp -r "$root/studies/validation" "$dir/studies/"
"$root/scripts/run-study" flow_validation --quick --gpus 0 --nsbench "$nsbench" --studies "$dir/studies" \
  --results "$dir/results" --machine-id cpu-test
"$root/scripts/py" "$root/reports/study_report.py" --results "$dir/results" --studies "$dir/studies" \
  --machine cpu-test --out "$dir/report"
for png in validation_ghia_re100.png validation_cavity_slice_re100.png validation_channel.png validation_taylor_green.png; do
  [ -s "$dir/report/$png" ] || { echo "missing picture $png"; exit 1; }
done
grep -q '| channel | 10 | cpu_serial, 4x1x32 | .* | poiseuille | 0.000977 | 0.000977 |' "$dir/report/report.md" ||
  { echo "the channel row does not show the predicted error 0.000977:"; grep '| channel' "$dir/report/report.md"; exit 1; }
grep -q '| cavity | 100 | cpu_[a-z]*, 64x4x64 | .* | ghia | 0.0' "$dir/report/report.md" ||
  { echo "no cavity row with a Ghia error below 0.1"; exit 1; }
echo "flow_validation report: 4 pictures, channel error as predicted"
