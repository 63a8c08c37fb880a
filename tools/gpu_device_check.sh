#!/usr/bin/env bash
# One device call's worth of GPU checks, run on the lent GPU machine (no
# Bazel there) from the repository root:
#
#   tools/gpu_device_check.sh [CARRY_DIR] [--no-bench] [--no-programs]
#
# CARRY_DIR (default gpu_carry/, git-ignored) holds what travelled:
#   gpu_bundle.tar.xz   from tools/gpu_bundle.sh
#   fashion-mnist/      the four IDX .gz files for the towers example (a
#                       subset of the training images keeps the carry under
#                       the device tool's 64 MiB)
# Prepare it here with tools/gpu_prepare_carry.sh.
#
# In order, each step under its own time limit so one hang cannot eat the
# lease, logs into $OUT (or /tmp/dflow_gpu_out):
#   1. the machine: nvidia-smi, nvcc, PyTorch's view of the GPU;
#   2. every GPU test binary (gpu_bundle/run_all.sh; tests.txt, logs.tgz);
#   3. the towers example, 2 towers on 2 virtual GPUs of the one GPU, with
#      the ps and allreduce strategies (the latter's checkpoint evaluated
#      again by --eval_only), and the same on 2 CPU devices for the accuracy
#      to compare (towers.txt, placement.txt; a crash is run again under
#      cuda-gdb for a backtrace); seed 003's CIFAR-10 towers the same way
#      on synthetic records (cifar10.txt, cifar_placement.txt); `dflow run`
#      of a TensorFlow-written graph on the GPU (cli.txt);
#   4. unless --no-bench: dflow vs cuBLAS, cudaMemcpy and PyTorch CUDA
#      (gpu_bundle/compare_torch_gpu.sh), then the virtual-GPU all-reduce
#      bandwidth (collective_gpu_bench; both in bench.txt).
# --bench-only skips 1-3's tests and towers; --no-programs skips 3 (the
# towers, CIFAR-10 and `dflow run`).
set -uo pipefail
carry=gpu_carry
bench=1
only_bench=0
programs=1
for arg in "$@"; do
  case "$arg" in
    --no-bench) bench=0 ;;
    --no-programs) programs=0 ;;
    --bench-only) only_bench=1 ;;
    *) carry="$arg" ;;
  esac
done
out="${OUT:-/tmp/dflow_gpu_out}"
mkdir -p "$out"
work=/tmp/dflow_gpu
rm -rf "$work" && mkdir -p "$work"
tar xJf "$carry/gpu_bundle.tar.xz" -C "$work" || { echo "no bundle in $carry"; exit 2; }
bundle="$work/gpu_bundle"

{
  echo "== machine"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
  nvcc --version 2>/dev/null | tail -n 2 | head -n 1
  nproc
  python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' 2>&1
  cat "$bundle/MANIFEST"
} 2>&1 | tee "$out/machine.txt"

if [ "$only_bench" -eq 0 ]; then
echo "== tests"
DFLOW_LOG_DIR="$work/logs" DFLOW_TEST_TIMEOUT="${DFLOW_TEST_TIMEOUT:-60}" \
  timeout -k 5 "${DFLOW_TESTS_LIMIT:-300}" "$bundle/run_all.sh" 2>&1 | tee "$out/tests.txt"
tar czf "$out/logs.tgz" -C "$work" logs 2>/dev/null
fi

if [ "$only_bench" -eq 0 ] && [ "$programs" -eq 1 ]; then
echo "== towers"
(
  source "$bundle/env.sh"
  towers="$bundle/bin/examples/mnist_towers"
  data="$carry/fashion-mnist"
  run() {  # NAME FLAGS...
    local name="$1"; shift
    echo "--- $name: $*"
    timeout -k 5 "${DFLOW_TOWERS_LIMIT:-90}" stdbuf -oL "$towers" --towers 2 --epochs 3 --data_dir "$data" \
      --checkpoint_dir "$work/ckpt_$name" --checkpoint_every 100000 \
      --log_every 100 "$@" 2> "$work/$name.err"
    local rc=$?
    echo "--- $name: exit $rc"
    tail -n 5 "$work/$name.err"
    if [ "$rc" -ge 128 ] && [ "$rc" -ne 137 ] && command -v cuda-gdb >/dev/null; then
      echo "--- $name crashed: again under cuda-gdb for a backtrace"
      timeout -k 5 "${DFLOW_TOWERS_LIMIT:-90}" cuda-gdb -batch -ex run \
        -ex 'thread apply all bt 12' --args "$towers" --towers 2 --epochs 3 \
        --data_dir "$data" --checkpoint_dir "$work/ckpt_${name}_gdb" \
        --checkpoint_every 100000 --log_every 100 "$@" 2>&1 |
        grep -v '^\[New Thread\|^\[Thread .* exited' | tail -n 150
    fi
  }
  run gpu_ps --virtual_gpus 2 --device_type gpu --log_device_placement
  grep -E '^tower_[01]/(MatMul|gradients/tower_[01]/MatMul_grad/MatMul_1): ' \
    "$work/gpu_ps.err" | head -n 8
  cp "$work/gpu_ps.err" "$out/placement.txt"
  run gpu_allreduce --virtual_gpus 2 --device_type gpu --strategy allreduce
  # The mirrored variables (GPU memory) from that checkpoint, in a new process.
  run gpu_allreduce_eval --virtual_gpus 2 --device_type gpu --strategy allreduce \
    --eval_only --checkpoint_dir "$work/ckpt_gpu_allreduce"
  run cpu_ps --device_type cpu
) 2>&1 | tee "$out/towers.txt"

echo "== cifar10 towers"
(
  source "$bundle/env.sh"
  cifar="$bundle/bin/examples/cifar10_towers"
  data="$work/cifar10"
  mkdir -p "$data"
  "$cifar" --data_dir "$data" --write_synthetic_data 2000 > /dev/null
  cifar_run() {  # NAME FLAGS...
    local name="$1"; shift
    echo "--- cifar10 $name: $*"
    timeout -k 5 "${DFLOW_CIFAR_LIMIT:-60}" stdbuf -oL "$cifar" --towers 2 \
      --data_dir "$data" --max_steps 60 --batch_size 32 --log_every 20 \
      --min_after_dequeue 500 --reader_threads 4 --eval_examples 256 "$@" \
      2> "$work/cifar_$name.err"
    echo "--- cifar10 $name: exit $?"
    tail -n 5 "$work/cifar_$name.err"
  }
  cifar_run gpu_ps --device_type gpu --virtual_gpus 2 --log_device_placement
  grep -E 'conv[12]/Conv2D|Conv2DBackpropFilter' "$work/cifar_gpu_ps.err" | head -n 6
  cp "$work/cifar_gpu_ps.err" "$out/cifar_placement.txt"
  cifar_run gpu_allreduce --device_type gpu --virtual_gpus 2 --strategy allreduce
  cifar_run cpu_ps --device_type cpu
) 2>&1 | tee "$out/cifar10.txt"

echo "== dflow run on the GPU (a TensorFlow-written MLP)"
(
  source "$bundle/env.sh"
  python3 -c "import numpy as np; np.save('$work/x.npy', np.random.RandomState(0).rand(3, 784).astype(np.float32))" &&
  timeout -k 5 60 "$bundle/bin/tools/dflow" run --graph tests/testdata/tf/mlp.pbtxt \
    --feed "input/x=$work/x.npy" --fetch output/probs --soft_placement \
    --log_device_placement --steps 3 2>&1 | grep -v '^$' | tail -n 40
  echo "--- the same with --devices CPU:1,GPU:2 (GPU 0 split in two)"
  timeout -k 5 60 "$bundle/bin/tools/dflow" run --graph tests/testdata/tf/mlp.pbtxt \
    --feed "input/x=$work/x.npy" --fetch output/probs --soft_placement \
    --devices CPU:1,GPU:2 --log_device_placement 2>&1 | grep -E 'GPU|probs' | head -n 12
) 2>&1 | tee "$out/cli.txt"

fi

if [ "$bench" -eq 1 ]; then
  echo "== benchmarks"
  timeout -k 5 "${DFLOW_BENCH_LIMIT:-200}" "$bundle/compare_torch_gpu.sh" 2>&1 | tee "$out/bench.txt"
  (source "$bundle/env.sh" && timeout -k 5 120 "$bundle/bin/bench/gpu/collective_gpu_bench") 2>&1 |
    tee -a "$out/bench.txt"
fi
echo "== done"
