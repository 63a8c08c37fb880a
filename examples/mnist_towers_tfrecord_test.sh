#!/usr/bin/env bash
# Seed 001 whole: examples/mnist_to_tfrecord writes Fashion-MNIST as the
# seed's TFRecord files, and mnist_towers trains 2 towers from them through
# the in-graph pipeline (--input tfrecord: string_input_producer,
# TFRecordReader, parse_single_example, decode_raw, shuffle_batch with
# min_after_dequeue 10000) to the accuracy band of the IDX input (>= 0.80
# after 1 epoch), writing the seed's summaries and the graph to an event
# file that TensorBoard's own reader loads (scalar loss and histograms of
# the variables and gradients at steps 100, 200, 300; skipped where
# tensorboard does not import). Skipped without the dataset.
set -euo pipefail
towers="$1"
to_tfrecord="$2"
check_events="$3"
data=/usr/share/datasets/fashion-mnist
if [ ! -d "$data" ]; then
  echo "SKIPPED: $data is missing (apt-get install dataset-fashion-mnist)"
  exit 0
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
mkdir -p "$tmp/records"
"$to_tfrecord" --out_dir "$tmp/records" | tee convert.log
grep -q '^wrote 60000 examples to .*/train.tfrecords$' convert.log \
  || { echo "FAIL: no train.tfrecords"; exit 1; }
"$towers" --towers 2 --epochs 1 --input tfrecord --tfrecord_dir "$tmp/records" \
  --checkpoint_dir "$tmp/ckpt" --summary_dir "$tmp/logs" | tee train.log
[ "$(grep -c '^step ' train.log)" -eq 3 ] \
  || { echo "FAIL: expected 3 progress lines"; exit 1; }
grep -q '^input pipeline: queue runners stopped$' train.log \
  || { echo "FAIL: the queue runners did not stop cleanly"; exit 1; }
accuracy="$(tail -n 1 train.log)"
accuracy="${accuracy#test accuracy = }"
python3 -c "import sys; sys.exit(0 if float('$accuracy') >= 0.80 else 1)" \
  || { echo "FAIL: test accuracy $accuracy < 0.80"; exit 1; }
ls "$tmp/logs"/events.out.tfevents.* >/dev/null \
  || { echo "FAIL: no event file"; exit 1; }
set +e
python3 "$check_events" "$tmp/logs" > events.txt 2>&1
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
  echo "tensorboard does not import: event file contents not checked"
  exit 0
fi
[ "$rc" -eq 0 ] || { cat events.txt; echo "FAIL: TensorBoard could not read it"; exit 1; }
for step in 100 200 300; do
  grep -q "^scalar loss $step " events.txt \
    || { cat events.txt; echo "FAIL: no loss at step $step"; exit 1; }
  grep -q "^histogram layer1/weights/gradients $step " events.txt \
    || { echo "FAIL: no gradient histogram at step $step"; exit 1; }
done
grep -q '^graph [0-9][0-9]*$' events.txt || { echo "FAIL: no graph"; exit 1; }
# The first summary step's RunMetadata: nodes with their compute times.
grep -Eq '^run_metadata step100 [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$' events.txt \
  || { cat events.txt; echo "FAIL: no run metadata for step 100"; exit 1; }
echo "PASS: accuracy $accuracy; $(grep -c . events.txt) facts TensorBoard read"
