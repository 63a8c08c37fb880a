#!/usr/bin/env bash
# dflow next to TensorFlow 2.21 on graphs TensorFlow wrote, in one run.
# Writes the graphs with tools/tf_reference/make_corpus.py (TensorFlow 2
# graph-mode defaults: resource variables; --batch_scale 4), then runs each
# graph's initializer and training step in both systems with 1 and 2
# threads (bench/tf_training_bench.cc, bench/tf_training_peer.py; one
# process per run) and prints a table and
#   metric <name>_t<threads> dflow=<v> tf=<v> unit=<u>
# lines. The graphs and their metrics:
#   mlp_towers      seed 001's MLP on 4 towers, 100 examples each:
#                   mlp_towers_step_ms (goal >= 2x TensorFlow's speed)
#   cifar10_towers  seed 003's CNN on 2 towers, 32 examples each:
#                   cifar10_towers_step_ms (goal >= 1.3x)
#   lstm, lstm_v1   an LSTM dynamic_rnn training step, 20 time steps, batch
#                   64, in TensorFlow 2's functional loop with TensorLists
#                   and in TF1 control flow (Enter/Exit, stacks,
#                   TensorArrays): lstm_train_step_ms, lstm_v1_train_step_ms
#                   (issue 18's goal >= 1.5x)
#   mlp             seed 001's MLP step on one device, batch 100:
#                   mlp_train_step_ms (issue 21's goal >= 1.7x)
#   cifar10         seed 003's step on one device, batch 128:
#                   cifar10_train_step_ms (issue 21's goal >= 1.3x)
#   matmul1024      one 1024^3 float product: matmul1024_gflops
#   conv2           seed 003's second convolution, [128,12,12,64] *
#                   [5,5,64,64]: conv2_gflops
# and each graph's <model>_load_first_step_ms (reading the GraphDef through
# the first training step; goal <= TF's).
#
#   bench/compare_tf.sh [--steps N] [--reps R] [--only MODEL...] [--isa avx2]
#
# Each figure is the median over --reps processes (default 20 steps, 3
# reps). --isa avx2 emulates an AVX2 host on an AVX-512 one, for both
# systems: ONEDNN_MAX_CPU_ISA=AVX2 (oneDNN's JIT kernels, in dflow and in
# TensorFlow) and OPENBLAS_CORETYPE=Haswell (dflow's OpenBLAS). Needs
# TensorFlow in the system Python (tools/tf_reference/setup_tf.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

steps=20
reps=3
only=()
all_models=(mlp_towers cifar10_towers lstm lstm_v1 mlp cifar10 matmul1024 conv2)
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) steps="$2"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --only)
      shift
      while [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; do only+=("$1"); shift; done
      ;;
    --isa)
      case "$2" in
        avx2) export ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell ;;
        *) echo "--isa takes avx2 (see --help)" >&2; exit 2 ;;
      esac
      shift 2 ;;
    -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#only[@]} -eq 0 ] && only=("${all_models[@]}")
for m in "${only[@]}"; do
  case " ${all_models[*]} " in *" $m "*) ;; *)
    echo "unknown model '$m' (one of: ${all_models[*]})" >&2; exit 2 ;; esac
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
: >"$out/corpus.log"
for m in "${only[@]}"; do
  # lstm_v1 is the lstm graph in TF1 control flow ("ref" style).
  [ "$m" = lstm_v1 ] && continue
  styles=(res)
  [ "$m" = lstm ] && styles=(res ref)
  python3 tools/tf_reference/make_corpus.py --out "$out/corpus" --only "$m" \
    --styles "${styles[@]}" --batch_scale 4 >>"$out/corpus.log" 2>&1 ||
    { tail -n 30 "$out/corpus.log"; exit 1; }
done
case " ${only[*]} " in *" lstm_v1 "*) [ -d "$out/corpus/lstm_ref" ] ||
  python3 tools/tf_reference/make_corpus.py --out "$out/corpus" --only lstm \
    --styles ref --batch_scale 4 >>"$out/corpus.log" 2>&1 ||
    { tail -n 30 "$out/corpus.log"; exit 1; } ;; esac

# median of the values of key $2 in the lines of file $1 (the whole key:
# step_ms must not match load_first_step_ms)
median() {
  { grep -oE "(^| )$2=[0-9.e+-]*" "$1" || true; } | cut -d= -f2 | sort -g |
    awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'
}

metrics=()
printf "%-16s %7s %-22s %12s %12s %8s\n" graph threads figure dflow tensorflow ratio
# <corpus dir>:<metric name>
# GFLOP per step of the kernel graphs (their figure is GFLOP/s).
declare -A gflop=([matmul1024]=2.147483648 [conv2]=3.774873600)
for model in "${only[@]}"; do
  dir="$out/corpus/${model}_res"
  [ "$model" = lstm_v1 ] && dir="$out/corpus/lstm_ref"
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
      unit=ms
      if [ "$figure" = step_ms ]; then
        case "$model" in
          *_towers) name="${model}_step_ms" ;;
          matmul1024|conv2)
            name="${model}_gflops"
            unit=GFLOP/s
            d=$(awk -v d="${d:-0}" -v g="${gflop[$model]}" \
              'BEGIN { if (d > 0) printf "%.1f", g / d * 1000 }')
            f=$(awk -v f="${f:-0}" -v g="${gflop[$model]}" \
              'BEGIN { if (f > 0) printf "%.1f", g / f * 1000 }') ;;
          *) name="${model}_train_step_ms" ;;
        esac
      fi
      metrics+=("metric ${name}_t${t} dflow=${d:-nan} tf=${f:-nan} unit=$unit")
    done
  done
done
echo "(ratio: TensorFlow's time / dflow's; goals: mlp_towers step >= 2x,"
echo " cifar10_towers step >= 1.3x, lstm step >= 1.5x, mlp step >= 1.7x,"
echo " cifar10 step >= 1.3x, load + first step >= 1x)"
[ -n "${ONEDNN_MAX_CPU_ISA:-}" ] &&
  echo "(emulated ISA: ONEDNN_MAX_CPU_ISA=$ONEDNN_MAX_CPU_ISA OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-})"
printf "%s\n" "${metrics[@]}"
echo "raw outputs: $out"
