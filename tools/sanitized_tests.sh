#!/usr/bin/env bash
# Usage: tools/sanitized_tests.sh tsan|asan [BAZEL TEST ARGS...]
#
# Builds and runs the tests (//tests/... and //examples/... unless targets
# are given) under a sanitizer config of .bazelrc, in an output base of its own
# (~/.cache/bazel_<config>, or $DFLOW_SANITIZER_OUTPUT_BASE) so the normal
# build's outputs survive. The last line is "N passed, N failed", as in
# tools/test.sh (a test binary that fails to build or crashes counts as one
# failure). tools/test_tsan.sh and tools/test_asan.sh call this; .ci/run
# calls them on chosen targets after tools/test.sh (it says which and why).
set -uo pipefail
cd "$(dirname "$0")/.."

config="${1:-}"
case "$config" in
  tsan|asan) shift ;;
  *) echo "usage: $0 tsan|asan [bazel test args...]" >&2; exit 2 ;;
esac
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(//tests/... //examples/...)

tools/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

output_base="${DFLOW_SANITIZER_OUTPUT_BASE:-$HOME/.cache/bazel_$config}"
bazel=(bazel "--output_base=$output_base")
start=$(date +%s)

"${bazel[@]}" build "--config=$config" -- "${targets[@]}" 2>&1 | tail -n 30
build_rc=${PIPESTATUS[0]}
"${bazel[@]}" test "--config=$config" --keep_going -- "${targets[@]}" 2>&1 |
  tail -n 60
test_rc=${PIPESTATUS[0]}

testlogs="$("${bazel[@]}" info "--config=$config" bazel-testlogs 2>/dev/null)"
echo "$config: $(( $(date +%s) - start )) s; test logs in $testlogs"
# Only this run's targets count (the output base keeps other runs' logs).
query="tests(set(${targets[*]}))"
targets_file="$(mktemp)"
"${bazel[@]}" query "$query" >"$targets_file" 2>/dev/null || : >"$targets_file"
python3 tools/count_test_results.py "$testlogs" "$build_rc" "$targets_file"
summary_rc=$?
rm -f "$targets_file"
if [ "$build_rc" -ne 0 ] || [ "$test_rc" -ne 0 ] || [ "$summary_rc" -ne 0 ]; then
  exit 1
fi
