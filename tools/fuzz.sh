#!/usr/bin/env bash
# Usage: tools/fuzz.sh [SECONDS] [TARGET...]
#
# Builds the libFuzzer targets of fuzz/ with .bazelrc's fuzz config (clang-14,
# AddressSanitizer) in the output base ~/.cache/bazel_fuzz, seeds each
# target's corpus from tests/testdata, runs each target for SECONDS (default
# 60) and prints one line per target: executions, crashes, seconds. Not part
# of tools/test.sh or CI.
#
# Corpora grow in $DFLOW_FUZZ_DIR (default ~/.cache/dflow_fuzz)/corpus/<target>
# across runs; a crash's input is kept in $DFLOW_FUZZ_DIR/crashes/<target>/
# (replay it: the target binary takes the file as its argument, or build the
# target without the config: `bazel run //fuzz:<target> -- FILE`). Targets
# run DFLOW_FUZZ_JOBS (default 1) at a time; DFLOW_FUZZ_NO_BUILD=1 runs the
# targets already built. Exit status 1 if any crashed.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift || true
all=(graph_def_binary_fuzzer graph_def_text_fuzzer place_partition_fuzzer
     session_fuzzer npy_fuzzer checkpoint_fuzzer tfrecord_fuzzer
     meta_graph_fuzzer saved_model_fuzzer)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
jobs="${DFLOW_FUZZ_JOBS:-1}"

tools/setup.sh >/dev/null || exit 1
output_base="${DFLOW_FUZZ_OUTPUT_BASE:-$HOME/.cache/bazel_fuzz}"
bazel=(bazel "--output_base=$output_base")
labels=()
for t in "${targets[@]}"; do labels+=("//fuzz:$t"); done
if [ -z "${DFLOW_FUZZ_NO_BUILD:-}" ]; then
  "${bazel[@]}" build --config=fuzz -- "${labels[@]}" 2>&1 | tail -n 20
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz: build failed"; exit 1; }
fi
if [ -z "${DFLOW_FUZZ_NO_BUILD:-}" ]; then
  bin="$("${bazel[@]}" info --config=fuzz bazel-bin 2>/dev/null)/fuzz"
else  # without asking Bazel, which may be busy building
  bin="$(ls -d "$output_base"/execroot/*/bazel-out/*-fastbuild/bin/fuzz | head -n 1)"
fi

work="${DFLOW_FUZZ_DIR:-$HOME/.cache/dflow_fuzz}"
data=tests/testdata

# Copies the files `find "$data" ARGS...` lists into DIR, named by their
# paths (tests' files of one name in several folders all count).
copy_seeds() {
  local dir="$1"
  shift
  find "$data" "$@" -type f | while read -r f; do
    cp "$f" "$dir/$(echo "${f#"$data"/}" | tr / _)"
  done
}

# Seeds: the tests' own data, by what each target reads.
seed() {
  local target="$1" dir="$2"
  mkdir -p "$dir"
  case "$target" in
    graph_def_binary_fuzzer)
      copy_seeds "$dir" -name '*.pb' -size -32k ;;
    graph_def_text_fuzzer)
      copy_seeds "$dir" -name '*.pbtxt' -size -32k ;;
    place_partition_fuzzer|session_fuzzer)
      copy_seeds "$dir" \( -name '*.pb' -o -name '*.pbtxt' \) -size -16k ;;
    npy_fuzzer)
      copy_seeds "$dir" -name '*.npy' -size -64k ;;
    meta_graph_fuzzer)
      copy_seeds "$dir" \( -name '*.meta' -o -name '*.meta.pbtxt' \) -size -512k ;;
    saved_model_fuzzer)
      copy_seeds "$dir" -name 'saved_model.pb*' ;;
    tfrecord_fuzzer)
      find "$data" -name '*.tfrecord*' -size -64k | while read -r f; do
        { printf '\0'; cat "$f"; } > "$dir/$(echo "${f#"$data"/}" | tr / _)"
      done ;;
    checkpoint_fuzzer)
      # A 2-byte little-endian index length, the .index, then the shard.
      find "$data" -name '*.index' | while read -r idx; do
        prefix="${idx%.index}"
        shard="$(ls "$prefix".data-00000-of-* 2>/dev/null | head -n 1)"
        [ -n "$shard" ] || continue
        python3 - "$idx" "$shard" "$dir/$(echo "${prefix#"$data"/}" | tr / _)" <<'PY'
import struct, sys
index = open(sys.argv[1], 'rb').read()
data = open(sys.argv[2], 'rb').read()
if len(index) < 65536:
    open(sys.argv[3], 'wb').write(struct.pack('<H', len(index)) + index + data[:65536])
PY
      done ;;
  esac
}

run_one() {
  local t="$1"
  local corpus="$work/corpus/$t" crashes="$work/crashes/$t" log="$work/logs/$t.log"
  mkdir -p "$corpus" "$crashes" "$work/logs" "$work/seeds/$t"
  seed "$t" "$work/seeds/$t"
  # Graphs: small inputs (a few dozen nodes) make many more executions than
  # whole models, whose import alone takes milliseconds under ASan.
  local max_len=65536
  case "$t" in
    npy_fuzzer|checkpoint_fuzzer|tfrecord_fuzzer) ;;
    meta_graph_fuzzer|saved_model_fuzzer) max_len=131072 ;;  # whole models
    *) max_len=8192 ;;
  esac
  local start=$(date +%s)
  # -rss_limit_mb / -malloc_limit_mb: a single malloc of more than 512 MB
  # is a finding (a size read from the input reached malloc unchecked); the
  # session targets' limit is 64 MiB per device.
  ( cd "$work" && ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}" \
    "$bin/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
    -malloc_limit_mb=512 -max_len=$max_len -print_final_stats=1 \
    -artifact_prefix="$crashes/" "$corpus" "$work/seeds/$t" ) > "$log" 2>&1
  local end=$(date +%s)
  local execs
  execs="$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')"
  [ -n "$execs" ] || execs="$(grep -oE '^#[0-9]+' "$log" | tail -n 1 | tr -d '#')"
  local found
  found="$(grep -cE '^==[0-9]+==ERROR|^SUMMARY: libFuzzer|deadly signal' "$log")"
  printf '%-26s executions %10s  crashes %s  %5d s\n' "$t" "${execs:-0}" \
    "$([ "$found" -gt 0 ] && echo 1 || echo 0)" "$((end - start))" \
    > "$work/logs/$t.summary"
}

mkdir -p "$work/logs"
running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

status=0
total=0
for t in "${targets[@]}"; do
  cat "$work/logs/$t.summary"
  n="$(awk '{print $3}' "$work/logs/$t.summary")"
  total=$((total + n))
  grep -q 'crashes 1' "$work/logs/$t.summary" && status=1 &&
    echo "  see $work/logs/$t.log and $work/crashes/$t/"
done
echo "total executions $total"
exit $status
