#!/usr/bin/env bash
# Builds and runs every test under ThreadSanitizer (.bazelrc's tsan config) in
# the output base ~/.cache/bazel_tsan. The last line is "N passed, N failed".
# Extra arguments are passed to `bazel test` (targets, --test_filter=...).
# Suppressions, if ever needed: tools/tsan_suppressions.txt.
exec "$(dirname "$0")/sanitized_tests.sh" tsan "$@"
