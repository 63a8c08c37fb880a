#!/usr/bin/env bash
# Builds and runs every test under AddressSanitizer and LeakSanitizer
# (.bazelrc's asan config) in the output base ~/.cache/bazel_asan. The last
# line is "N passed, N failed". Extra arguments are passed to `bazel test`
# (targets, --test_filter=...). Suppressions, if ever needed:
# tools/lsan_suppressions.txt.
exec "$(dirname "$0")/sanitized_tests.sh" asan "$@"
