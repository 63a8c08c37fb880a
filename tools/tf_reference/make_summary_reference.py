#!/usr/bin/env python3
"""Serialized Summary protos written by TensorFlow's summary kernels, for
dflow's summary_ops_test (which must produce the same bytes).

Rerun from the repository root and paste the printed constants into
tests/kernels/summary_ops_test.cc:

    python3 tools/tf_reference/make_summary_reference.py
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf

HISTO_VALUES = [-2.5, -1.0, 0.0, 0.0, 0.5, 3.0, 1e-13, 7.0, 0.5]


def hexstr(b):
    return "".join("\\x%02x" % c for c in b)


def main():
    with tf.device("/cpu:0"):
        histo = tf.raw_ops.HistogramSummary(
            tag="h", values=np.asarray(HISTO_VALUES, np.float32)).numpy()
        scalars = tf.raw_ops.ScalarSummary(
            tags=["a", "b"], values=np.asarray([1.5, -2.0], np.float32)).numpy()
        merged = tf.raw_ops.MergeSummary(inputs=[scalars, histo]).numpy()
        empty = tf.raw_ops.HistogramSummary(
            tag="e", values=np.zeros([0], np.float32)).numpy()
    print("// TensorFlow %s" % tf.__version__)
    for name, b in (("kHistogram", histo), ("kScalars", scalars),
                    ("kMerged", merged), ("kEmptyHistogram", empty)):
        print('const char %s[] = "%s";' % (name, hexstr(b)))
        print("constexpr int %sSize = %d;" % (name, len(b)))


if __name__ == "__main__":
    main()
