#!/usr/bin/env bash
# Seed 003 on 2 logical CPU devices: synthetic files in CIFAR-10's binary
# format (the real ones cannot be downloaded here), then 2 towers train
# through the in-graph distorted_inputs pipeline with either strategy: the
# seed's progress lines appear, the loss falls, the queue runners stop
# cleanly, with --log_device_placement the towers' convolutions are placed
# on CPU:0 and CPU:1, and the moving averages rank at least half of 200
# central crops of test_batch.bin first (10 classes: chance is 0.1; an
# untrained model scores about that).
set -euo pipefail
bin="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$tmp/data"
"$bin" --data_dir "$tmp/data" --write_synthetic_data 200
for f in data_batch_1 data_batch_2 data_batch_3 data_batch_4 data_batch_5 \
    test_batch; do
  [ "$(stat -c %s "$tmp/data/$f.bin")" -eq $((200 * 3073)) ] \
    || { echo "FAIL: $f.bin has the wrong size"; exit 1; }
done
for strategy in ps allreduce; do
  "$bin" --towers 2 --strategy "$strategy" --batch_size 16 --max_steps 60 \
    --log_every 10 --min_after_dequeue 200 --reader_threads 2 \
    --data_dir "$tmp/data" --log_device_placement --eval_examples 200 \
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
  precision="$(sed -n 's/^precision @ 1 = \([0-9.]*\)$/\1/p' "train_$strategy.log")"
  awk -v p="$precision" 'BEGIN { exit !(p != "" && p >= 0.5) }' \
    || { echo "FAIL ($strategy): precision @ 1 = '$precision' < 0.5"; exit 1; }
  echo "$strategy: loss $first -> $last, precision @ 1 = $precision"
done
echo PASS
