#!/usr/bin/env bash
# examples/mnist_towers --cluster survives a task's death: three `dflow
# worker` processes (2 workers, 1 ps holding the variables), one epoch with
# a checkpoint every 50 steps; once the first checkpoint is written the ps
# is killed (-9) and started again on its port (its variables gone). The
# failed step makes the example build a new session, restore the last
# checkpoint and go on after its step with the same batches: every loss
# logged after the restore equals one process's at that step, and the test
# accuracy is that of a full epoch.
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

trap 'kill -9 "${pids[@]}" 2>/dev/null || true' EXIT
start() { start_task "$1" "$2" "$3" --max_seconds 240; }
start worker 0 worker0
start worker 1 worker1
start ps 0 ps0
ps_pid=$task_pid

"$towers" --towers 2 --strategy ps --epochs 1 --log_every 25 \
  --checkpoint_dir "$tmp/ck_one" >"$tmp/one.out" 2>&1 ||
  fail "one process: $(cat "$tmp/one.out")"

out="$tmp/cluster.out"
"$towers" --cluster "$cluster" --towers 2 --strategy ps --epochs 1 \
  --log_every 25 --checkpoint_every 50 --checkpoint_dir "$tmp/ck_cluster" \
  >"$out" 2>&1 &
example=$!
pids+=($example)
for _ in $(seq 600); do
  grep -q "^saved .*model.ckpt-50$" "$out" 2>/dev/null && break
  sleep 0.05
done
grep -q "^saved .*model.ckpt-50$" "$out" || fail "no checkpoint: $(cat "$out")"
kill -9 "$ps_pid"
wait "$ps_pid" 2>/dev/null || true
sleep 0.3
start ps 0 ps0_restarted
wait "$example" || fail "the cluster run failed: $(cat "$out")"

grep -q "^step [0-9]* failed (.*); recovering (1 of at most 3)$" "$out" ||
  fail "no failed step reported: $(cat "$out")"
grep -q "^restored .*model.ckpt-[0-9]*: continuing after step [0-9]*$" "$out" ||
  fail "no restore: $(cat "$out")"
# The losses logged after the restore, step by step, against one process.
sed -n '/^restored /,$p' "$out" | grep -o "^step [0-9]*, loss = [0-9.]*" \
  >"$tmp/after.txt"
[ "$(wc -l <"$tmp/after.txt")" -ge 4 ] || fail "few steps after the restore: $(cat "$out")"
grep -Fxf "$tmp/after.txt" <(grep -o "^step [0-9]*, loss = [0-9.]*" "$tmp/one.out") \
  >"$tmp/common.txt" || true
diff "$tmp/after.txt" "$tmp/common.txt" ||
  fail "losses after the restore differ from one process's: $(cat "$out")"
grep -q "^step 300, loss" "$out" || fail "did not reach step 300: $(cat "$out")"
accuracy="$(sed -n 's/^test accuracy = //p' "$out")"
python3 -c "import sys; sys.exit(0 if float('$accuracy') >= 0.80 else 1)" ||
  fail "test accuracy $accuracy < 0.80"
echo PASS
