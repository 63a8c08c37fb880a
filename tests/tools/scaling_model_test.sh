#!/usr/bin/env bash
# docs/scaling.md's model (tools/scaling_model.py) stays within 5 points of
# Horovod's published 128- and 512-GPU efficiencies, and its tables print.
set -euo pipefail
model="$TEST_SRCDIR/dflow/tools/scaling_model.py"
python3 "$model" --check
out="$(python3 "$model")"
for m in inception_v3 resnet101 vgg16; do
  grep -q "^$m  *Horovod: ring, 5 ms cycles" <<<"$out" ||
    { echo "FAIL: no row for $m"; echo "$out"; exit 1; }
done
echo PASS
