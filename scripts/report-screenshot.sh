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
page="file://$(cd "$dir" && pwd)/index.html"
# The page's own height, so that the picture holds all of it (a fixed window cut a 34,000 px report at 16,000 px
# without a word): a copy of the page, based at its folder so that its pictures load, writes its height into its
# title once loaded, and the browser's DOM dump returns it.
probe=$(mktemp --suffix=.html)
trap 'rm -f "$probe"' EXIT
{ echo "<base href=\"$(dirname "$page")/\">"; cat "$dir/index.html"
  echo '<script>addEventListener("load", () => { document.title = "NSB_PAGE_HEIGHT=" + document.documentElement.scrollHeight })</script>'
} >"$probe"
height=$("$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
  --virtual-time-budget=10000 --dump-dom "file://$probe" 2>/dev/null | grep -o 'NSB_PAGE_HEIGHT=[0-9]\+' | head -1 | cut -d= -f2)
[ -n "$height" ] || { echo "report-screenshot: could not measure the page's height (chromium --dump-dom gave none)" >&2; exit 2; }
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,"$height" \
  --screenshot="$out" "$page" 2>/dev/null
got=$("$root/scripts/py" -c 'import sys, matplotlib.image as m; print(m.imread(sys.argv[1]).shape[0])' "$out")
[ "$got" -ge "$height" ] ||
  echo "report-screenshot: WARNING: the picture is $got px tall, the page $height px: its end is cut off" >&2
echo "report-screenshot: the page is $height px tall"
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
