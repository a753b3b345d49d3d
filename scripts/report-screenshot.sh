#!/usr/bin/env bash
# Renders a study report's index.html in headless Chromium (Debian's chromium package) and writes a
# PNG of the whole page, to check what a reader sees: scripts/report-screenshot.sh [REPORT_DIR] [OUT.png]
set -euo pipefail
dir=${1:-results/report/$(cd "$(dirname "$0")/.." && scripts/py -c 'import sys; sys.path.insert(0,"reports"); import studylib; print(studylib.machine_id())')}
out=${2:-/tmp/nsbench-report.png}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "report-screenshot: no chromium (apt-get install chromium)" >&2; exit 2; }
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,6000 \
  --screenshot="$out" "file://$(cd "$dir" && pwd)/index.html" 2>/dev/null
echo "report-screenshot: $out"
