#!/usr/bin/env bash
# Renders a study report's index.html in headless Chromium (Debian's chromium package) and writes a PNG
# of the whole page, to check what a reader sees; with a third argument, also that PNG cut into pages of
# that many pixels (OUT-00.png, OUT-01.png, ...: an image viewer shrinks one tall picture past reading).
#   scripts/report-screenshot.sh [REPORT_DIR] [OUT.png] [PAGE_HEIGHT]
# REPORT_DIR defaults to this machine's report of your own runs, results/local/report/<machine-id>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/results/local/report/$(cd "$root" && scripts/py -c 'import sys; sys.path.insert(0,"reports"); import studylib; print(studylib.machine_id())')}
out=${2:-/tmp/nsbench-report.png}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { echo "report-screenshot: no chromium (apt-get install chromium)" >&2; exit 2; }
[ -f "$dir/index.html" ] || { echo "report-screenshot: no $dir/index.html (write it with reports/study_report.py)" >&2; exit 2; }
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,16000 \
  --screenshot="$out" "file://$(cd "$dir" && pwd)/index.html" 2>/dev/null
if [ -n "${3:-}" ]; then
  "$root/scripts/py" - "$out" "$3" <<'PY'
import sys
import matplotlib.image as mpimg
import numpy as np
path, height = sys.argv[1], int(sys.argv[2])
img = mpimg.imread(path)
ink = np.where(img[:, :, :3].min(axis=(1, 2)) < 0.98)[0]  # rows with anything on them
end = int(ink.max()) + 20 if len(ink) else img.shape[0]
for i, top in enumerate(range(0, end, height)):
    mpimg.imsave(f"{path[:-4]}-{i:02d}.png", img[top:min(end, top + height)])
    print(f"report-screenshot: {path[:-4]}-{i:02d}.png")
PY
fi
echo "report-screenshot: $out"
