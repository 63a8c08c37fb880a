"""10,000 runs leave the process's memory flat: no tensor, feed copy or
Python object survives a call. RSS is read from /proc (Linux)."""
import gc
import os
import unittest

import numpy as np

import dflow
import junit_main
from session_test import identity, placeholder

GRAPH = (placeholder("x", "DT_FLOAT", [1024]) +
         identity("y", "x", "DT_FLOAT") +
         placeholder("s", "DT_STRING") + identity("t", "s", "DT_STRING")
         ).encode()


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class LeakTest(unittest.TestCase):
    def test_ten_thousand_runs(self):
        if not os.path.exists("/proc/self/statm"):
            self.skipTest("no /proc/self/statm on this system")
        x = np.arange(1024, dtype=np.float32)  # 4 KB in, 4 KB out per call
        with dflow.Session(GRAPH) as sess:
            def calls(n):
                for i in range(n):
                    y, t = sess.run(["y", "t"], {"x": x, "s": b"abc" * 100})
                assert y[5] == 5 and t == b"abc" * 100
            calls(2000)  # plan cache, allocator pools, interned objects
            gc.collect()
            objects_before = len(gc.get_objects())
            rss_before = rss_bytes()
            calls(10000)
            gc.collect()
            grown = rss_bytes() - rss_before
            # A leaked 4 KB tensor per call would be 40 MB; allow allocator
            # noise.
            self.assertLess(grown, 8 << 20, f"RSS grew {grown} bytes")
            self.assertLess(len(gc.get_objects()) - objects_before, 100)


if __name__ == "__main__":
    junit_main.main()
