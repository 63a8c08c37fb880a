# `dflow worker` processes on free loopback ports, for the shell tests of
# tests/distributed (sourced; the test sets $dflow, $tmp, $cluster and
# fail(), and kills "${pids[@]}" on exit):
#   source "$TEST_SRCDIR/dflow/tests/distributed/cluster_processes.sh"
#   ports=($(free_ports 3))
#   cluster="worker=127.0.0.1:${ports[0]},...,ps=127.0.0.1:${ports[2]}"
#   start_task worker 0 worker0 --max_seconds 60

pids=()

# N free loopback ports, separated by spaces.
free_ports() {
  python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' "$1"
}

# start_task JOB TASK LOG [FLAG...]: serves task TASK of job JOB of
# $cluster (the flags added), its output in $tmp/LOG.log; returns once it
# serves (or fails the test), its pid in $task_pid and appended to pids.
start_task() {
  local job="$1" task="$2" log="$tmp/$3.log"
  shift 3
  "$dflow" worker --cluster "$cluster" --job "$job" --task "$task" "$@" \
    >"$log" 2>&1 &
  task_pid=$!
  pids+=($task_pid)
  for _ in $(seq 100); do
    grep -q "serving" "$log" 2>/dev/null && return
    sleep 0.1
  done
  fail "$job $task did not start: $(cat "$log")"
}
