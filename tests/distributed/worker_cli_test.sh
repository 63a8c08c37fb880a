#!/usr/bin/env bash
# `dflow worker` as a process: three workers on free loopback ports, each
# with a bounded lifetime; `dflow place --cluster` and `dflow run --cluster`
# (with --stats and --timeline) over them; SIGTERM stops
# one cleanly; --max_seconds ends another; a second server on a taken port
# exits 1 naming the task.
set -euo pipefail
dflow="$TEST_SRCDIR/dflow/tools/dflow"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }

source "$TEST_SRCDIR/dflow/tests/distributed/cluster_processes.sh"
ports=($(free_ports 3))
cluster="worker=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]},ps=127.0.0.1:${ports[2]}"

trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start_task worker 0 worker0 --devices CPU:1 --max_seconds 60
start_task worker 1 worker1 --devices CPU:2 --max_seconds 60
start_task ps 0 ps0 --devices CPU:1 --max_seconds 8
grep -q "^dflow worker: /job:worker/replica:0/task:1 serving CPU:0, CPU:1 on 127.0.0.1:${ports[1]}$" \
  "$tmp/worker1.log" || fail "worker 1's line: $(cat "$tmp/worker1.log")"

cat >"$tmp/g.pbtxt" <<'PB'
node { name: "a" op: "Const" device: "/job:ps/task:0"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "b" op: "Neg" input: "a" device: "/job:worker/task:1/device:CPU:1"
  attr { key: "T" value { type: DT_FLOAT } } }
PB
"$dflow" place --graph "$tmp/g.pbtxt" --cluster "$cluster" >"$tmp/place.out" 2>&1 ||
  fail "place: $(cat "$tmp/place.out")"
grep -q "^b: (Neg): /job:worker/replica:0/task:1/device:CPU:1$" "$tmp/place.out" ||
  fail "placement: $(cat "$tmp/place.out")"

# The graph runs on the cluster: a on ps, b on worker 1, fetched on the
# master (worker 0).
"$dflow" run --graph "$tmp/g.pbtxt" --cluster "$cluster" --fetch b --steps 2 \
  --stats --timeline "$tmp/timeline.json" \
  >"$tmp/run.out" 2>&1 || fail "run: $(cat "$tmp/run.out")"
grep -q "values: -1$" "$tmp/run.out" || fail "run values: $(cat "$tmp/run.out")"
grep -q "on the cluster .* (4 devices)" "$tmp/run.out" || fail "run header: $(cat "$tmp/run.out")"
# The last step's stats and timeline hold the nodes of every task that ran.
grep -Eq "^step stats: [0-9]+ nodes ran" "$tmp/run.out" ||
  fail "no step stats: $(cat "$tmp/run.out")"
grep -q "^timeline: wrote $tmp/timeline.json" "$tmp/run.out" ||
  fail "no timeline: $(cat "$tmp/run.out")"
python3 - "$tmp/timeline.json" <<'PY' || fail "the timeline lacks a task's device"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
devices = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
# b on worker 1 (a, a constant, folded into it), the fetch on worker 0.
assert any("/job:worker/replica:0/task:1/device:CPU:1" in d for d in devices), devices
assert any("/job:worker/replica:0/task:0/device:CPU:0" in d for d in devices), devices
assert {"_Send", "_Recv"} <= {e["name"] for e in events if e.get("ph") == "X"}
PY
if "$dflow" run --graph "$tmp/g.pbtxt" --cluster "$cluster" --fetch b \
    --devices CPU:2 >"$tmp/run2.out" 2>&1; then
  fail "--devices with --cluster was accepted"
fi
grep -q "does not work with --cluster" "$tmp/run2.out" || fail "$(cat "$tmp/run2.out")"

# A second server for worker 0: its port is taken.
if "$dflow" worker --cluster "$cluster" --job worker --task 0 \
    --max_seconds 5 >"$tmp/clash.log" 2>&1; then
  fail "a second worker 0 started"
fi
grep -q "task /job:worker/replica:0/task:0 cannot listen on 127.0.0.1:${ports[0]}" \
  "$tmp/clash.log" || fail "clash: $(cat "$tmp/clash.log")"

# SIGTERM stops worker 1 cleanly.
kill -TERM "${pids[1]}"
wait "${pids[1]}" || fail "worker 1 exited with $?"
grep -q "task:1 stopped" "$tmp/worker1.log" || fail "no stop line"
# The ps task ends after its 8 seconds by itself.
wait "${pids[2]}" || fail "ps exited with $?"
grep -q "ps/replica:0/task:0 stopped" "$tmp/ps0.log" || fail "ps did not stop"
# Worker 1 is gone: placing now fails naming it, within the timeout.
if "$dflow" place --graph "$tmp/g.pbtxt" --cluster "$cluster" \
    --cluster_timeout_ms 300 >"$tmp/gone.out" 2>&1; then
  fail "place succeeded without worker 1"
fi
grep -q "task /job:worker/replica:0/task:1 at 127.0.0.1:${ports[1]}" "$tmp/gone.out" ||
  fail "gone: $(cat "$tmp/gone.out")"
echo PASS
