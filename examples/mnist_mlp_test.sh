#!/usr/bin/env bash
# The check of examples/mnist_mlp, end to end: 3 epochs on
# Fashion-MNIST reach >= 84% test accuracy, the progress lines have the
# seed's format, and the last checkpoint restored by a second process gives
# the same test accuracy. Skipped (exit 0 with a note) when the dataset is
# not installed (tools/setup.sh installs dataset-fashion-mnist).
set -euo pipefail
binary="$1"
data=/usr/share/datasets/fashion-mnist
if [ ! -d "$data" ]; then
  echo "SKIPPED: $data is missing (apt-get install dataset-fashion-mnist)"
  exit 0
fi
dir="${TEST_TMPDIR:-$(mktemp -d)}/ckpt"
"$binary" --epochs 3 --checkpoint_dir "$dir" --checkpoint_every 600 \
  | tee train.log
grep -Eq '^step 100, loss = [0-9]+\.[0-9]{2} \([0-9]+\.[0-9] examples/sec; [0-9]+\.[0-9]{3} sec/batch\)$' train.log \
  || { echo "FAIL: no seed-style progress line"; exit 1; }
[ "$(grep -c '^saved ' train.log)" -eq 3 ] \
  || { echo "FAIL: expected 3 checkpoints (steps 600, 1200, 1800)"; exit 1; }
trained="$(tail -n 1 train.log)"
accuracy="${trained#test accuracy = }"
awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.84) }' \
  || { echo "FAIL: '$trained' is below 0.84"; exit 1; }
"$binary" --eval_only --checkpoint_dir "$dir" | tee eval.log
restored="$(tail -n 1 eval.log)"
[ "$trained" = "$restored" ] \
  || { echo "FAIL: restored '$restored' differs from trained '$trained'"; exit 1; }
echo "PASS: $trained, the same after restoring in a new process"
