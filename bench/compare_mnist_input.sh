#!/usr/bin/env bash
# Does seed 001's in-graph pipeline starve training? examples/mnist_towers
# (2 towers on 2 logical CPUs, 100 examples per tower) fed from the IDX
# files (--input idx: C++ batcher, fed) and from TFRecord files through the
# graph's own queues (--input tfrecord), alternately, --reps times each;
# the figure is the mean examples/sec of the progress lines after the first
# (the first includes filling the shuffle queue's 10,000 examples). Prints
#   metric mnist_towers_examples_per_s idx=<v> tfrecord=<v> ratio=<tfrecord/idx>
# (the issue's goal: ratio >= 0.90).
#
#   bench/compare_mnist_input.sh [--epochs N] [--reps R]   # default 2, 2
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=2
reps=2
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) epochs="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
data=/usr/share/datasets/fashion-mnist
[ -d "$data" ] || { echo "no $data (tools/setup.sh installs it)" >&2; exit 1; }
bazel build //examples:mnist_towers //examples:mnist_to_tfrecord >/dev/null 2>&1
bin="$(bazel info bazel-bin 2>/dev/null)/examples"
out="$(mktemp -d /tmp/dflow_compare_input.XXXXXX)"
mkdir -p "$out/records"
"$bin/mnist_to_tfrecord" --out_dir "$out/records" >/dev/null
rate() {  # INPUT: the mean examples/sec after the first progress line
  "$bin/mnist_towers" --towers 2 --epochs "$epochs" --input "$1" \
    --tfrecord_dir "$out/records" --checkpoint_dir "$out/ckpt_$1" \
    --checkpoint_every 1000000 |
    awk '/^step /{ n++; if (n > 1) { v = $6; sub(/^\(/, "", v); s += v; k++ } }
         END { printf "%.1f\n", s / k }'
}
idx_sum=0
tfr_sum=0
for r in $(seq "$reps"); do
  i="$(rate idx)"
  t="$(rate tfrecord)"
  echo "rep $r: idx $i examples/sec, tfrecord $t examples/sec"
  idx_sum="$(python3 -c "print($idx_sum + $i)")"
  tfr_sum="$(python3 -c "print($tfr_sum + $t)")"
done
python3 -c "
i = $idx_sum / $reps; t = $tfr_sum / $reps
print('metric mnist_towers_examples_per_s idx=%.1f tfrecord=%.1f ratio=%.2f' % (i, t, t / i))"
