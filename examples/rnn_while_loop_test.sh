#!/usr/bin/env bash
# examples/rnn_while_loop end to end: an RNN built with ops::WhileLoop
# trains (gradients through the loop) and its loss falls below a fifth of
# the first step's (the binary's exit code says so).
set -euo pipefail
binary="$1"
"$binary" --steps 300 | tee train.log
grep -Eq '^step 0 loss [0-9.e+-]+$' train.log || { echo "FAIL: no step 0 line"; exit 1; }
echo "PASS: $(tail -n 1 train.log)"
