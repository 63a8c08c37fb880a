#!/usr/bin/env bash
# Builds everything and runs every test. The last line is "N passed, N
# failed", counting GoogleTest test cases (a test binary that fails to build
# or crashes counts as one failure).
set -uo pipefail
cd "$(dirname "$0")/.."

tools/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

bazel build //... 2>&1 | tail -n 30
build_rc=${PIPESTATUS[0]}
bazel test //... --test_output=errors --keep_going 2>&1 | tail -n 60
test_rc=${PIPESTATUS[0]}

# Only this tree's tests count (a renamed test leaves its old logs behind).
targets="$(mktemp)"
bazel query 'tests(//...)' >"$targets" 2>/dev/null || : >"$targets"
python3 tools/count_test_results.py bazel-testlogs "$build_rc" "$targets"
summary_rc=$?
rm -f "$targets"
if [ "$build_rc" -ne 0 ] || [ "$test_rc" -ne 0 ] || [ "$summary_rc" -ne 0 ]; then
  exit 1
fi
