#!/usr/bin/env bash
# TFRecord read throughput, dflow (bench/tfrecord_bench.cc: TfRecordReader)
# next to TensorFlow 2.21's tf.data.TFRecordDataset (bench/tfrecord_tf_peer.py)
# in one run, on the same kind of file (64 MiB of 1 KiB records, warm page
# cache), plain and GZIP, in MB/s of the uncompressed stream. Prints
#   metric tfrecord_read_mb_s dflow=<v> tf=<v> unit=MB/s
#   metric tfrecord_gzip_read_mb_s dflow=<v> tf=<v> unit=MB/s
# (goal: dflow >= 1.5x TensorFlow's best way of consuming the dataset).
#
#   bench/compare_tfrecord.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import tensorflow" >/dev/null 2>&1; then
  echo "TensorFlow is not importable; run tools/tf_reference/setup_tf.sh" >&2
  exit 1
fi
bazel build //bench:tfrecord_bench >/dev/null 2>&1 ||
  { echo "building //bench:tfrecord_bench failed" >&2; exit 1; }
dflow_out="$(bazel-bin/bench/tfrecord_bench --benchmark_filter='BM_Read/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_color=false 2>/dev/null)"
tf_out="$(TF_CPP_MIN_LOG_LEVEL=3 python3 bench/tfrecord_tf_peer.py --repeats 3 2>/dev/null)"
echo "$dflow_out" | grep -E "BM_Read/.*_median"
echo "$tf_out" | grep "TFRecordDataset"
for compression in none gzip; do
  # Google Benchmark prints MB_per_s=4.64584k/s: expand the k.
  dflow="$(echo "$dflow_out" | grep "BM_Read/$compression/.*_median" |
    sed -E 's/.*MB_per_s=([0-9.]+)(k?)\/s.*/\1 \2/' |
    awk '{ v = $1; if ($2 == "k") v *= 1000; printf "%.1f", v }')"
  tf="$(echo "$tf_out" | grep "TFRecordDataset/$compression/" |
    sed -E 's/.*MB_per_s=([0-9.]+).*/\1/' | sort -g | tail -n 1)"
  name="tfrecord_read_mb_s"
  [ "$compression" = gzip ] && name="tfrecord_gzip_read_mb_s"
  echo "metric $name dflow=$dflow tf=$tf unit=MB/s"
done
