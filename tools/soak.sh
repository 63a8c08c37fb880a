#!/usr/bin/env bash
# Soak test: trains the MNIST towers example (examples/mnist_towers.cc) for
# 20,000 steps on 2 logical CPU devices, once per strategy (ps, allreduce),
# and samples the process every 1,000 steps: resident memory (VmRSS), open
# files (/proc/<pid>/fd) and threads. It fails when, after the warm-up (the
# first 2,000 steps), RSS leaves +-5% of its value at the end of the warm-up
# or the number of open files or threads grows (the smallest count of the
# last three samples above the count at the end of the warm-up: a leak
# keeps growing, a file open for a moment does not). It prints the figures.
#
#   tools/soak.sh                 # both strategies, 20,000 steps each
#   SOAK_STEPS=4000 tools/soak.sh allreduce
#
# Not part of tools/test.sh or CI: it runs for many minutes (README gives the
# figures of a run). The example reads Fashion-MNIST from
# /usr/share/datasets/fashion-mnist (tools/setup.sh installs it); the step
# line it prints every --log_every steps is what the samples are taken on.
set -uo pipefail
cd "$(dirname "$0")/.."

steps="${SOAK_STEPS:-20000}"
every=1000
warmup=2000
strategies=("$@")
[ ${#strategies[@]} -eq 0 ] && strategies=(ps allreduce)

bazel build //examples:mnist_towers >/dev/null 2>&1 ||
  { echo "soak: building //examples:mnist_towers failed" >&2; exit 1; }
bin="$(bazel info bazel-bin 2>/dev/null)/examples/mnist_towers"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Checkpoints are part of the soak, but off the sampled steps: a save in
# progress at a sample holds a file open for a moment (files 5 -> 6 -> 5).
checkpoint_every=997
# 2 towers of 100 examples: 300 steps per epoch of the 60,000 images.
epochs=$(( (steps + 299) / 300 ))
failed=0
for strategy in "${strategies[@]}"; do
  log="$work/$strategy.log"
  # Line-buffered: each step line reaches the log as it is printed.
  stdbuf -oL "$bin" --towers 2 --strategy "$strategy" --epochs "$epochs" \
    --log_every "$every" --checkpoint_every "$checkpoint_every" \
    --checkpoint_dir "$work/ckpt_$strategy" >"$log" 2>&1 &
  pid=$!
  echo "soak: $strategy, $steps steps (pid $pid)"
  printf '%8s %10s %6s %8s\n' step rss_kib files threads
  samples="$work/$strategy.samples"
  : >"$samples"
  # Each "step N, loss = ..." line: sample the process while it runs.
  while IFS= read -r line; do
    case "$line" in
      "step "*) ;;
      *) continue ;;
    esac
    step="${line#step }"
    step="${step%%,*}"
    [ -d "/proc/$pid" ] || break
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    threads=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    files=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    [ -n "$rss" ] || break
    printf '%8d %10d %6d %8d\n' "$step" "$rss" "$files" "$threads"
    echo "$step $rss $files $threads" >>"$samples"
    if [ "$step" -ge "$steps" ]; then
      kill "$pid" 2>/dev/null
      break
    fi
  done < <(tail -n +1 -F --pid="$pid" "$log" 2>/dev/null)
  wait "$pid" 2>/dev/null
  last=$(tail -n 1 "$samples" | cut -d' ' -f1)
  if [ -z "$last" ] || [ "$last" -lt "$steps" ]; then
    echo "soak: $strategy stopped before step $steps (last sample: ${last:-none}); its output:"
    tail -n 20 "$log"
    failed=1
    continue
  fi
  # After the warm-up: RSS within +-5% of its value at step $warmup, no
  # more files or threads than then.
  if ! awk -v warmup="$warmup" -v name="$strategy" '
      $1 == warmup { rss0 = $2; files0 = $3; threads0 = $4 }
      $1 > warmup && rss0 {
        if ($2 > rss0 * 1.05 || $2 < rss0 * 0.95) bad = bad sprintf(" RSS %d KiB at step %d (%+.1f%%);", $2, $1, 100 * ($2 - rss0) / rss0)
        if ($2 > max) max = $2
        if (!min || $2 < min) min = $2
        n++; f[n] = $3; t[n] = $4
      }
      END {
        if (!rss0) { print "soak: " name ": no sample at step " warmup; exit 1 }
        lf = f[n]; lt = t[n]
        for (i = n - 2; i < n; i++) if (i > 0) { if (f[i] < lf) lf = f[i]; if (t[i] < lt) lt = t[i] }
        if (lf > files0) bad = bad sprintf(" open files grew from %d to %d;", files0, lf)
        if (lt > threads0) bad = bad sprintf(" threads grew from %d to %d;", threads0, lt)
        printf "soak: %s: after step %d RSS %d..%d KiB (%+.1f%%..%+.1f%% of %d), files %d -> %d, threads %d -> %d\n", name, warmup, min, max, 100 * (min - rss0) / rss0, 100 * (max - rss0) / rss0, rss0, files0, lf, threads0, lt
        if (bad != "") { print "soak: " name " FAILED:" bad; exit 1 }
      }' "$samples"; then
    failed=1
  fi
done
if [ "$failed" -ne 0 ]; then
  echo "soak: FAILED"
  exit 1
fi
echo "soak: passed"
