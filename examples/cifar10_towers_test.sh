#!/usr/bin/env bash
# Seed 003 on 2 logical CPU devices: synthetic files in CIFAR-10's binary
# format (the real ones cannot be downloaded here), then 2 towers train
# through the in-graph distorted_inputs pipeline with either strategy: the
# seed's progress lines appear, the loss falls, the queue runners stop
# cleanly, and with --log_device_placement the towers' convolutions are
# placed on CPU:0 and CPU:1.
set -euo pipefail
bin="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$tmp/data"
"$bin" --data_dir "$tmp/data" --write_synthetic_data 200
for f in 1 2 3 4 5; do
  [ "$(stat -c %s "$tmp/data/data_batch_$f.bin")" -eq $((200 * 3073)) ] \
    || { echo "FAIL: data_batch_$f.bin has the wrong size"; exit 1; }
done
for strategy in ps allreduce; do
  "$bin" --towers 2 --strategy "$strategy" --batch_size 16 --max_steps 60 \
    --log_every 10 --min_after_dequeue 200 --reader_threads 2 \
    --data_dir "$tmp/data" --log_device_placement \
    > "train_$strategy.log" 2> "placement_$strategy.log"
  cat "train_$strategy.log"
  [ "$(grep -Ec '^step [0-9]+, loss = [0-9.]+ \([0-9.]+ examples/sec; [0-9.]+ sec/batch\)$' "train_$strategy.log")" -eq 7 ] \
    || { echo "FAIL ($strategy): expected 7 progress lines"; exit 1; }
  grep -q '^input pipeline: queue runners stopped$' "train_$strategy.log" \
    || { echo "FAIL ($strategy): the queue runners did not stop cleanly"; exit 1; }
  first="$(grep '^step 0,' "train_$strategy.log" | sed 's/.*loss = \([0-9.]*\).*/\1/')"
  last="$(grep '^step 59,' "train_$strategy.log" | sed 's/.*loss = \([0-9.]*\).*/\1/')"
  awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < a - 0.1) }' \
    || { echo "FAIL ($strategy): loss $first -> $last did not fall"; exit 1; }
  for i in 0 1; do
    grep -q "tower_$i/conv1/Conv2D.*CPU:$i" "placement_$strategy.log" \
      || { echo "FAIL ($strategy): tower_$i/conv1/Conv2D not on CPU:$i"; \
           head -20 "placement_$strategy.log"; exit 1; }
  done
  echo "$strategy: loss $first -> $last"
done
echo PASS
