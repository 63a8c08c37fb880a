#!/usr/bin/env bash
# dflow next to TensorFlow 2.21 on a TF1-style scalar while loop of
# ITERATIONS (default 10000) iterations that TensorFlow writes
# (bench/tf_loop_peer.py), with 1 and 2 threads, in one run; prints
#   metric while_us_per_iteration_t<threads> dflow=<v> tf=<v> unit=us
# (medians over --reps runs of the whole loop; the issue's goal: dflow at
# least 5x faster per iteration).
#
#   bench/compare_tf_loops.sh [--iterations N] [--reps R]
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=10000
reps=5
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ! python3 -c "import tensorflow" >/dev/null 2>&1; then
  echo "TensorFlow is not importable; run tools/tf_reference/setup_tf.sh" >&2
  exit 1
fi
out="$(mktemp -d /tmp/dflow_compare_tf_loops.XXXXXX)"
bazel build //bench:while_loop_bench >"$out/build.log" 2>&1 ||
  { tail -n 30 "$out/build.log"; exit 1; }
bin="$(bazel info bazel-bin 2>/dev/null)/bench/while_loop_bench"
for t in 1 2; do
  tf_line="$(python3 bench/tf_loop_peer.py "$out" "$iterations" "$t" "$reps" 2>"$out/tf_$t.log")"
  dflow_line="$("$bin" "$out/while_loop.pb" "$iterations" "$t" "$reps")"
  echo "$tf_line"
  echo "$dflow_line"
  tf="${tf_line##*us_per_iteration=}"
  dflow="${dflow_line##*us_per_iteration=}"
  echo "metric while_us_per_iteration_t$t dflow=$dflow tf=$tf unit=us" \
       "(TF time / dflow time: $(python3 -c "print('%.2f' % ($tf / $dflow))"))"
done
