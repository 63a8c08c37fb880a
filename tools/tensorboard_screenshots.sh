#!/usr/bin/env bash
# Screenshots of TensorBoard (from PyPI) over a log directory dflow wrote:
# starts TensorBoard on 127.0.0.1, has headless Chromium load the scalars
# page, the histograms page and the graph page (its Tag menu lists the
# step whose RunMetadata was recorded), writes one PNG each, and stops
# TensorBoard.
#
#   tools/tensorboard_screenshots.sh LOGDIR [OUTDIR]    # OUTDIR: docs/
#
# Writes OUTDIR/tensorboard_scalars.png, tensorboard_histograms.png and
# tensorboard_graph.png. Needs `tensorboard` importable by python3 and a
# Chromium (Debian: apt-get install chromium); says which is missing.
# The README's screenshots were made from mnist_towers --summary_dir:
#   bazel-bin/examples/mnist_towers --towers 2 --epochs 1 \
#     --summary_dir /tmp/dflow_tb --summary_every 100
#   tools/tensorboard_screenshots.sh /tmp/dflow_tb docs
set -euo pipefail

logdir="${1:?usage: tools/tensorboard_screenshots.sh LOGDIR [OUTDIR]}"
out="${2:-docs}"
port="${TENSORBOARD_PORT:-6123}"
python3 -c "import tensorboard" 2>/dev/null ||
  { echo "tensorboard does not import: pip install tensorboard" >&2; exit 1; }
browser="$(command -v chromium || command -v chromium-browser ||
  command -v google-chrome || true)"
[ -n "$browser" ] ||
  { echo "no Chromium found: apt-get install chromium" >&2; exit 1; }
mkdir -p "$out"

tb_log="$(mktemp /tmp/tensorboard.XXXXXX.log)"
python3 -m tensorboard.main --logdir "$logdir" --host 127.0.0.1 \
  --port "$port" >"$tb_log" 2>&1 &
tb_pid=$!
trap 'kill "$tb_pid" 2>/dev/null || true; wait "$tb_pid" 2>/dev/null || true' EXIT
for _ in $(seq 60); do
  if python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/data/runs', timeout=1)" 2>/dev/null; then
    break
  fi
  kill -0 "$tb_pid" 2>/dev/null || { cat "$tb_log" >&2; exit 1; }
  sleep 1
done

# Each page renders with JavaScript after it loads: the virtual time
# budget lets it finish before the screenshot.
shot() {
  "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
    --window-size=1500,1000 --virtual-time-budget=20000 \
    --screenshot="$out/$1" "http://127.0.0.1:$port/$2" >/dev/null 2>&1
  [ -s "$out/$1" ] || { echo "no screenshot of $2" >&2; exit 1; }
  echo "wrote $out/$1"
}
shot tensorboard_scalars.png '#scalars'
shot tensorboard_histograms.png '#histograms'
shot tensorboard_graph.png '#graphs&run=.'
