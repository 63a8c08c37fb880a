"""Runs a unittest module and writes a JUnit XML report for Bazel.

Bazel keeps a test's own report when the test writes $XML_OUTPUT_FILE;
tools/count_test_results.py then counts every Python test case (passed,
failed, skipped) as it counts GoogleTest cases. Without the variable (run
by hand) it only runs the tests.

    if __name__ == "__main__":
        junit_main.main()
"""
import os
import sys
import time
import traceback
import unittest
import xml.etree.ElementTree as ET


class _Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cases = []  # (test, seconds, kind, text)
        self._start = 0.0

    def startTest(self, test):
        self._start = time.monotonic()
        super().startTest(test)

    def _record(self, test, kind, text=""):
        self.cases.append((test, time.monotonic() - self._start, kind, text))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "failure", "".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "error", "".join(traceback.format_exception(*err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)


def _write_xml(path, result, name, seconds):
    suites = ET.Element("testsuites")
    suite = ET.SubElement(
        suites, "testsuite", name=name, tests=str(len(result.cases)),
        failures=str(len(result.failures)), errors=str(len(result.errors)),
        skipped=str(len(result.skipped)), time=f"{seconds:.3f}")
    for test, secs, kind, text in result.cases:
        case = ET.SubElement(
            suite, "testcase", name=getattr(test, "_testMethodName", str(test)),
            classname=type(test).__name__, time=f"{secs:.3f}",
            status="notrun" if kind == "skipped" else "run")
        if kind in ("failure", "error"):
            ET.SubElement(case, kind, message=text.splitlines()[-1]
                          if text else kind).text = text
        elif kind == "skipped":
            ET.SubElement(case, "skipped", message=text)
    ET.ElementTree(suites).write(path, encoding="utf-8", xml_declaration=True)


def main():
    module = sys.modules["__main__"]
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    runner = unittest.TextTestRunner(verbosity=2, resultclass=_Result)
    start = time.monotonic()
    result = runner.run(suite)
    path = os.environ.get("XML_OUTPUT_FILE")
    if path:
        name = os.path.splitext(os.path.basename(module.__file__))[0]
        _write_xml(path, result, name, time.monotonic() - start)
    sys.exit(0 if result.wasSuccessful() else 1)
