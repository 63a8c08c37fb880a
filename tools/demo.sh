#!/usr/bin/env bash
# The main example: builds the seed MLP (784-500-10) as four towers on
# /gpu:0../gpu:3 with shared variables on /cpu:0 through the C++ API, saves
# it as .pb and .pbtxt, inspects both files with the dflow CLI, runs it in
# process, then reloads the .pb with `dflow run` in a new process, which
# must print the same losses. The towers ask for GPUs: with soft placement
# they fall back to the CPU here (the placement log says so); with
# `--devices CPU:1,GPU:4` each tower runs on its own GPU stand-in.
set -euo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh
bazel build //examples:mlp_towers //tools:dflow 2>&1 | tail -n 3

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
