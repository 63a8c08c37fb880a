#!/usr/bin/env python3
"""Prints "N passed, N failed" from Bazel's test.xml files.

Usage: count_test_results.py TESTLOGS_DIR BUILD_RC [TARGETS_FILE]

Counts GoogleTest cases across every test target's test.xml. A target whose
test.xml is missing or reports an error (crash, timeout) counts as one
failure; so does a failed build (BUILD_RC != 0). Exits 1 if anything failed.

TARGETS_FILE lists the test targets of this run, one label per line
(`bazel query 'tests(//...)'`): only their logs count, so the logs a
renamed or deleted test left in TESTLOGS_DIR do not (without it, every
test.xml counts).
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


RUN_DIR = re.compile(r"run_\d+_of_\d+")


def log_dirs(logs, targets_file):
    """The test.xml folders of the listed targets ("//a/b:c" -> LOGS/a/b/c),
    or None to count every folder (also when the list is empty: a failed
    query must not hide the results)."""
    if not targets_file:
        return None
    dirs = set()
    with open(targets_file) as f:
        for line in f:
            label = line.strip()
            if not label.startswith("//"):
                continue
            package, _, name = label[2:].partition(":")
            dirs.add(os.path.normpath(os.path.join(logs, package, name)))
    return dirs or None


def main():
    logs, build_rc = sys.argv[1], int(sys.argv[2])
    wanted = log_dirs(logs, sys.argv[3] if len(sys.argv) > 3 else "")
    passed = failed = skipped = 0
    broken = []
    for root, dirs, files in os.walk(logs, followlinks=True):
        if "test.xml" in files:
            # run_K_of_N/ directories next to a test.xml are left from an
            # earlier `--runs_per_test` invocation, not this run.
            dirs[:] = [d for d in dirs if not RUN_DIR.fullmatch(d)]
        if "test.xml" not in files:
            continue
        if wanted is not None and os.path.normpath(root) not in wanted:
            continue
        path = os.path.join(root, "test.xml")
        try:
            tree = ET.parse(path)
        except ET.ParseError:
            failed += 1
            broken.append(path)
            continue
        cases = tree.getroot().iter("testcase")
        n = 0
        for case in cases:
            n += 1
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.get("status", "run") != "notrun" and case.find("skipped") is None:
                passed += 1
            else:
                skipped += 1
        if n == 0:
            # Bazel writes a single synthetic case when the binary crashed.
            failed += 1
            broken.append(path)
    if build_rc != 0:
        failed += 1
    for b in broken:
        print("broken test log:", b)
    if skipped:
        # GPU tests skip themselves on a machine without a GPU.
        print(f"({skipped} skipped)")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
