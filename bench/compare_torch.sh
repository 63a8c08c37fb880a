#!/usr/bin/env bash
# dflow's runtime next to PyTorch's, in one run: builds //bench:executor_bench,
# //bench:training_bench, //bench:matmul_bench, //bench:compile_bench and
# //bench:graph_bench, installs Debian's python3-torch when the system
# Python cannot import torch, runs the same workloads on both sides with 1
# and 2 threads (bench/torch_peer.py is the PyTorch side): executor
# overhead, the seed MLP's forward pass and its training step (forward,
# backward, SGD update) with the step's peak memory, MatMul 1024^3; then
# dflow alone (no PyTorch counterpart): compile time of synthetic 10k, 100k
# and 1M-node graphs per stage (compile_bench; goal <= 1 s at 1M, linear
# growth), Session::Create + first Run, and GraphDef binary parse and
# serialize at 1M nodes (graph_bench). Prints one table with dflow's
# speedup and the goals, then one line per figure:
#   metric <name> dflow=<value> torch=<value> unit=<unit>
# (chain_us_per_node, fanout_us_per_node, mlp_forward_ms, mlp_train_step_ms,
# mlp_train_examples_per_s, matmul1024_gflops, matmul1024_pct_of_blas,
# mlp_train_peak_kb, mlp_train_step_peak_kb, mlp_train_planned_step_peak_kb,
# each _t1 and _t2; compile_10k_ms, compile_100k_ms, compile_1m_ms,
# compile_linearity, compile_<size>_<stage>_ms, session_first_run_10k_ms,
# session_first_run_100k_ms, graphdef_parse_1m_ms, graphdef_serialize_1m_ms,
# each _t1: names kept stable for tools).
#
#   bench/compare_torch.sh             # 7 repetitions of 0.3 s, ~8 minutes
#   bench/compare_torch.sh --quick     # 3 repetitions of 0.1 s, ~3 minutes
# (most of it the 1M-node compiles: ~1 minute each while compile is slow)
#   bench/compare_torch.sh --markdown  # the table as Markdown
#
# Times exclude the bazel build and the one-off python3-torch install
# (apt-get, needs root or sudo). Every figure is a median over repetitions,
# wall clock; on a machine busy with other work the 1-thread rows' "by CPU"
# column is the steadier ratio. Raw outputs (console logs, JSON) go to
# $BENCH_OUT (default: a new temporary directory), printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
markdown=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=1 ;;
    --markdown) markdown=(--markdown) ;;
    -h|--help) sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown argument '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

out="${BENCH_OUT:-$(mktemp -d /tmp/dflow_compare_torch.XXXXXX)}"
mkdir -p "$out"
if [ "$quick" -eq 1 ]; then
  reps=3 min_time=0.1
  # One compile of 1M nodes takes seconds (and building the graph more):
  # fewer repetitions there, and Session::Create + first Run at 10k only.
  compile_large_reps=1
  first_run_filter='BM_SessionFirstRun/10000/'
else
  reps=7 min_time=0.3
  compile_large_reps=3
  first_run_filter='BM_SessionFirstRun/(10000|100000)/'
fi
threads_list=(1 2)
# Debian's torch is built for the system Python, not for a pyenv/venv one.
torch_python=/usr/bin/python3

overall_start=$SECONDS
echo "== building //bench:executor_bench //bench:training_bench" \
     "//bench:matmul_bench //bench:compile_bench //bench:graph_bench"
build_start=$SECONDS
if ! bazel build //bench:executor_bench //bench:training_bench \
    //bench:matmul_bench //bench:compile_bench //bench:graph_bench \
    >"$out/build.log" 2>&1; then
  echo "bazel build failed; its last lines:"; tail -n 30 "$out/build.log"
  exit 1
fi
tail -n 2 "$out/build.log"
bazel_bin="$(bazel info bazel-bin 2>/dev/null)"
build_seconds=$((SECONDS - build_start))
# Copies: a concurrent build in the same output base (another configuration,
# e.g. sanitizers) may replace bazel-bin's files while this runs.
mkdir -p "$out/bin"
cp -f "$bazel_bin/bench/executor_bench" "$bazel_bin/bench/training_bench" \
  "$bazel_bin/bench/matmul_bench" "$bazel_bin/bench/compile_bench" \
  "$bazel_bin/bench/graph_bench" "$out/bin/"
for b in "$out"/bin/*; do
  if grep -qaE '__(tsan|asan|msan)_init' "$b"; then
    echo "warning: $b is a sanitizer build; figures will be meaningless" >&2
  fi
done
echo "source: $(git rev-parse --short HEAD 2>/dev/null || echo '?')" \
  "$(git diff --quiet HEAD -- 2>/dev/null || echo '(with uncommitted changes)')"

if ! "$torch_python" -c 'import torch' >/dev/null 2>&1; then
  echo "== installing python3-torch (Debian) for $torch_python"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  install_start=$SECONDS
  if ! "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y python3-torch >"$out/apt-get.log" 2>&1; then
    "${sudo_cmd[@]}" apt-get update >>"$out/apt-get.log" 2>&1 || true
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y python3-torch >>"$out/apt-get.log" 2>&1 || {
        echo "apt-get install python3-torch failed; its last lines:"
        tail -n 20 "$out/apt-get.log"; exit 1; }
  fi
  echo "installed in $((SECONDS - install_start)) s"
fi
bench_start=$SECONDS
load_before="$(cut -d' ' -f1 /proc/loadavg)"  # after the build and install

# The console shows the median of each benchmark; the JSON has every run.
bench_args=(--benchmark_repetitions="$reps" --benchmark_min_time="$min_time"
            --benchmark_display_aggregates_only=true --benchmark_color=false
            --benchmark_format=console --benchmark_out_format=json)
executor_args=()
training_args=()
torch_args=()
dflow_seconds=0
torch_seconds=0
# Alternate the two sides per thread count, so that a change in the
# machine's load hits both rather than one.
for t in "${threads_list[@]}"; do
  echo "== dflow: executor_bench, DFLOW_NUM_THREADS=$t ($reps x ${min_time} s)"
  start=$SECONDS
  DFLOW_NUM_THREADS=$t "$out/bin/executor_bench" "${bench_args[@]}" \
    --benchmark_filter='BM_(ChainOfScalarAdds|FanOutFanIn)/10000|BM_MlpForward/100' \
    --benchmark_out="$out/executor_t$t.json" 2>&1 \
    | grep -v -E '_(mean|stddev|cv)\b' | tee "$out/executor_t$t.txt"
  dflow_seconds=$((dflow_seconds + SECONDS - start))
  executor_args+=(--executor "$t=$out/executor_t$t.json")

  echo "== dflow: training_bench, DFLOW_NUM_THREADS=$t ($reps x ${min_time} s)"
  start=$SECONDS
  DFLOW_NUM_THREADS=$t "$out/bin/training_bench" "${bench_args[@]}" \
    --benchmark_filter='BM_MlpTrainStep/100' \
    --benchmark_out="$out/training_t$t.json" 2>&1 \
    | grep -v -E '_(mean|stddev|cv)\b' | tee "$out/training_t$t.txt"
  dflow_seconds=$((dflow_seconds + SECONDS - start))
  training_args+=(--training "$t=$out/training_t$t.json")

  echo "== PyTorch: bench/torch_peer.py --threads $t"
  start=$SECONDS
  "$torch_python" bench/torch_peer.py --threads "$t" --repetitions "$reps" \
    --min-time "$min_time" --json "$out/torch_t$t.json" \
    2>"$out/torch_t$t.stderr" | tee "$out/torch_t$t.txt" || {
      echo "torch_peer.py failed; its last messages:"
      tail -n 20 "$out/torch_t$t.stderr"; exit 1; }
  torch_seconds=$((torch_seconds + SECONDS - start))
  torch_args+=(--torch "$out/torch_t$t.json")
done

# matmul_bench sweeps 1 thread and one per core itself (its own pools; the
# cblas rows use OpenBLAS's threads), so it runs once.
echo "== dflow: matmul_bench 1024^3 ($reps x ${min_time} s)"
start=$SECONDS
# Its own console reporter (which ends with dflow's ratio to the best
# library) sees every repetition and always colours: strip both here.
"$out/bin/matmul_bench" "${bench_args[@]}" \
  --benchmark_display_aggregates_only=false \
  --benchmark_filter='^(dflow|cblas)/1024x1024x1024/' \
  --benchmark_out="$out/matmul.json" 2>&1 \
  | sed 's/\x1b\[[0-9;]*m//g' | tee "$out/matmul.txt" \
  | grep -v -E '_(mean|stddev|cv)[[:space:]]|/real_time[[:space:]]'
dflow_seconds=$((dflow_seconds + SECONDS - start))

# Compile time and GraphDef parse/serialize: single-threaded, dflow only,
# run once. The JSON gets every repetition; the console the medians.
echo "== dflow: compile_bench (10k, 100k: $reps x ${min_time} s; 1M:" \
     "$compile_large_reps x 1 compile; $first_run_filter)"
start=$SECONDS
compile_args=(--benchmark_min_time="$min_time" --benchmark_color=false
              --benchmark_format=console --benchmark_out_format=json
              --benchmark_counters_tabular=true)
"$out/bin/compile_bench" "${compile_args[@]}" \
  --benchmark_repetitions="$reps" --benchmark_display_aggregates_only=true \
  --benchmark_filter="BM_Compile/(10000|100000)/|$first_run_filter" \
  --benchmark_out="$out/compile_small.json" 2>&1 \
  | grep -v -E '_(mean|stddev|cv)\b' | tee "$out/compile_small.txt"
"$out/bin/compile_bench" "${compile_args[@]}" \
  --benchmark_repetitions="$compile_large_reps" \
  --benchmark_display_aggregates_only=true \
  --benchmark_filter='BM_Compile/1000000/' \
  --benchmark_out="$out/compile_1m.json" 2>&1 \
  | grep -v -E '_(mean|stddev|cv)\b' | tee "$out/compile_1m.txt"
# One JSON for the summary: the two runs' benchmarks together.
python3 -c 'import json, sys
docs = [json.load(open(p)) for p in sys.argv[2:]]
docs[0]["benchmarks"] = [b for d in docs for b in d["benchmarks"]]
json.dump(docs[0], open(sys.argv[1], "w"), indent=1)' \
  "$out/compile.json" "$out/compile_small.json" "$out/compile_1m.json"
echo "== dflow: graph_bench GraphDef binary parse/serialize, 1M-node chain"
"$out/bin/graph_bench" --benchmark_repetitions="$reps" \
  --benchmark_min_time="$min_time" --benchmark_display_aggregates_only=true \
  --benchmark_color=false --benchmark_format=console \
  --benchmark_out_format=json \
  --benchmark_filter='BM_(Parse|Serialize)/binary_chain/1000000/' \
  --benchmark_out="$out/graph.json" 2>&1 \
  | grep -v -E '_(mean|stddev|cv)\b' | tee "$out/graph.txt"
dflow_seconds=$((dflow_seconds + SECONDS - start))

load_after="$(cut -d' ' -f1 /proc/loadavg)"
echo
echo "== dflow vs PyTorch (median of $reps; dflow speedup above 1x: dflow" \
     "is faster)  load average $load_before at start, $load_after at end," \
     "$(nproc) CPUs"
python3 bench/summarize_compare_torch.py "${executor_args[@]}" \
  "${training_args[@]}" --matmul "$out/matmul.json" \
  --compile "$out/compile.json" --graph "$out/graph.json" \
  "${torch_args[@]}" "${markdown[@]}" \
  | tee "$out/summary.txt"
echo
echo "dflow benchmarks took ${dflow_seconds} s, torch_peer.py ${torch_seconds} s" \
     "(all measuring $((SECONDS - bench_start)) s; the bazel build" \
     "${build_seconds} s; in all $((SECONDS - overall_start)) s); raw outputs: $out"
