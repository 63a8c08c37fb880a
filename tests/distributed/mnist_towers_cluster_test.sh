#!/usr/bin/env bash
# examples/mnist_towers --cluster on three `dflow worker` processes (2
# workers, 1 ps) on free loopback ports, one epoch each strategy: the seed's
# progress lines, the loss of one process at every logged step (printed to
# 2 decimals: the C++ tests check values bit for bit), a test accuracy like
# one process's, and the allreduce gradients crossing processes through
# Gloo; with ps, summaries TensorBoard reads and a timeline with every
# task's nodes. Then a cluster with one worker too few is refused.
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
  extra=()
  if [ "$strategy" = ps ]; then
    extra=(--summary_dir "$tmp/logs" --timeline "$tmp/timeline.json")
  fi
  "$towers" --cluster "$cluster" --towers 2 --strategy "$strategy" \
    --epochs 1 --log_every 50 "${extra[@]}" >"$tmp/cluster_$strategy.out" 2>&1 ||
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

# The ps run's timeline: one process per device of every task, the
# transfers between them.
out="$tmp/cluster_ps.out"
grep -q "^wrote timeline $tmp/timeline.json (step 10, [0-9]* nodes on /job:ps/replica:0/task:0, /job:worker/replica:0/task:0, /job:worker/replica:0/task:1)$" \
  "$out" || fail "no timeline of every task: $(cat "$out")"
python3 - "$tmp/timeline.json" <<'PY' || fail "timeline.json lacks a task's device or the transfers"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
devices = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
for task in ("/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1",
             "/job:ps/replica:0/task:0"):
    assert any(d.startswith(task) for d in devices), (task, devices)
ops = {e["name"] for e in events if e.get("ph") == "X"}
assert {"MatMul", "_Send", "_Recv"} <= ops, ops
PY
grep -q "^wrote summaries to $tmp/logs$" "$out" || fail "no summaries: $(cat "$out")"
set +e
python3 "$TEST_SRCDIR/dflow/tools/tf_reference/check_event_file.py" "$tmp/logs" \
  >"$tmp/events.txt" 2>&1
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
  echo "tensorboard does not import: event file contents not checked"
else
  [ "$rc" -eq 0 ] || fail "TensorBoard could not read the events: $(cat "$tmp/events.txt")"
  for step in 100 200 300; do
    grep -q "^scalar loss $step " "$tmp/events.txt" ||
      fail "no loss at step $step: $(cat "$tmp/events.txt")"
    grep -q "^histogram layer1/weights/gradients $step " "$tmp/events.txt" ||
      fail "no gradient histogram at step $step"
  done
  grep -Eq '^run_metadata step100 [1-9][0-9]* [1-9][0-9]* [1-9][0-9]*$' \
    "$tmp/events.txt" || fail "no run metadata for step 100: $(cat "$tmp/events.txt")"
fi

if "$towers" --cluster "$cluster" --towers 3 --epochs 1 >"$tmp/three.out" 2>&1; then
  fail "3 towers on 2 workers were accepted"
fi
grep -q "towers 3 on a cluster with 2 worker tasks" "$tmp/three.out" ||
  fail "$(cat "$tmp/three.out")"
echo PASS
