#!/usr/bin/env bash
# Test wrapper for the sanitizer configs in .bazelrc (`test:tsan` and
# `test:asan` pass it to Bazel as --run_under=//tools:sanitizer_env): points
# ThreadSanitizer and LeakSanitizer at the suppression files in tools/, then
# runs the test. Bazel cannot put a workspace-relative path into --test_env
# (%workspace% is not expanded there), but the files are runfiles of this
# target, so they are found relative to the test's runfiles tree.
set -euo pipefail

dir=""
for d in "${TEST_SRCDIR:-}/${TEST_WORKSPACE:-dflow}/tools" \
         "${RUNFILES_DIR:-}/dflow/tools" \
         "$0.runfiles/dflow/tools"; do
  if [ -f "$d/tsan_suppressions.txt" ]; then
    dir="$d"
    break
  fi
done
if [ -z "$dir" ]; then
  echo "sanitizer_env.sh: cannot find tools/tsan_suppressions.txt in the runfiles" >&2
  exit 1
fi

append() {  # append VAR OPTION: adds OPTION to the colon-separated VAR.
  local current="${!1:-}"
  export "$1=${current:+$current:}$2"
}
append TSAN_OPTIONS "suppressions=$dir/tsan_suppressions.txt"
append LSAN_OPTIONS "suppressions=$dir/lsan_suppressions.txt"
echo "sanitizer_env.sh: TSAN_OPTIONS=$TSAN_OPTIONS"
echo "sanitizer_env.sh: LSAN_OPTIONS=$LSAN_OPTIONS"
exec "$@"
