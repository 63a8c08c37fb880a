#!/usr/bin/env bash
# dflow's demo. First the seed tower graph: builds the seed MLP (784-500-10)
# as four towers on /gpu:0../gpu:3 with shared variables on /cpu:0 through
# the C++ API, saves it as .pb and .pbtxt, inspects both files with the
# dflow CLI, runs it in process, then reloads the .pb with `dflow run` in a
# new process, which must print the same losses. The towers ask for GPUs:
# with soft placement they fall back to the CPU here (the placement log says
# so); with `--devices CPU:1,GPU:4` each tower runs on its own GPU stand-in.
#
# Then it trains seed 001's MLP on Fashion-MNIST on one device
# (examples/mnist_mlp: seed-style progress lines, checkpoints, test accuracy
# last), and restores the final checkpoint in a second process, which must
# print the same test accuracy.
#
# The main demo comes last: seed 001 reproduced on 2 towers on 2 logical CPU
# devices (examples/mnist_towers, parameter-server strategy: each tower's
# forward and backward pass on its own CPU device, the gradients averaged
# and applied once on CPU:0), with the placement log filtered to its
# summaries and a few telling nodes (the whole log is kept in the demo
# directory) and the 10th step's timeline written as Chrome trace JSON
# (open it in chrome://tracing or ui.perfetto.dev), ending with the test
# accuracy (>= 0.84 after 3 epochs).
#
#   tools/demo.sh               # 3 epochs of each training (seconds each)
#   tools/demo.sh --epochs 1    # quicker (the towers reach about 0.84)
set -euo pipefail
cd "$(dirname "$0")/.."

epochs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --epochs) epochs="$2"; shift 2 ;;
    --epochs=*) epochs="${1#--epochs=}"; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

tools/setup.sh
bazel build //examples:mlp_towers //examples:mnist_mlp \
  //examples:mnist_towers //tools:dflow 2>&1 | tail -n 3

out=${DFLOW_DEMO_DIR:-/tmp/dflow-demo}
mkdir -p "$out"
bazel-bin/examples/mlp_towers --towers 4 --out "$out/mlp_towers" --run
echo
bazel-bin/tools/dflow inspect --graph "$out/mlp_towers.pb"
echo
bazel-bin/tools/dflow inspect --graph "$out/mlp_towers.pbtxt" --brief
echo
bazel-bin/tools/dflow run --graph "$out/mlp_towers.pb" --init init \
  --devices CPU:1,GPU:4 --soft_placement --log_device_placement \
  --feed input/x="$out/mlp_towers_x.npy" \
  --feed input/labels="$out/mlp_towers_labels.npy" \
  --fetch average_loss --fetch tower_0/loss

echo
echo "== training seed 001's MLP on Fashion-MNIST for $epochs epoch(s)"
ckpt="$out/mnist_mlp_ckpt"
rm -rf "$ckpt"
bazel-bin/examples/mnist_mlp --epochs "$epochs" --checkpoint_dir "$ckpt" \
  | tee "$out/mnist_mlp.log"
echo
echo "== restoring the last checkpoint in a new process"
bazel-bin/examples/mnist_mlp --eval_only --checkpoint_dir "$ckpt" \
  | tee "$out/mnist_mlp_eval.log"
trained="$(tail -n 1 "$out/mnist_mlp.log")"
restored="$(tail -n 1 "$out/mnist_mlp_eval.log")"
if [ "$trained" != "$restored" ]; then
  echo "the restored model disagrees: '$trained' vs '$restored'" >&2
  exit 1
fi
echo "same $restored in both processes"

echo
echo "== the main demo: seed 001 on 2 towers (2 logical CPU devices, batch 100"
echo "== per tower), parameter-server strategy, $epochs epoch(s)"
ckpt="$out/mnist_towers_ckpt"
rm -rf "$ckpt"
placement="$out/mnist_towers_placement.log"
bazel-bin/examples/mnist_towers --towers 2 --epochs "$epochs" \
  --checkpoint_dir "$ckpt" --timeline "$out/mnist_towers_timeline.json" \
  --log_device_placement 2>"$placement" | tee "$out/mnist_towers.log"
echo
echo "== where it ran: the placement log's summaries (one per compiled step:"
echo "== init, training, evaluation) and a few of its $(wc -l <"$placement")"
echo "== lines (all in $placement)"
awk '
  /^Device mapping:/ || /^\/job:.* -> device:/ { print; next }
  /^(Placement summary|Soft placement|Partitions|Transfers|Optimizations)/ { show = 1; print; next }
  /^ / && show { print; next }
  { show = 0 }
  /^(layer1\/weights|tower_[0-9]+\/MatMul|tower_[0-9]+\/gradients\/tower_[0-9]+\/MatMul_grad\/MatMul_1|average_gradients\/layer1\/weights\/Mean|GradientDescent\/update_layer1\/weights\/ApplyGradientDescent): / && !seen[$0]++ { print }
' "$placement"
echo
tail -n 1 "$out/mnist_towers.log"
