#!/usr/bin/env bash
# dflow vs PyTorch on one GPU, in one script: seed 001's MLP training step
# (784-500-10, SGD, fixed batch; bench/gpu/mlp_gpu_bench.cc vs
# bench/torch_peer.py mlp_train --device cuda) at batch 100 and 1000, and
# an 8192^3 float MatMul (bench/gpu/matmul_gpu_bench.cc, which also times
# cuBLAS called directly and host<->device copies vs cudaMemcpy, vs
# torch.mm on cuda). Prints one table with ratios, then one line per figure:
#   metric <name> dflow=<v> torch=<v> unit=<u>
# (torch=nan where PyTorch gave nothing).
#
#   bench/gpu/compare_torch_gpu.sh [--tf32]     # in a checkout, after
#       bazel build //bench/gpu:mlp_gpu_bench //bench/gpu:matmul_gpu_bench
#   gpu_bundle/compare_torch_gpu.sh [--tf32]    # in a tools/gpu_bundle.sh
#       bundle, on a machine without Bazel
#
# --tf32: both sides may use TF32 for the MLP (SessionOptions.gpu_allow_tf32
# / torch.backends.cuda.matmul.allow_tf32); off by default (full float).
# PYTHON picks the interpreter with PyTorch (default python3). Without a GPU
# it says so and exits 0; without PyTorch (or without CUDA in it) the torch
# column stays empty and it says why. Exit status 1 only when a dflow
# benchmark fails on a GPU.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tf32=0
for arg in "$@"; do
  case "$arg" in
    --tf32) tf32=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "compare_torch_gpu: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

# Where things are: a bundle (bin/, lib/, torch_peer.py beside this script)
# or a checkout (bazel-bin, bench/torch_peer.py).
if [ -x "$here/bin/bench/gpu/mlp_gpu_bench" ]; then
  bin="$here/bin/bench/gpu"
  peer="$here/torch_peer.py"
  # lib/ and the CUDA libraries the bundle left out, found on this machine.
  source "$here/env.sh"
else
  root="$(cd "$here/../.." && pwd)"
  bin="$root/bazel-bin/bench/gpu"
  peer="$root/bench/torch_peer.py"
fi
for b in mlp_gpu_bench matmul_gpu_bench; do
  if [ ! -x "$bin/$b" ]; then
    echo "compare_torch_gpu: $bin/$b not found: build it (bazel build" \
         "//bench/gpu:$b) or run this script from a tools/gpu_bundle.sh bundle" >&2
    exit 2
  fi
done
python="${PYTHON:-python3}"
logs="$(mktemp -d)"

# --- dflow: the MLP first (it also says whether there is a GPU) -----------
mlp_flags=()
[ "$tf32" -eq 1 ] && mlp_flags+=(--tf32)
echo "== dflow: mlp_gpu_bench ${mlp_flags[*]:-}"
"$bin/mlp_gpu_bench" "${mlp_flags[@]}" > "$logs/mlp.txt" 2>&1
mlp_rc=$?
cat "$logs/mlp.txt"
if grep -q '^mlp_gpu: no GPU' "$logs/mlp.txt"; then
  echo "compare_torch_gpu: no GPU here ($(sed -n 's/^mlp_gpu: no GPU: //p' "$logs/mlp.txt" | head -n 1)); nothing to compare"
  exit 0
fi
echo "== dflow: matmul_gpu_bench (MatMul and copies vs cuBLAS / cudaMemcpy)"
"$bin/matmul_gpu_bench" > "$logs/matmul.txt" 2>&1
matmul_rc=$?
cat "$logs/matmul.txt"

# --- PyTorch -----------------------------------------------------------------
torch_ok=1
if ! "$python" -c 'import torch' > "$logs/torch_import.txt" 2>&1; then
  echo "compare_torch_gpu: no PyTorch for $python ($(tail -n 1 "$logs/torch_import.txt")): torch column empty (set PYTHON)"
  torch_ok=0
fi
run_torch() {  # LOGNAME ARGS...
  local name="$1"; shift
  echo "== PyTorch: torch_peer.py $*"
  "$python" "$peer" --threads "$(nproc 2>/dev/null || echo 4)" \
      --repetitions 5 --min-time 0.5 --device cuda "$@" > "$logs/$name" 2>&1
  local rc=$?
  cat "$logs/$name"
  if [ "$rc" -eq 3 ]; then
    echo "compare_torch_gpu: PyTorch sees no CUDA device: torch column empty"
    torch_ok=0
  elif [ "$rc" -ne 0 ]; then
    echo "compare_torch_gpu: torch_peer.py failed (status $rc)"
  fi
}
torch_tf32=()
[ "$tf32" -eq 1 ] && torch_tf32+=(--tf32)
[ "$torch_ok" -eq 1 ] && run_torch t100.txt --workloads mlp_train,matmul \
    --batch 100 --matmul-n 8192 "${torch_tf32[@]}"
[ "$torch_ok" -eq 1 ] && run_torch t1000.txt --workloads mlp_train \
    --batch 1000 "${torch_tf32[@]}"
[ "$torch_ok" -eq 1 ] && run_torch tmm32.txt --workloads matmul \
    --matmul-n 8192 --tf32

# --- Figures -------------------------------------------------------------------
# dflow MLP: "mlp_gpu batch=B ... ms_per_step=X examples_per_s=Y ...".
mlp_field() {  # BATCH FIELD
  awk -v b="batch=$1" -v f="$2=" '$1 == "mlp_gpu" && $2 == b {
      for (i = 3; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1)
    }' "$logs/mlp.txt" | head -n 1
}
# torch_peer: "... X ms per step (Y examples/s; ..." / "... X GFLOP/s (...".
torch_mlp() {  # LOG ms|eps
  awk -v want="$2" '$1 == "torch" && $2 == "mlp_train" {
      for (i = 3; i <= NF; i++) if ($i == "ms" && $(i + 1) == "per") {
        if (want == "ms") print $(i - 1); else { v = $(i + 3); sub(/^\(/, "", v); print v }
      }
    }' "$logs/$1" 2>/dev/null | head -n 1
}
torch_tflops() {  # LOG
  awk '$1 == "torch" && $2 == "matmul" {
      for (i = 3; i <= NF; i++) if ($i == "GFLOP/s") printf "%.3f\n", $(i - 1) / 1000
    }' "$logs/$1" 2>/dev/null | head -n 1
}
# matmul_gpu_bench's closing table: "  ROW  dflow X  library Y  Z%".
lib_rate() {  # ROW dflow|library
  awk -v row="$1" -v who="$2" '$1 == row && $2 == "dflow" {
      print (who == "dflow" ? $3 : $5)
    }' "$logs/matmul.txt" | head -n 1
}

rows=()   # name|unit|dflow|peer|peer_name|higher_is_better
for b in 100 1000; do
  rows+=("mlp_train_b${b}_ms_per_step|ms|$(mlp_field $b ms_per_step)|$(torch_mlp t$b.txt ms)|torch|0")
  rows+=("mlp_train_b${b}_examples_per_s|examples/s|$(mlp_field $b examples_per_s)|$(torch_mlp t$b.txt eps)|torch|1")
done
rows+=("matmul_fp32_8192|TFLOP/s|$(lib_rate 'matmul/fp32/8192^3' dflow)|$(torch_tflops t100.txt)|torch|1")
rows+=("matmul_tf32_8192|TFLOP/s|$(lib_rate 'matmul/tf32/8192^3' dflow)|$(torch_tflops tmm32.txt)|torch|1")
for r in 'matmul/fp32/8192^3' 'matmul/tf32/8192^3' 'matmul/fp32/1024^3' \
         'copy/h2d/pinned' 'copy/h2d/pageable' 'copy/d2h/pinned' 'copy/d2h/pageable'; do
  unit="TFLOP/s"; peer_name=cublas
  case "$r" in copy/*) unit="GB/s"; peer_name=cudaMemcpy ;; esac
  rows+=("$(echo "$r" | tr '/^' '__' | sed 's/_3$//')|$unit|$(lib_rate "$r" dflow)|$(lib_rate "$r" library)|$peer_name|1")
done

echo
echo "== dflow vs PyTorch$( [ "$tf32" -eq 1 ] && echo ' (TF32 allowed)') on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo 'the GPU')"
printf '%-34s %-11s %12s %12s %-10s %8s\n' figure unit dflow other vs 'dflow x'
for row in "${rows[@]}"; do
  IFS='|' read -r name unit d p pn hib <<< "$row"
  ratio=$(awk -v d="$d" -v p="$p" -v h="$hib" 'BEGIN {
      if (d == "" || p == "" || d + 0 <= 0 || p + 0 <= 0) { print "-"; exit }
      printf "%.2f", (h == 1 ? d / p : p / d) }')
  printf '%-34s %-11s %12s %12s %-10s %8s\n' "$name" "$unit" "${d:--}" "${p:--}" "$pn" "$ratio"
done
echo "(dflow x: how many times faster dflow is; > 1 is dflow ahead)"
echo
for row in "${rows[@]}"; do
  IFS='|' read -r name unit d p pn hib <<< "$row"
  [ "$pn" = torch ] || continue
  echo "metric $name dflow=${d:-nan} torch=${p:-nan} unit=$unit"
done
for row in "${rows[@]}"; do
  IFS='|' read -r name unit d p pn hib <<< "$row"
  [ "$pn" = torch ] && continue
  echo "metric ${name}_vs_$pn dflow=${d:-nan} $pn=${p:-nan} unit=$unit"
done
echo "compare_torch_gpu: logs in $logs"
[ "$mlp_rc" -eq 0 ] && [ "$matmul_rc" -eq 0 ]
