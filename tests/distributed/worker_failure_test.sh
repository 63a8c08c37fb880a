#!/usr/bin/env bash
# A worker that dies or hangs mid-step ends the step with an error naming
# it, never a hang: two `dflow worker` processes run a slow graph (100
# MatMuls of 1500x1500 on worker 1, the result fetched on worker 0);
#  - kill -9 of worker 1 one second in: `dflow run` fails at once (gRPC
#    sees the connection close), naming task 1;
#  - SIGSTOP of worker 1 (alive, silent): the step fails at its timeout
#    (--timeout_ms 2000) plus the master's half-second margin, naming task
#    1 as the one that did not answer;
#  - a worker restarted on the same port serves the next step.
# The time bounds are loose (what is checked is that the run ends early,
# well before the step could finish or, stopped, ever would).
set -euo pipefail
dflow="$TEST_SRCDIR/dflow/tools/dflow"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$tmp/slow.pbtxt" <<'PY'
import sys
w1 = '/job:worker/task:1'
lines = ['node { name: "shape" op: "Const" device: "%s" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1500 int_val: 1500 } } } }' % w1,
         'node { name: "r" op: "RandomUniform" input: "shape" device: "%s" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } }' % w1]
prev = 'r'
for i in range(100):
    lines.append('node { name: "m%d" op: "MatMul" input: "%s" input: "r" device: "%s" attr { key: "T" value { type: DT_FLOAT } } }' % (i, prev, w1))
    prev = 'm%d' % i
lines.append('node { name: "axes" op: "Const" device: "/job:worker/task:0" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }')
lines.append('node { name: "out" op: "Sum" input: "%s" input: "axes" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }' % prev)
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
cat >"$tmp/quick.pbtxt" <<'PB'
node { name: "a" op: "Const" device: "/job:worker/task:1"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "b" op: "Neg" input: "a" device: "/job:worker/task:0"
  attr { key: "T" value { type: DT_FLOAT } } }
PB

source "$TEST_SRCDIR/dflow/tests/distributed/cluster_processes.sh"
ports=($(free_ports 2))
cluster="worker=127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}"
trap 'kill -CONT "${pids[@]}" 2>/dev/null; kill -9 "${pids[@]}" 2>/dev/null || true' EXIT
start() { start_task worker "$1" "worker$1" --max_seconds 120; }
now() { date +%s.%N; }
elapsed() { python3 -c "print('%.2f' % ($2 - $1))"; }
below() { python3 -c "import sys; sys.exit(0 if $1 < $2 else 1)"; }

start 0
start 1
w1=$task_pid

# kill -9 mid-step: once worker 1 has spent 0.2 s of CPU time on the slow
# graph (it is idle before), not a fixed second in: on a loaded machine the
# run may not have reached the step by then, and a task killed before the
# step is found by the master's device discovery, which waits up to its
# 10 s connect timeout for a task to come up.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
idle_ticks=$(cpu_ticks "$w1")
(for _ in $(seq 600); do
   [ $(($(cpu_ticks "$w1") - idle_ticks)) -ge 20 ] && break
   sleep 0.05
 done
 kill -9 "$w1"; now >"$tmp/killed_at") &
killer=$!
if "$dflow" run --graph "$tmp/slow.pbtxt" --cluster "$cluster" --fetch out \
    --timeout_ms 60000 >"$tmp/kill.out" 2>&1; then
  fail "the step survived kill -9 of worker 1: $(cat "$tmp/kill.out")"
fi
ended=$(now)
wait "$killer"
after=$(elapsed "$(cat "$tmp/killed_at")" "$ended")
grep -q "task /job:worker/replica:0/task:1" "$tmp/kill.out" ||
  fail "the error does not name task 1: $(cat "$tmp/kill.out")"
below "$after" 10 || fail "the step failed $after s after the kill"
echo "kill -9: the step failed $after s after the kill: $(tail -n 1 "$tmp/kill.out")"

# A restarted worker serves the next step.
start 1
w1=$task_pid
"$dflow" run --graph "$tmp/quick.pbtxt" --cluster "$cluster" --fetch b \
  >"$tmp/again.out" 2>&1 || fail "after the restart: $(cat "$tmp/again.out")"
grep -q "values: -2$" "$tmp/again.out" || fail "$(cat "$tmp/again.out")"

# A hung worker: SIGSTOP one second in.
(sleep 1; kill -STOP "$w1") &
stopper=$!
began=$(now)
if "$dflow" run --graph "$tmp/slow.pbtxt" --cluster "$cluster" --fetch out \
    --timeout_ms 2000 >"$tmp/stop.out" 2>&1; then
  fail "the step finished with worker 1 stopped: $(cat "$tmp/stop.out")"
fi
took=$(elapsed "$began" "$(now)")
wait "$stopper"
grep -q "within its timeout of 2000 ms: task /job:worker/replica:0/task:1 did not answer" \
  "$tmp/stop.out" || fail "stopped worker: $(cat "$tmp/stop.out")"
# 2 s timeout + 0.5 s margin + 1 s of CleanupGraph at exit + start-up.
below "$took" 12 || fail "the run with a stopped worker took $took s"
echo "SIGSTOP: the run ended after $took s (timeout 2 s)"
echo PASS
