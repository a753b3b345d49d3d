#!/usr/bin/env bash
# The README's main job: set up, build, run the quick form of every study on whatever this machine has
# (GPU rows skipped, with the reason recorded, on a CPU-only machine), then write the report and say
# where it is. Results go to results/local/<study>/<machine-id>/ (yours, ignored by git; the shipped
# reference results are not touched) and are never overwritten: run it again and it resumes (runs this
# same build made on this machine are kept). MODE=full runs the paper-size form.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
export NSBENCH=${BUILD:-build}/nsbench
status=0
scripts/run-study all --"${MODE:-quick}" || status=$?  # a failed run is recorded; the report still gets written
scripts/py reports/study_report.py
scripts/py reports/reproduction.py --summary --results results/local || true  # each paper's counts, from your runs
[ $status -eq 0 ] || echo "main job: some runs failed or failed their reference check (see the report's run lists, the *.failed.json files and run-study's last lines)"
exit $status
