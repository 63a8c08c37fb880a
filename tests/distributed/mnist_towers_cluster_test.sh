#!/usr/bin/env bash
# examples/mnist_towers --cluster on three `dflow worker` processes (2
# workers, 1 ps) on free loopback ports, one epoch each strategy: the seed's
# progress lines, the loss of one process at every logged step (printed to
# 2 decimals: the C++ tests check values bit for bit), a test accuracy like
# one process's, and the allreduce gradients crossing processes through
# Gloo. Then a cluster with one worker too few is refused.
set -euo pipefail
dflow="$TEST_SRCDIR/dflow/tools/dflow"
towers="$TEST_SRCDIR/dflow/examples/mnist_towers"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }
data=/usr/share/datasets/fashion-mnist
if [ ! -d "$data" ]; then
  echo "SKIPPED: $data is missing (apt-get install dataset-fashion-mnist)"
  exit 0
fi

source "$TEST_SRCDIR/dflow/tests/distributed/cluster_processes.sh"
ports=($(free_ports 3))
cluster="worker=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},ps=127.0.0.1:${ports[2]}"

trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start_task worker 0 worker0 --max_seconds 240
start_task worker 1 worker1 --max_seconds 240
start_task ps 0 ps0 --max_seconds 240

for strategy in ps allreduce; do
  "$towers" --towers 2 --strategy "$strategy" --epochs 1 --log_every 50 \
    --checkpoint_dir "$tmp/ck_$strategy" >"$tmp/one_$strategy.out" 2>&1 ||
    fail "one process, $strategy: $(cat "$tmp/one_$strategy.out")"
  "$towers" --cluster "$cluster" --towers 2 --strategy "$strategy" \
    --epochs 1 --log_every 50 >"$tmp/cluster_$strategy.out" 2>&1 ||
    fail "cluster, $strategy: $(cat "$tmp/cluster_$strategy.out")"
  out="$tmp/cluster_$strategy.out"
  grep -q "^2 towers on /job:worker/task:0..1, shared ops on /job:ps/replica:0/task:0/device:CPU:0, 200 examples per step (100 per tower), strategy $strategy$" \
    "$out" || fail "cluster $strategy intro: $(cat "$out")"
  grep -Eq "^step 300, loss = [0-9.]+ \([0-9.]+ examples/sec; [0-9.]+ sec/batch\)$" \
    "$out" || fail "cluster $strategy: no seed line for step 300: $(cat "$out")"
  diff <(grep -o "^step [0-9]*, loss = [0-9.]*" "$tmp/one_$strategy.out") \
       <(grep -o "^step [0-9]*, loss = [0-9.]*" "$out") ||
    fail "$strategy: the cluster's losses differ from one process's"
  accuracy="$(sed -n 's/^test accuracy = //p' "$out")"
  python3 -c "import sys; sys.exit(0 if float('$accuracy') >= 0.80 else 1)" ||
    fail "cluster $strategy: test accuracy $accuracy < 0.80"
done

if "$towers" --cluster "$cluster" --towers 3 --epochs 1 >"$tmp/three.out" 2>&1; then
  fail "3 towers on 2 workers were accepted"
fi
grep -q "towers 3 on a cluster with 2 worker tasks" "$tmp/three.out" ||
  fail "$(cat "$tmp/three.out")"
echo PASS
