#!/usr/bin/env bash
# dflow next to TensorFlow 2.21 on graphs TensorFlow wrote, in one run.
# Writes the seed MLP towers (4 towers) and the CIFAR-10 towers (2 towers)
# with tools/tf_reference/make_corpus.py (TensorFlow 2 graph-mode defaults:
# resource variables; --batch_scale 4: 100 examples per MLP tower, 32 per
# CIFAR-10 tower), then runs each graph's initializer and training step in
# both systems with 1 and 2 threads (bench/tf_training_bench.cc,
# bench/tf_training_peer.py; one process per run) and prints a table and
#   metric <name>_t<threads> dflow=<v> tf=<v> unit=<u>
# lines: mlp_towers_step_ms, cifar10_towers_step_ms (warm medians; goals
# >= 2x and >= 1.3x TensorFlow's speed), lstm_train_step_ms (an LSTM
# dynamic_rnn training step, 20 time steps, batch 64: TensorFlow 2's
# functional loop with TensorLists; goal >= 1.5x) and lstm_v1_train_step_ms
# (the same in TF1 control flow: Enter/Exit, stacks, TensorArrays), and
# <model>_load_first_step_ms (reading the GraphDef through the first
# training step; goal <= TF's).
#
#   bench/compare_tf.sh [--steps N] [--reps R]   # default 20 steps, 3 reps
#
# Each figure is the median over --reps processes. Needs TensorFlow in the
# system Python (tools/tf_reference/setup_tf.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."

steps=20
reps=3
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if ! python3 -c "import tensorflow" >/dev/null 2>&1; then
  echo "TensorFlow is not importable; run tools/tf_reference/setup_tf.sh" >&2
  exit 1
fi
out="${BENCH_OUT:-$(mktemp -d /tmp/dflow_compare_tf.XXXXXX)}"
mkdir -p "$out"
echo "== building //bench:tf_training_bench"
bazel build //bench:tf_training_bench >"$out/build.log" 2>&1 ||
  { tail -n 30 "$out/build.log"; exit 1; }
bin="$out/tf_training_bench"
cp -f "$(bazel info bazel-bin 2>/dev/null)/bench/tf_training_bench" "$bin"

echo "== writing the graphs with TensorFlow"
python3 tools/tf_reference/make_corpus.py --out "$out/corpus" \
  --only mlp_towers cifar10_towers --styles res --batch_scale 4 \
  >"$out/corpus.log" 2>&1 || { tail -n 30 "$out/corpus.log"; exit 1; }
python3 tools/tf_reference/make_corpus.py --out "$out/corpus" \
  --only lstm --styles res ref --batch_scale 4 \
  >>"$out/corpus.log" 2>&1 || { tail -n 30 "$out/corpus.log"; exit 1; }

# median of the values of key $2 in the lines of file $1 (the whole key:
# step_ms must not match load_first_step_ms)
median() {
  { grep -oE "(^| )$2=[0-9.e+-]*" "$1" || true; } | cut -d= -f2 | sort -g |
    awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'
}

metrics=()
printf "%-16s %7s %-22s %12s %12s %8s\n" graph threads figure dflow tensorflow ratio
# <corpus dir>:<metric name>
for pair in mlp_towers_res:mlp_towers cifar10_towers_res:cifar10_towers \
  lstm_res:lstm lstm_ref:lstm_v1; do
  model="${pair#*:}"
  dir="$out/corpus/${pair%%:*}"
  for t in 1 2; do
    : >"$out/${model}_t${t}.dflow" ; : >"$out/${model}_t${t}.tf"
    for r in $(seq "$reps"); do
      "$bin" --dir "$dir" --threads "$t" --steps "$steps" \
        >>"$out/${model}_t${t}.dflow" 2>>"$out/errors.log" ||
        echo "dflow failed on $model (see $out/errors.log)" >&2
      python3 bench/tf_training_peer.py --dir "$dir" --threads "$t" \
        --steps "$steps" >>"$out/${model}_t${t}.tf" 2>>"$out/errors.log" ||
        echo "TensorFlow failed on $model (see $out/errors.log)" >&2
    done
    for figure in step_ms load_first_step_ms; do
      d=$(median "$out/${model}_t${t}.dflow" "$figure")
      f=$(median "$out/${model}_t${t}.tf" "$figure")
      ratio=$(awk -v d="${d:-0}" -v f="${f:-0}" \
        'BEGIN { if (d > 0) printf "%.2fx", f / d; else print "n/a" }')
      printf "%-16s %7s %-22s %12s %12s %8s\n" "$model" "$t" "$figure" \
        "${d:-failed}" "${f:-failed}" "$ratio"
      name="${model}_${figure}"
      [ "$figure" = step_ms ] && name="${model}_step_ms"
      case "$model" in lstm*) [ "$figure" = step_ms ] && name="${model}_train_step_ms" ;; esac
      metrics+=("metric ${name}_t${t} dflow=${d:-nan} tf=${f:-nan} unit=ms")
    done
  done
done
echo "(ratio: TensorFlow's time / dflow's; goals: mlp_towers step >= 2x,"
echo " cifar10_towers step >= 1.3x, lstm step >= 1.5x, load + first step >= 1x)"
printf "%s\n" "${metrics[@]}"
echo "raw outputs: $out"
