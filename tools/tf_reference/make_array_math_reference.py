#!/usr/bin/env python3
"""TensorFlow 2.21's values for dflow's array/math/logic kernel tests.

Usage (needs `pip install tensorflow-cpu`):

    python3 tools/tf_reference/make_array_math_reference.py

Writes tests/kernels/testdata/tf_array_math_reference.inc: one C++ aggregate
initializer per case, {"name", "dtype", {shape}, {values}}, read by
tests/kernels/array_math_ops_test.cc. Each case is computed by TensorFlow's
own kernels (raw ops, CPU, graph mode): floor division of negatives, the
stateless Philox key/counter scrambling and uniform/normal/truncated normal
numbers, TopKV2 ties, InTopKV2 ties and non-finite rows, Unique, Where,
SelectV2 broadcasting, and the error texts of Gather and Assert.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests/kernels/testdata/tf_array_math_reference.inc")

tf.compat.v1.disable_eager_execution()
R = tf.raw_ops
cases = []


def run(t):
    with tf.compat.v1.Session() as s:
        return s.run(t)


def add(name, value):
    v = np.asarray(value)
    if v.dtype == np.bool_:
        dtype, vals = "bool", ["true" if x else "false" for x in v.flat]
    elif v.dtype == np.uint64:
        dtype, vals = "uint64", ["%du" % x for x in v.flat]
    elif v.dtype.kind in "iu":
        dtype, vals = "int64", ["%d" % x for x in v.flat]
    else:
        dtype, vals = "double", [repr(float(x)) for x in v.flat]
        vals = [x if x not in ("inf", "-inf", "nan") else
                {"inf": "kInf", "-inf": "-kInf", "nan": "kNaN"}[x] for x in vals]
    cases.append('{"%s", "%s", {%s}, {%s}}' % (
        name, dtype, ", ".join(str(d) for d in v.shape), ", ".join(vals)))


def error(name, t):
    try:
        run(t)
        msg = "no error"
    except tf.errors.OpError as e:
        msg = e.message.split("\n")
        msg = [m for m in msg if "assertion failed" in m or "indices" in m
               or "segment_ids" in m]
        msg = msg[0].strip() if msg else e.message
    cases.append('{"%s", "error", {}, {}, R"(%s)"}' % (name, msg))


# Floor division with Python's signs.
x = [-7, -7, 7, 7, -8, 0, 5, -1]
y = [2, -2, 2, -2, 3, 3, -5, 7]
for dt, tag in ((tf.int32, "int32"), (tf.int64, "int64"),
                (tf.float32, "float"), (tf.float64, "double")):
    add("FloorDiv_" + tag, run(R.FloorDiv(x=tf.constant(x, dt),
                                          y=tf.constant(y, dt))))
    add("FloorMod_" + tag, run(R.FloorMod(x=tf.constant(x, dt),
                                          y=tf.constant(y, dt))))
xf = [-7.5, 7.25, -0.5, 3.0, 1e-3, -2.75]
yf = [2.0, -2.0, 0.3, -1.5, 0.7, 0.5]
add("FloorDiv_float_frac", run(R.FloorDiv(x=tf.constant(xf), y=tf.constant(yf))))
add("FloorMod_float_frac", run(R.FloorMod(x=tf.constant(xf), y=tf.constant(yf))))
add("Floor_float", run(R.Floor(x=tf.constant(xf))))
add("DivNoNan_float", run(R.DivNoNan(x=tf.constant([1.0, -2.0, 3.0, 0.0]),
                                      y=tf.constant([0.0, 4.0, 0.0, 0.0]))))

# Stateless random numbers: key/counter scrambling and distributions.
seeds = [("i64_1_2", [1, 2], tf.int64), ("i32_m1_7", [-1, 7], tf.int32),
         ("i64_big", [123456789012, -5], tf.int64), ("i32_0_0", [0, 0], tf.int32)]
for tag, seed, dt in seeds:
    key, counter = R.StatelessRandomGetKeyCounter(seed=tf.constant(seed, dt))
    k, c = run([key, counter])
    add("Key_" + tag, k)
    add("Counter_" + tag, c)
    for op, otag in ((R.StatelessRandomUniformV2, "Uniform"),
                     (R.StatelessRandomNormalV2, "Normal"),
                     (R.StatelessTruncatedNormalV2, "TruncatedNormal")):
        for dtype, shape in ((tf.float32, [2, 5]), (tf.float64, [7]),
                             (tf.float32, [3])):
            out = op(shape=tf.constant(shape), key=key, counter=counter,
                     alg=tf.constant(1), dtype=dtype)
            add("%s_%s_%s_%s" % (otag, tag, dtype.name,
                                 "x".join(map(str, shape))), run(out))

# TopKV2: ties go to the lower index.
tk_in = np.array([[1.0, 3.0, 3.0, 2.0, 3.0, 0.5], [5.0, -1.0, 5.0, 5.0, 0.0, 4.0]],
                 np.float32)
v, i = R.TopKV2(input=tk_in, k=4, sorted=True)
add("TopKV2_values", run(v))
add("TopKV2_indices", run(i))

# InTopKV2: ties count as in; a non-finite row, or a target out of range,
# is false.
preds = np.array([[0.1, 0.3, 0.3, 0.2], [0.4, 0.4, 0.4, 0.1],
                  [0.1, np.nan, 0.9, 0.2], [0.5, 0.2, np.inf, 0.1],
                  [0.3, 0.2, 0.1, 0.0], [0.25, 0.25, 0.25, 0.25]], np.float32)
targets = np.array([2, 0, 2, 0, 1, 3], np.int32)
for k in (1, 2):
    add("InTopKV2_k%d" % k, run(R.InTopKV2(predictions=preds, targets=targets,
                                            k=k)))

# Unique: order of first occurrence.
yv, yi = R.Unique(x=tf.constant([4, 1, 4, -2, 1, 7, -2, 0]), out_idx=tf.int64)
add("Unique_y", run(yv))
add("Unique_idx", run(yi))

# Where on a bool and a float tensor.
add("Where_bool", run(R.Where(condition=tf.constant(
    [[True, False, True], [False, False, True]]))))
add("Where_float", run(R.Where(condition=tf.constant(
    [[[0.0, 1.5], [-2.0, 0.0]], [[0.0, 0.0], [3.0, 0.0]]]))))

# SelectV2 broadcasting all three inputs.
add("SelectV2_broadcast", run(R.SelectV2(
    condition=tf.constant([[True], [False]]),
    t=tf.constant([1.0, 2.0, 3.0]), e=tf.constant(-1.0))))

# BroadcastTo.
add("BroadcastTo", run(R.BroadcastTo(input=tf.constant([[1.0], [2.0]]),
                                      shape=tf.constant([2, 2, 3]))))

# UnsortedSegmentSum (negative ids dropped) and DynamicStitch.
add("UnsortedSegmentSum", run(R.UnsortedSegmentSum(
    data=tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
    segment_ids=tf.constant([2, 0, -1, 2]), num_segments=4)))
add("DynamicStitch", run(R.DynamicStitch(
    indices=[tf.constant([0, 4]), tf.constant([[1, 3], [2, 4]])],
    data=[tf.constant([[1.0, 1.5], [2.0, 2.5]]),
          tf.constant([[[3.0, 3.5], [4.0, 4.5]], [[5.0, 5.5], [6.0, 6.5]]])])))

# GatherV2 along axis 1 with 2-D indices, and error texts.
params = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
add("GatherV2_axis1", run(R.GatherV2(params=params,
                                     indices=tf.constant([[2, 0], [1, 1]]),
                                     axis=1)))
add("GatherV2_batch1", run(R.GatherV2(params=params,
                                      indices=tf.constant([[2, 0], [1, 1]]),
                                      axis=1, batch_dims=1)))
error("GatherV2_bad_index", R.GatherV2(
    params=tf.constant(np.arange(10, dtype=np.float32)),
    indices=tf.constant([1, 2, 3, 17]), axis=0))
error("GatherV2_bad_index_2d", R.GatherV2(
    params=tf.constant(np.arange(10, dtype=np.float32)),
    indices=tf.constant([[1, 2], [-3, 4]]), axis=0))
error("Assert_message", R.Assert(
    condition=False,
    data=[tf.constant("x is"), tf.constant([[1.5, 2.0], [3.0, 4.0]]),
          tf.constant(True), tf.constant(list(range(5)), tf.int64)],
    summarize=3))

# StaticRegexFullMatch (RE2 full-match semantics).
add("StaticRegexFullMatch", run(R.StaticRegexFullMatch(
    input=tf.constant(["s3://b/x", "gs://b", "s3:/", "xs3://b"]),
    pattern="^s3://.*")))
add("StaticRegexFullMatch_partial", run(R.StaticRegexFullMatch(
    input=tf.constant(["abc", "abcd", "xabc"]), pattern="a.c")))

with open(OUT, "w") as f:
    f.write("// Written by tools/tf_reference/make_array_math_reference.py "
            "(TensorFlow %s).\n" % tf.__version__)
    for c in cases:
        f.write(c + ",\n")
print("wrote %d cases to %s" % (len(cases), OUT))
