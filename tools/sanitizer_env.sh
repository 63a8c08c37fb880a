#!/usr/bin/env bash
# Test wrapper for the sanitizer configs in .bazelrc (`test:tsan` and
# `test:asan` pass it to Bazel as --run_under=//tools:sanitizer_env): points
# ThreadSanitizer and LeakSanitizer at the suppression files in tools/, then
# runs the test. Bazel cannot put a workspace-relative path into --test_env
# (%workspace% is not expanded there), but the files are runfiles of this
# target, so they are found relative to the test's runfiles tree. A test that
# fails only through its exit status gets a failed case in its test.xml.
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

set +e
"$@"
rc=$?
set -e
# LeakSanitizer reports at exit, after GoogleTest has written test.xml with
# every case passed; so that tools/count_test_results.py (which reads only
# test.xml) counts the failure, add a failed case saying why.
xml="${XML_OUTPUT_FILE:-}"
if [ "$rc" -ne 0 ] && [ -n "$xml" ] && [ -s "$xml" ]; then
  python3 - "$xml" "$rc" <<'PY' || true
import sys
import xml.etree.ElementTree as ET
path, rc = sys.argv[1], sys.argv[2]
tree = ET.parse(path)
root = tree.getroot()
if not any(c.find("failure") is not None for c in root.iter("testcase")):
    suite = ET.SubElement(root, "testsuite", name="SanitizerExit", tests="1",
                          failures="1", errors="0")
    case = ET.SubElement(suite, "testcase", name="ExitStatus", status="run",
                         classname="SanitizerExit")
    ET.SubElement(case, "failure", message=(
        f"the test binary exited with status {rc} after its cases passed "
        "(a sanitizer report at exit, e.g. LeakSanitizer); see test.log"))
    tree.write(path, encoding="UTF-8", xml_declaration=True)
PY
fi
exit "$rc"
