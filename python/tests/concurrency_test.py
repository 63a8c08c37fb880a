"""One session, several Python threads: each run releases the GIL while the
step runs, and every thread gets its own results."""
import threading
import unittest

import numpy as np

import dflow
import junit_main
from session_test import ARITH


class ConcurrencyTest(unittest.TestCase):
    def test_four_threads_one_session(self):
        with dflow.Session(ARITH) as sess:
            errors = []

            def work(k):
                try:
                    for i in range(300):
                        x = np.array([k, i], np.float32)
                        y, m = sess.run(["y", "mul:0"], {"x": x})
                        if not (np.array_equal(y, 2 * x + 1) and
                                np.array_equal(m, 2 * x)):
                            errors.append((k, i, y, m))
                            return
                except Exception as e:  # reported below, not lost
                    errors.append((k, repr(e)))

            threads = [threading.Thread(target=work, args=(k,))
                       for k in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])

    def test_errors_in_threads_are_exceptions(self):
        with dflow.Session(ARITH) as sess:
            caught = []

            def work():
                for _ in range(50):
                    try:
                        sess.run("y", {"x": np.zeros(3, np.float32)})
                    except dflow.InvalidArgumentError:
                        caught.append(1)

            threads = [threading.Thread(target=work) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(len(caught), 200)

    def test_close_while_other_threads_run(self):
        sess = dflow.Session(ARITH)
        outcomes = []
        started = threading.Barrier(5)

        def work():
            started.wait()
            try:
                for _ in range(200):
                    sess.run("y", {"x": [1, 2]})
                outcomes.append("done")
            except dflow.FailedPreconditionError:
                outcomes.append("closed")

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        started.wait()
        sess.close()
        for t in threads:
            t.join()
        # Each thread either finished or saw the closed session; none
        # crashed or hung.
        self.assertEqual(len(outcomes), 4)


if __name__ == "__main__":
    junit_main.main()
