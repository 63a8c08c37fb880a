#!/usr/bin/env python3
"""Build a corpus of TF control-flow graphs and check dflow against TensorFlow.

Usage:
  python3 make_and_check.py                 # runs --style v1 and --style v2 in subprocesses, then --report
  python3 make_and_check.py --style v1|v2 [--only name1,name2]
  python3 make_and_check.py --report        # (re)writes REPORT.md from <style>/results.json
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")   # tf.compat.v1.nn.rnn_cell.* need tf_keras

import argparse
import json
import shlex
import shutil
import subprocess
import traceback
import zlib
from collections import OrderedDict

ROOT = os.environ.get("PROBE_DIR", "/tmp/cfprobe")
DFLOW = os.environ.get("DFLOW", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bazel-bin", "tools", "dflow"))
TIMEOUT_MS = 20000
SUBPROC_TIMEOUT = 60

MODELS = OrderedDict()


def model(styles=("v1", "v2")):
    def deco(fn):
        MODELS[fn.__name__] = (fn, styles)
        return fn
    return deco


# ----------------------------------------------------------------------------
# Everything below `build_models` needs TF; it is imported lazily per style.
# ----------------------------------------------------------------------------

def define_models(tf, np):
    f32, i32, i64 = tf.float32, tf.int32, tf.int64
    v1 = tf.compat.v1

    def ph(name, dtype, shape):
        return v1.placeholder(dtype, shape, name=name)

    def rs(name):
        return np.random.RandomState(zlib.crc32(name.encode()) & 0xFFFF)

    def spec(fetches, feed_sets, init=None, target=None, freeze=False, note="", devices=None):
        return dict(fetches=fetches, feed_sets=feed_sets, init=init, target=target,
                    freeze=freeze, note=note, devices=devices)

    def np_init(rng, scale=0.5):
        def init(shape, dtype=None, partition_info=None, **kw):
            return tf.constant(rng.uniform(-scale, scale, size=[int(d) for d in shape]).astype(np.float32))
        return init

    # ------------------------------------------------------------------ cond
    @model()
    def cond_basic(s):
        x = ph("x", f32, [3])
        out = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x - 1.0)
        return spec([out], [{x: np.array([1, 2, 3], np.float32)}, {x: np.array([-1, -2, 0.5], np.float32)}])

    @model()
    def cond_tuple_mixed_dtypes(s):
        x = ph("x", f32, [2, 3]); n = ph("n", i32, [])
        a, b = tf.cond(n > 2, lambda: (x * 2.0, n + 1),
                       lambda: (tf.reduce_sum(x, 0, keepdims=True) * tf.ones_like(x), n * 3))
        r = rs("ct").randn(2, 3).astype(np.float32)
        return spec([a, b], [{x: r, n: np.int32(5)}, {x: r, n: np.int32(1)}])

    @model()
    def cond_nested_structure(s):
        x = ph("x", f32, [4]); n = ph("n", i32, [])
        def t():
            return {"a": (x + 1.0, tf.cast(n, i64)), "b": [tf.reduce_max(x), x > 0]}
        def f():
            return {"a": (x * x, tf.cast(n * 2, i64)), "b": [tf.reduce_min(x), x < 0]}
        out = tf.cond(tf.equal(n % 2, 0), t, f)
        r = rs("cns").randn(4).astype(np.float32)
        return spec(tf.nest.flatten(out), [{x: r, n: np.int32(4)}, {x: r, n: np.int32(7)}])

    @model()
    def cond_int_bool_outputs(s):
        p = ph("p", tf.bool, []); n = ph("n", i32, [3])
        a, b = tf.cond(p, lambda: (n * 2, n > 0), lambda: (n - 5, tf.logical_not(n > 0)))
        return spec([a, b], [{p: np.bool_(True), n: np.array([1, -2, 3], np.int32)},
                             {p: np.bool_(False), n: np.array([1, -2, 3], np.int32)}])

    @model()
    def cond_captures_outer(s):
        x = ph("x", f32, [2, 3]); y = ph("y", f32, [3])
        rng = rs("cco")
        W = tf.constant(rng.randn(3, 4).astype(np.float32))
        w = tf.matmul(x, W)
        bias = tf.reduce_mean(y)
        out = tf.cond(bias > 0, lambda: w + bias + tf.reduce_sum(y),
                      lambda: tf.matmul(x * y, W) - bias)
        return spec([out], [{x: rng.randn(2, 3).astype(np.float32), y: np.array([1, 2, 3], np.float32)},
                            {x: rng.randn(2, 3).astype(np.float32), y: np.array([-1, -2, 0], np.float32)}])

    @model()
    def cond_nested(s):
        x = ph("x", f32, [3]); a = ph("a", f32, []); b = ph("b", f32, [])
        out = tf.cond(a > 0,
                      lambda: tf.cond(b > 0, lambda: x + 1.0, lambda: x - 1.0),
                      lambda: tf.cond(b > 0, lambda: x * 2.0,
                                      lambda: tf.cond(a < -5.0, lambda: x * 10.0, lambda: x * a * b)))
        xv = np.array([1, 2, 3], np.float32)
        return spec([out], [{x: xv, a: np.float32(1), b: np.float32(-1)},
                            {x: xv, a: np.float32(-1), b: np.float32(1)},
                            {x: xv, a: np.float32(-7), b: np.float32(-2)}])

    @model()
    def cond_const_branches(s):
        p = ph("p", tf.bool, [])
        out = tf.cond(p, lambda: tf.constant([1.0, 2.0, 3.0]), lambda: tf.zeros([3]))
        out2 = tf.cond(p, lambda: tf.constant(7), lambda: tf.constant(-7))
        return spec([out, out2], [{p: np.bool_(True)}, {p: np.bool_(False)}])

    @model()
    def cond_different_branch_shapes(s):
        p = ph("p", tf.bool, []); x = ph("x", f32, [None])
        out = tf.cond(p, lambda: tf.reshape(tf.concat([x, x], 0), [2, -1]), lambda: tf.reshape(x, [1, -1]))
        sh = tf.shape(out)
        return spec([out, sh], [{p: np.bool_(True), x: np.arange(3, dtype=np.float32)},
                                {p: np.bool_(False), x: np.arange(5, dtype=np.float32)}])

    @model()
    def cond_control_deps(s):
        x = ph("x", f32, [3])
        def t():
            side = tf.identity(x * 3.0, name="side")
            with tf.control_dependencies([side]):
                return tf.identity(x + 1.0)
        def f():
            with tf.control_dependencies([tf.debugging.assert_non_negative(tf.abs(x))]):
                return x - 1.0
        out = tf.cond(x[0] > 0, t, f)
        return spec([out], [{x: np.array([1, 2, 3], np.float32)}, {x: np.array([-1, 2, 3], np.float32)}])

    @model()
    def cond_pred_from_data_int64(s):
        n = ph("n", i64, [None])
        out = tf.cond(tf.reduce_sum(n) > 10, lambda: tf.cumsum(n), lambda: tf.reverse(n, [0]) * 2)
        return spec([out], [{n: np.array([5, 6, 7], np.int64)}, {n: np.array([1, 2], np.int64)}])

    # ------------------------------------------------------------------ case
    @model()
    def case_with_default(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        out = tf.case([(tf.equal(n, 0), lambda: x * 1.0), (tf.equal(n, 1), lambda: x * 2.0)],
                      default=lambda: x * -1.0)
        xv = np.array([1, 2, 3], np.float32)
        return spec([out], [{x: xv, n: np.int32(0)}, {x: xv, n: np.int32(1)}, {x: xv, n: np.int32(9)}])

    @model()
    def case_no_default(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        out = tf.case([(n < 0, lambda: x - 10.0), (n < 5, lambda: x + 5.0), (n < 10, lambda: x * x)])
        xv = np.array([1, 2, 3], np.float32)
        return spec([out], [{x: xv, n: np.int32(-3)}, {x: xv, n: np.int32(3)}, {x: xv, n: np.int32(7)}])

    @model()
    def case_exclusive(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        out = tf.case({tf.equal(n, 0): lambda: (x + 1.0, n),
                       tf.equal(n, 1): lambda: (x + 2.0, n * 10),
                       tf.equal(n, 2): lambda: (x + 3.0, n * 100)},
                      default=lambda: (x * 0.0, -n), exclusive=True)
        xv = np.array([1, 2], np.float32)
        return spec(list(out), [{x: xv, n: np.int32(0)}, {x: xv, n: np.int32(2)}, {x: xv, n: np.int32(5)}])

    @model()
    def switch_case_basic(s):
        x = ph("x", f32, [3]); k = ph("k", i32, [])
        out = tf.switch_case(k, branch_fns={0: lambda: x * 1.0, 1: lambda: tf.sin(x), 2: lambda: x * x},
                             default=lambda: -x)
        xv = np.array([0.5, 1, 2], np.float32)
        return spec([out], [{x: xv, k: np.int32(0)}, {x: xv, k: np.int32(2)}, {x: xv, k: np.int32(7)}])

    @model()
    def switch_case_multi_output(s):
        x = ph("x", f32, [3]); k = ph("k", i32, [])
        out = tf.switch_case(k, [lambda: (x + 1.0, tf.constant(1), tf.constant(True)),
                                 lambda: (x * 2.0, tf.constant(2), tf.constant(False)),
                                 lambda: (tf.reverse(x, [0]), k * 3, k > 1)])
        xv = np.array([0.5, 1, 2], np.float32)
        return spec(list(out), [{x: xv, k: np.int32(0)}, {x: xv, k: np.int32(1)}, {x: xv, k: np.int32(2)}])

    # ------------------------------------------------------------------ while
    @model()
    def while_basic(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 1.5 + x), [0, tf.zeros_like(x)])
        xv = np.array([1, -2, 0.5], np.float32)
        return spec([i, acc], [{x: xv, n: np.int32(0)}, {x: xv, n: np.int32(1)}, {x: xv, n: np.int32(6)}])

    @model()
    def while_multi_vars_mixed(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        m0 = tf.constant([[1, 2], [3, 4]], i64)
        def body(i, f, b, m):
            return i + 1, f * 0.9 + tf.cast(i, f32), tf.logical_not(b), tf.matmul(m, m0) % 1000
        out = tf.while_loop(lambda i, f, b, m: i < n, body, [0, x, tf.constant(False), m0])
        xv = np.array([1, 2, 3], np.float32)
        return spec(list(out), [{x: xv, n: np.int32(3)}, {x: xv, n: np.int32(4)}])

    @model()
    def while_shape_invariants_growing(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        def body(i, v, m):
            return i + 1, tf.concat([v, v * 0.5], 0), tf.concat([m, tf.reshape(v[:2], [1, 2])], 0)
        i, v, m = tf.while_loop(lambda i, v, m: i < n, body, [0, x, tf.reshape(x, [1, 2])],
                                shape_invariants=[tf.TensorShape([]), tf.TensorShape([None]),
                                                  tf.TensorShape([None, 2])])
        xv = np.array([1, 2], np.float32)
        return spec([v, m, tf.shape(v)], [{x: xv, n: np.int32(0)}, {x: xv, n: np.int32(3)}])

    @model()
    def while_maximum_iterations(s):
        x = ph("x", f32, []); m = ph("m", i32, [])
        i, v = tf.while_loop(lambda i, v: v < 1000.0, lambda i, v: [i + 1, v * 2.0 + 1.0], [0, x],
                             maximum_iterations=m)
        return spec([i, v], [{x: np.float32(1), m: np.int32(3)}, {x: np.float32(1), m: np.int32(100)},
                             {x: np.float32(5), m: np.int32(0)}])

    @model()
    def while_parallel_iterations_1(s):
        x = ph("x", f32, [4, 4]); n = ph("n", i32, [])
        i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.tanh(tf.matmul(v, x))),
                             [0, tf.eye(4)], parallel_iterations=1)
        r = rs("pi1").randn(4, 4).astype(np.float32)
        return spec([v], [{x: r, n: np.int32(5)}, {x: r, n: np.int32(1)}])

    @model()
    def while_parallel_iterations_32(s):
        x = ph("x", f32, [8]); n = ph("n", i32, [])
        def body(i, a, b, c):
            fi = tf.cast(i, f32)
            return i + 1, a + tf.sin(x * fi), b + tf.cos(x + fi), c * 0.5 + tf.reduce_sum(a)
        out = tf.while_loop(lambda i, a, b, c: i < n, body, [0, tf.zeros([8]), tf.zeros([8]), tf.constant(0.0)],
                            parallel_iterations=32)
        r = rs("pi32").randn(8).astype(np.float32)
        return spec(list(out), [{x: r, n: np.int32(40)}, {x: r, n: np.int32(2)}])

    @model()
    def while_no_backprop_swap(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x + 1.0), [0, tf.ones([3])],
                             back_prop=False, swap_memory=True)
        return spec([i, v], [{x: np.array([0.5, 1, 1.1], np.float32), n: np.int32(7)}])

    @model()
    def while_int64_counter(s):
        n = ph("n", i64, []); x = ph("x", f32, [2])
        i, acc, t = tf.while_loop(lambda i, a, t: i < n,
                                  lambda i, a, t: (i + 1, a + tf.cast(i, f32) * x, t + i * i),
                                  [tf.constant(0, i64), tf.zeros([2]), tf.constant(0, i64)])
        r = tf.range(tf.constant(0, i64), n)
        return spec([i, acc, t, r], [{n: np.int64(5), x: np.array([1, 2], np.float32)},
                                     {n: np.int64(1), x: np.array([1, 2], np.float32)}])

    @model()
    def while_collatz_data_dependent(s):
        n = ph("n", i32, [])
        def body(v, steps, mx):
            nv = tf.where(tf.equal(v % 2, 0), v // 2, 3 * v + 1)
            return nv, steps + 1, tf.maximum(mx, nv)
        v, steps, mx = tf.while_loop(lambda v, st, mx: tf.not_equal(v, 1), body, [n, 0, n])
        return spec([v, steps, mx], [{n: np.int32(27)}, {n: np.int32(1)}, {n: np.int32(6)}])

    @model()
    def while_collatz_cond_in_body(s):
        n = ph("n", i64, [])
        def body(v, steps):
            nv = tf.cond(tf.equal(v % 2, 0), lambda: v // 2, lambda: 3 * v + 1)
            return nv, steps + 1
        v, steps = tf.while_loop(lambda v, st: v > 1, body, [n, tf.constant(0, i64)])
        return spec([steps], [{n: np.int64(27)}, {n: np.int64(97)}])

    @model()
    def while_nested_loop_vars_structure(s):
        x = ph("x", f32, [2])
        init = {"i": tf.constant(0), "st": (x, [tf.constant(1.0), tf.constant(0, i64)])}
        def body(d):
            a, (b, c) = d["st"]
            return [{"i": d["i"] + 1, "st": (a * 1.1, [b + tf.reduce_sum(a), c + 2])}]
        out = tf.while_loop(lambda d: d["i"] < 4, body, [init])
        return spec(tf.nest.flatten(out), [{x: np.array([1, 2], np.float32)}])

    @model()
    def while_zero_and_const(s):
        # loop entirely on constants (foldable) plus one that may run zero times
        i, a = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * 2), [tf.constant(0), tf.constant(1)])
        n = ph("n", i32, [])
        j, b = tf.while_loop(lambda j, b: j < n, lambda j, b: (j + 1, b + a), [0, 0])
        return spec([i, a, j, b], [{n: np.int32(0)}, {n: np.int32(3)}])

    @model()
    def while_identity_outputs(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + x), [0, x])
        vi = tf.identity(v, name="v_out"); ii = tf.identity(i, name="i_out")
        vi2 = tf.identity(tf.identity(vi))
        return spec([v, i, vi, ii, vi2], [{x: np.array([1, 2, 3], np.float32), n: np.int32(4)}])

    @model()
    def while_control_deps_in_body(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        def body(i, v):
            side = tf.reduce_sum(v, name="side_sum")
            with tf.control_dependencies([side, tf.debugging.assert_less(i, 1000)]):
                nv = tf.identity(v * 0.5 + x)
            return i + 1, nv
        i, v = tf.while_loop(lambda i, v: i < n, body, [0, x])
        return spec([v], [{x: np.array([1, 2, 3], np.float32), n: np.int32(5)}])

    @model()
    def while_dynamic_input_shape(s):
        x = ph("x", f32, [None, None]); n = ph("n", i32, [])
        i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 0.5 + tf.reduce_mean(v, 0)), [0, x])
        rng = rs("wdis")
        return spec([v], [{x: rng.randn(2, 3).astype(np.float32), n: np.int32(3)},
                          {x: rng.randn(4, 1).astype(np.float32), n: np.int32(2)}])

    @model()
    def while_string_loop_var(s):
        n = ph("n", i32, [])
        i, st = tf.while_loop(lambda i, s_: i < n, lambda i, s_: (i + 1, tf.strings.join([s_, "b"])),
                              [0, tf.constant("a")])
        return spec([tf.strings.length(st), tf.equal(st, "abbb")], [{n: np.int32(3)}, {n: np.int32(0)}])

    @model()
    def while_bool_loop_var(s):
        n = ph("n", i32, []); x = ph("x", tf.bool, [3])
        i, b, c = tf.while_loop(lambda i, b, c: i < n,
                                lambda i, b, c: (i + 1, tf.math.logical_xor(b, c), tf.logical_not(c)),
                                [0, x, tf.constant([True, False, True])])
        return spec([b, c], [{n: np.int32(3), x: np.array([True, True, False])},
                             {n: np.int32(4), x: np.array([False, True, False])}])

    @model()
    def while_with_print(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        def body(i, v):
            pr = tf.print("iter", i, v, output_stream=sys.stderr)
            with tf.control_dependencies([pr]):
                return i + 1, v * 2.0
        i, v = tf.while_loop(lambda i, v: i < n, body, [0, x])
        return spec([v], [{x: np.array([1, 2], np.float32), n: np.int32(3)}])

    @model()
    def while_stop_gradient(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        def body(i, v):
            return i + 1, v * x + tf.stop_gradient(v * v) * 0.1
        i, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([3])])
        y = tf.reduce_sum(v)
        g = tf.gradients(y, x)[0]
        return spec([v, g], [{x: np.array([0.5, 0.9, -0.3], np.float32), n: np.int32(3)}])

    # -------------------------------------------------------------- nesting
    @model()
    def nested_while(s):
        n = ph("n", i32, []); x = ph("x", f32, [2])
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + x * tf.cast(i * j, f32)
            _, a = tf.while_loop(lambda j, a: j < i, inner, [0, acc])
            return i + 1, a
        i, acc = tf.while_loop(lambda i, a: i < n, outer, [0, tf.zeros([2])])
        return spec([i, acc], [{n: np.int32(4), x: np.array([1, 0.5], np.float32)},
                               {n: np.int32(0), x: np.array([1, 0.5], np.float32)}])

    @model()
    def while_inside_cond(s):
        p = ph("p", tf.bool, []); x = ph("x", f32, [3]); n = ph("n", i32, [])
        def t():
            _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 1.5), [0, x])
            return v
        out = tf.cond(p, t, lambda: x * 0.0)
        xv = np.array([1, 2, 3], np.float32)
        return spec([out], [{p: np.bool_(True), x: xv, n: np.int32(3)}, {p: np.bool_(False), x: xv, n: np.int32(3)}])

    @model()
    def cond_inside_while(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        def body(i, a):
            a2 = tf.cond(tf.equal(i % 2, 0), lambda: a + x, lambda: a * 0.9)
            return i + 1, a2
        i, a = tf.while_loop(lambda i, a: i < n, body, [0, tf.zeros([3])])
        return spec([a], [{x: np.array([1, 2, 3], np.float32), n: np.int32(5)},
                          {x: np.array([1, 2, 3], np.float32), n: np.int32(1)}])

    @model()
    def while_in_cond_in_while(s):
        x = ph("x", f32, []); n = ph("n", i32, [])
        def body(i, a):
            def t():
                _, b = tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b + x), [0, a])
                return b
            a2 = tf.cond(i > 1, t, lambda: a - 1.0)
            return i + 1, a2
        i, a = tf.while_loop(lambda i, a: i < n, body, [0, tf.constant(0.0)])
        return spec([a], [{x: np.float32(0.5), n: np.int32(5)}, {x: np.float32(2), n: np.int32(2)}])

    @model()
    def cond_in_while_in_cond(s):
        p = ph("p", tf.bool, []); x = ph("x", f32, [2])
        def t():
            def body(i, a):
                return i + 1, tf.cond(tf.reduce_sum(a) > 5.0, lambda: a - 1.0, lambda: a * 2.0)
            return tf.while_loop(lambda i, a: i < 6, body, [0, x])[1]
        out = tf.cond(p, t, lambda: x)
        return spec([out], [{p: np.bool_(True), x: np.array([1, 0.5], np.float32)},
                            {p: np.bool_(False), x: np.array([1, 0.5], np.float32)}])

    # ---------------------------------------------------------- TensorArray
    @model()
    def ta_write_stack(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        ta = tf.TensorArray(f32, size=n)
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i, f32))), [0, ta])
        return spec([ta.stack(), ta.size()], [{x: np.array([1, 2, 3], np.float32), n: np.int32(4)}])

    @model()
    def ta_unstack_read(s):
        x = ph("x", f32, [None, 3])
        T = tf.shape(x)[0]
        inp = tf.TensorArray(f32, size=T).unstack(x)
        out = tf.TensorArray(f32, size=T)
        def body(i, acc, out):
            acc = acc + inp.read(i)
            return i + 1, acc, out.write(T - 1 - i, acc)
        _, acc, out = tf.while_loop(lambda i, a, o: i < T, body, [0, tf.zeros([3]), out])
        rng = rs("tur")
        return spec([acc, out.stack()], [{x: rng.randn(5, 3).astype(np.float32)}, {x: rng.randn(1, 3).astype(np.float32)}])

    @model()
    def ta_dynamic_size(s):
        n = ph("n", i32, [])
        ta = tf.TensorArray(i32, size=0, dynamic_size=True)
        def body(v, k, ta):
            ta = ta.write(k, v)
            return tf.where(tf.equal(v % 2, 0), v // 2, 3 * v + 1), k + 1, ta
        _, k, ta = tf.while_loop(lambda v, k, ta: v > 1, body, [n, 0, ta])
        return spec([k, ta.stack()], [{n: np.int32(6)}, {n: np.int32(7)}])

    @model()
    def ta_scatter_gather(s):
        x = ph("x", f32, [4, 2])
        ta = tf.TensorArray(f32, size=4).scatter([3, 1, 0, 2], x)
        out = tf.TensorArray(f32, size=4, clear_after_read=False)
        def body(i, out):
            return i + 1, out.write(i, ta.read(i) * tf.cast(i + 1, f32))
        _, out = tf.while_loop(lambda i, o: i < 4, body, [0, out])
        g = out.gather([2, 0, 3])
        return spec([g, out.stack()], [{x: rs("tsg").randn(4, 2).astype(np.float32)}])

    @model()
    def ta_concat_varlen(s):
        n = ph("n", i32, []); x = ph("x", f32, [])
        ta = tf.TensorArray(f32, size=n, element_shape=tf.TensorShape([None]), infer_shape=False)
        def body(i, ta):
            return i + 1, ta.write(i, tf.fill([i + 1], x * tf.cast(i, f32)))
        _, ta = tf.while_loop(lambda i, ta: i < n, body, [0, ta])
        return spec([ta.concat()], [{n: np.int32(4), x: np.float32(1.5)}, {n: np.int32(1), x: np.float32(2)}])

    @model()
    def ta_split_read(s):
        x = ph("x", f32, [6])
        ta = tf.TensorArray(f32, size=3, infer_shape=False).split(x, [1, 2, 3])
        def body(i, acc):
            return i + 1, acc + tf.reduce_sum(ta.read(i)) * tf.cast(i + 1, f32)
        _, acc = tf.while_loop(lambda i, a: i < 3, body, [0, tf.constant(0.0)])
        return spec([acc], [{x: np.arange(6, dtype=np.float32)}])

    @model()
    def ta_write_in_cond_in_loop(s):
        x = ph("x", f32, [5])
        ta = tf.TensorArray(f32, size=5)
        def body(i, ta):
            v = tf.cond(x[i] > 0, lambda: x[i] * 10.0, lambda: -x[i])
            return i + 1, ta.write(i, v)
        _, ta = tf.while_loop(lambda i, ta: i < 5, body, [0, ta])
        return spec([ta.stack()], [{x: np.array([1, -2, 3, -4, 0], np.float32)}])

    # ------------------------------------------------ functional high-level
    @model()
    def scan_cumsum(s):
        x = ph("x", f32, [None, 3])
        out = tf.scan(lambda a, e: a + e, x)
        rng = rs("scan")
        return spec([out], [{x: rng.randn(5, 3).astype(np.float32)}, {x: rng.randn(1, 3).astype(np.float32)}])

    @model()
    def scan_multi_acc_reverse(s):
        x = ph("x", f32, [4, 2])
        out = tf.scan(lambda acc, e: (acc[0] + e, acc[1] * e, acc[2] + 1), x,
                      initializer=(tf.zeros([2]), tf.ones([2]), tf.constant(0)), reverse=True)
        return spec(list(out), [{x: rs("sma").randn(4, 2).astype(np.float32)}])

    @model()
    def foldl_basic(s):
        x = ph("x", f32, [None, 2])
        out = tf.foldl(lambda a, e: a * 0.5 + e, x, initializer=tf.constant([1.0, -1.0]))
        out2 = tf.foldl(lambda a, e: a + e, tf.range(10))
        return spec([out, out2], [{x: rs("fl").randn(6, 2).astype(np.float32)}])

    @model()
    def foldr_basic(s):
        x = ph("x", f32, [None, 2])
        out = tf.foldr(lambda a, e: a * 0.5 + e, x, initializer=tf.constant([1.0, -1.0]))
        return spec([out], [{x: rs("fr").randn(6, 2).astype(np.float32)}])

    @model()
    def map_fn_basic(s):
        x = ph("x", f32, [None, 4])
        out = tf.map_fn(lambda r: tf.reduce_sum(r * r), x)
        rng = rs("mfb")
        return spec([out], [{x: rng.randn(3, 4).astype(np.float32)}, {x: rng.randn(7, 4).astype(np.float32)}])

    @model()
    def map_fn_output_signature(s):
        x = ph("x", f32, [None, 4])
        out = tf.map_fn(lambda r: tf.cast(tf.argmax(r), i32), x, fn_output_signature=i32)
        out2 = tf.map_fn(lambda r: r > 0, x, fn_output_signature=tf.bool, parallel_iterations=1)
        return spec([out, out2], [{x: rs("mfs").randn(5, 4).astype(np.float32)}])

    @model()
    def map_fn_nested_structures(s):
        x = ph("x", f32, [3, 2]); y = ph("y", i32, [3])
        def fn(e):
            a, (b,) = e
            return {"s": tf.reduce_sum(a) * tf.cast(b, f32), "t": (b * 2, a > 0)}
        out = tf.map_fn(fn, (x, (y,)), fn_output_signature={"s": f32, "t": (i32, tf.bool)})
        return spec(tf.nest.flatten(out), [{x: rs("mfn").randn(3, 2).astype(np.float32),
                                            y: np.array([1, 2, 3], np.int32)}])

    @model()
    def map_fn_with_inner_cond(s):
        x = ph("x", f32, [None])
        out = tf.map_fn(lambda e: tf.cond(e > 0, lambda: tf.sqrt(e), lambda: e * e), x)
        return spec([out], [{x: np.array([4, -2, 9, 0.25, -1], np.float32)}])

    # ------------------------------------------------------------ gradients
    @model()
    def grad_cond(s):
        x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
        w = tf.constant([1.0, 2.0, 3.0])
        y = tf.cond(p, lambda: tf.reduce_sum(x * x * w), lambda: tf.reduce_sum(tf.sin(x)))
        g = tf.gradients(y, x)[0]
        xv = np.array([0.5, -1, 2], np.float32)
        return spec([y, g], [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}])

    @model()
    def grad2_cond(s):
        x = ph("x", f32, [3])
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(x ** 3), lambda: tf.reduce_sum(tf.exp(x)))
        g = tf.gradients(y, x)[0]
        h = tf.gradients(tf.reduce_sum(g), x)[0]
        return spec([g, h], [{x: np.array([0.5, 1, 2], np.float32)}, {x: np.array([-0.5, -1, 0.2], np.float32)}])

    @model()
    def grad_while(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x + tf.sin(v)), [0, tf.ones([2])])
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        xv = np.array([0.7, -0.4], np.float32)
        return spec([v, g], [{x: xv, n: np.int32(4)}, {x: xv, n: np.int32(1)}])

    @model()
    def grad_while_max_iters(s):
        x = ph("x", f32, [2])
        _, v = tf.while_loop(lambda i, v: tf.reduce_sum(v) < 50.0, lambda i, v: [i + 1, v * x], [0, tf.ones([2])],
                             maximum_iterations=10)
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        return spec([v, g], [{x: np.array([1.5, 2.0], np.float32)}, {x: np.array([0.5, 0.9], np.float32)}])

    @model()
    def grad_nested_while(s):
        x = ph("x", f32, []); n = ph("n", i32, [])
        def outer(i, a):
            _, b = tf.while_loop(lambda j, b: j < 2, lambda j, b: (j + 1, b * x + 0.1), [0, a])
            return i + 1, tf.tanh(b)
        _, a = tf.while_loop(lambda i, a: i < n, outer, [0, tf.constant(0.3)])
        g = tf.gradients(a, x)[0]
        return spec([a, g], [{x: np.float32(0.8), n: np.int32(3)}, {x: np.float32(-1.2), n: np.int32(2)}])

    @model()
    def grad_while_tensorarray(s):
        x = ph("x", f32, [4, 3]); w = ph("w", f32, [3, 3])
        inp = tf.TensorArray(f32, size=4).unstack(x)
        out = tf.TensorArray(f32, size=4)
        def body(i, h, out):
            h = tf.tanh(tf.matmul(tf.reshape(inp.read(i), [1, 3]), w) + h)
            return i + 1, h, out.write(i, h)
        _, h, out = tf.while_loop(lambda i, h, o: i < 4, body, [0, tf.zeros([1, 3]), out])
        loss = tf.reduce_sum(out.stack() ** 2)
        gx, gw = tf.gradients(loss, [x, w])
        rng = rs("gwt")
        return spec([loss, gx, gw], [{x: rng.randn(4, 3).astype(np.float32), w: rng.randn(3, 3).astype(np.float32)}])

    @model()
    def grad_scan(s):
        x = ph("x", f32, [5, 2]); w = ph("w", f32, [2])
        out = tf.scan(lambda a, e: a * w + e, x)
        gx, gw = tf.gradients(tf.reduce_sum(out), [x, w])
        rng = rs("gs")
        return spec([out, gx, gw], [{x: rng.randn(5, 2).astype(np.float32), w: np.array([0.5, -0.8], np.float32)}])

    @model()
    def grad_map_fn(s):
        x = ph("x", f32, [4, 3]); w = ph("w", f32, [3])
        out = tf.map_fn(lambda r: tf.reduce_sum(tf.sin(r * w)), x)
        gx, gw = tf.gradients(tf.reduce_sum(out), [x, w])
        rng = rs("gm")
        return spec([out, gx, gw], [{x: rng.randn(4, 3).astype(np.float32), w: rng.randn(3).astype(np.float32)}])

    @model()
    def grad_cond_in_while(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        def body(i, v):
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: v + tf.square(x))
        _, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([2])])
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        return spec([v, g], [{x: np.array([0.5, 1.5], np.float32), n: np.int32(5)}])

    @model()
    def grad_switch_case(s):
        x = ph("x", f32, [3]); k = ph("k", i32, [])
        y = tf.switch_case(k, [lambda: tf.reduce_sum(x * x), lambda: tf.reduce_sum(tf.exp(x)),
                               lambda: tf.reduce_prod(x)])
        g = tf.gradients(y, x)[0]
        xv = np.array([0.5, -1, 2], np.float32)
        return spec([y, g], [{x: xv, k: np.int32(0)}, {x: xv, k: np.int32(1)}, {x: xv, k: np.int32(2)}])

    # ------------------------------------------------------------------ RNN
    def lstm_like(name, cell_fn, seq_len=False, time_major=False, freeze=True, B=2, T=5, D=3):
        rng = rs(name)
        shape = [T, B, D] if time_major else [B, T, D]
        x = ph("x", f32, [None, None, D] if not time_major else [None, None, D])
        sl = ph("seq_len", i32, [None]) if seq_len else None
        with v1.variable_scope("rnn_scope", initializer=np_init(rng)):
            cell = cell_fn()
            out, st = v1.nn.dynamic_rnn(cell, x, sequence_length=sl, dtype=f32, time_major=time_major)
        feeds = [{x: rng.randn(*shape).astype(np.float32)}, {x: rng.randn(*shape).astype(np.float32)}]
        if seq_len:
            feeds[0][sl] = np.array([5, 2], np.int32)
            feeds[1][sl] = np.array([1, 4], np.int32)
        return spec([out] + tf.nest.flatten(st), feeds, init=v1.global_variables_initializer(), freeze=freeze)

    @model()
    def rnn_lstm_frozen(s):
        return lstm_like("rnn_lstm_frozen", lambda: v1.nn.rnn_cell.LSTMCell(4))

    @model()
    def rnn_lstm_init_not_frozen(s):
        return lstm_like("rnn_lstm_init", lambda: v1.nn.rnn_cell.LSTMCell(4, use_peepholes=True), freeze=False)

    @model()
    def rnn_gru_seqlen_frozen(s):
        return lstm_like("rnn_gru_sl", lambda: v1.nn.rnn_cell.GRUCell(5), seq_len=True)

    @model()
    def rnn_gru_seqlen_init(s):
        return lstm_like("rnn_gru_sl_i", lambda: v1.nn.rnn_cell.GRUCell(5), seq_len=True, freeze=False)

    @model()
    def rnn_basic_time_major(s):
        return lstm_like("rnn_basic_tm", lambda: v1.nn.rnn_cell.BasicRNNCell(3), time_major=True)

    @model()
    def rnn_multi_cell_seqlen(s):
        return lstm_like("rnn_multi", lambda: v1.nn.rnn_cell.MultiRNNCell(
            [v1.nn.rnn_cell.LSTMCell(4), v1.nn.rnn_cell.GRUCell(3)]), seq_len=True)

    @model()
    def rnn_bidirectional(s):
        rng = rs("bidi")
        x = ph("x", f32, [2, 4, 3]); sl = ph("seq_len", i32, [2])
        with v1.variable_scope("bidi", initializer=np_init(rng)):
            (of, ob), (sf, sb) = v1.nn.bidirectional_dynamic_rnn(
                v1.nn.rnn_cell.LSTMCell(3), v1.nn.rnn_cell.GRUCell(2), x, sequence_length=sl, dtype=f32)
        return spec([of, ob] + tf.nest.flatten(sf) + [sb],
                    [{x: rng.randn(2, 4, 3).astype(np.float32), sl: np.array([4, 2], np.int32)}],
                    init=v1.global_variables_initializer(), freeze=True)

    @model()
    def rnn_bidirectional_init(s):
        rng = rs("bidi2")
        x = ph("x", f32, [2, 4, 3]); sl = ph("seq_len", i32, [2])
        with v1.variable_scope("bidi", initializer=np_init(rng)):
            (of, ob), (sf, sb) = v1.nn.bidirectional_dynamic_rnn(
                v1.nn.rnn_cell.LSTMCell(3), v1.nn.rnn_cell.LSTMCell(3), x, sequence_length=sl, dtype=f32)
        return spec([of, ob], [{x: rng.randn(2, 4, 3).astype(np.float32), sl: np.array([3, 4], np.int32)}],
                    init=v1.global_variables_initializer(), freeze=False)

    @model()
    def rnn_raw_rnn(s):
        rng = rs("raw")
        B, T, D, U = 2, 4, 3, 4
        x = ph("x", f32, [T, B, D]); sl = ph("seq_len", i32, [B])
        inputs_ta = tf.TensorArray(f32, size=T).unstack(x)
        with v1.variable_scope("raw", initializer=np_init(rng)):
            cell = v1.nn.rnn_cell.LSTMCell(U)
            def loop_fn(time, cell_output, cell_state, loop_state):
                emit_output = cell_output
                if cell_output is None:
                    next_cell_state = cell.zero_state(B, f32)
                else:
                    next_cell_state = cell_state
                elements_finished = (time >= sl)
                finished = tf.reduce_all(elements_finished)
                next_input = tf.cond(finished, lambda: tf.zeros([B, D], f32), lambda: inputs_ta.read(time))
                return (elements_finished, next_input, next_cell_state, emit_output, None)
            outputs_ta, final_state, _ = v1.nn.raw_rnn(cell, loop_fn)
            outputs = outputs_ta.stack()
        return spec([outputs] + tf.nest.flatten(final_state),
                    [{x: rng.randn(T, B, D).astype(np.float32), sl: np.array([4, 2], np.int32)}],
                    init=v1.global_variables_initializer(), freeze=True)

    # ---------------------------------------------------------- tf.function
    @model()
    def tf_function_simple(s):
        x = ph("x", f32, [3]); y = ph("y", f32, [3])
        @tf.function
        def f(a, b):
            return a * b + tf.reduce_sum(a)
        return spec([f(x, y)], [{x: np.array([1, 2, 3], np.float32), y: np.array([4, 5, 6], np.float32)}])

    @model()
    def tf_function_autograph_control_flow(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        @tf.function
        def f(a, n):
            acc = tf.zeros_like(a)
            for i in tf.range(n):
                if tf.reduce_sum(acc) > 10.0:
                    acc = acc - a
                else:
                    acc = acc + a * tf.cast(i, tf.float32)
            return acc
        return spec([f(x, n)], [{x: np.array([1, 2, 3], np.float32), n: np.int32(5)},
                                {x: np.array([1, 2, 3], np.float32), n: np.int32(0)}])

    @model()
    def tf_function_nested_and_captures(s):
        x = ph("x", f32, [2]); y = ph("y", f32, [])
        outer_t = x * 3.0
        @tf.function
        def inner(a):
            return tf.square(a) + outer_t
        @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.float32)])
        def outer(a, b):
            r = inner(a) * b
            return r, tf.cast(tf.reduce_sum(r) > 0, tf.int32)
        r, flag = outer(x, y)
        return spec([r, flag], [{x: np.array([1, -2], np.float32), y: np.float32(2)},
                                {x: np.array([1, -2], np.float32), y: np.float32(-3)}])

    @model()
    def tf_function_grad(s):
        x = ph("x", f32, [3])
        @tf.function
        def f(a):
            return tf.reduce_sum(tf.sin(a) * a)
        y = f(x)
        g = tf.gradients(y, x)[0]
        return spec([y, g], [{x: np.array([0.5, 1, 2], np.float32)}])

    @model()
    def tf_function_in_while(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        @tf.function
        def step(v):
            return tf.tanh(v) + x
        _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, step(v)), [0, tf.zeros([2])])
        return spec([v], [{x: np.array([0.5, -1], np.float32), n: np.int32(4)}])

    # ------------------------------------------------------------- training
    def train_common(name, build_loss, opt, use_resource, extra_feeds):
        with v1.variable_scope(name, use_resource=use_resource):
            loss, feeds = build_loss()
        train = opt.minimize(loss)
        return spec([loss], feeds, init=v1.global_variables_initializer(), target=train, freeze=False)

    @model()
    def train_gd_while_refvar(s):
        def b():
            x = ph("x", f32, [3]); n = ph("n", i32, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * W + x), [0, tf.ones([3])])
            return tf.reduce_sum(v * v), [{x: np.array([1, 2, 3], np.float32), n: np.int32(3)}]
        return train_common("tgw", b, v1.train.GradientDescentOptimizer(0.05), False, None)

    @model()
    def train_gd_while_resource(s):
        def b():
            x = ph("x", f32, [3]); n = ph("n", i32, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * W + x), [0, tf.ones([3])])
            return tf.reduce_sum(v * v), [{x: np.array([1, 2, 3], np.float32), n: np.int32(3)}]
        return train_common("tgwr", b, v1.train.GradientDescentOptimizer(0.05), True, None)

    @model()
    def train_adam_cond(s):
        def b():
            x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            loss = tf.cond(p, lambda: tf.reduce_sum(tf.square(W * x - 1.0)), lambda: tf.reduce_sum(tf.abs(W) * x))
            xv = np.array([1, 2, 3], np.float32)
            return loss, [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}]
        return train_common("tac", b, v1.train.AdamOptimizer(0.1), True, None)

    @model()
    def train_adam_cond_refvar(s):
        def b():
            x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            loss = tf.cond(p, lambda: tf.reduce_sum(tf.square(W * x - 1.0)), lambda: tf.reduce_sum(tf.abs(W) * x))
            xv = np.array([1, 2, 3], np.float32)
            return loss, [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}]
        return train_common("tacr", b, v1.train.AdamOptimizer(0.1), False, None)

    @model()
    def train_momentum_scan(s):
        def b():
            x = ph("x", f32, [5, 2])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.8]))
            out = tf.scan(lambda a, e: a * W + e, x)
            return tf.reduce_mean(tf.square(out)), [{x: rs("tms").randn(5, 2).astype(np.float32)}]
        return train_common("tms", b, v1.train.MomentumOptimizer(0.1, 0.9), True, None)

    @model()
    def train_lstm_adam(s):
        rng = rs("tla")
        x = ph("x", f32, [2, 5, 3]); tgt = ph("tgt", f32, [2, 5, 2]); sl = ph("seq_len", i32, [2])
        with v1.variable_scope("tla", initializer=np_init(rng)):
            out, _ = v1.nn.dynamic_rnn(v1.nn.rnn_cell.LSTMCell(4), x, sequence_length=sl, dtype=f32)
            Wp = v1.get_variable("Wp", [4, 2])
            pred = tf.einsum("btu,uo->bto", out, Wp)
        loss = tf.reduce_mean(tf.square(pred - tgt))
        train = v1.train.AdamOptimizer(0.01).minimize(loss)
        return spec([loss], [{x: rng.randn(2, 5, 3).astype(np.float32), tgt: rng.randn(2, 5, 2).astype(np.float32),
                              sl: np.array([5, 3], np.int32)}],
                    init=v1.global_variables_initializer(), target=train)

    @model()
    def frozen_vars_in_cond_and_while(s):
        rng = rs("fvcw")
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        W = v1.get_variable("W", initializer=tf.constant(rng.randn(3, 3).astype(np.float32)))
        b = v1.get_variable("b", initializer=tf.constant(rng.randn(3).astype(np.float32)))
        def body(i, v):
            v2 = tf.tanh(tf.linalg.matvec(W, v) + b)
            return i + 1, tf.cond(tf.reduce_sum(v2) > 0, lambda: v2, lambda: v2 * b)
        _, v = tf.while_loop(lambda i, v: i < n, body, [0, x])
        return spec([v], [{x: np.array([1, 2, 3], np.float32), n: np.int32(4)}],
                    init=v1.global_variables_initializer(), freeze=True)


    # ---------------------------------------------------------------------
    # *_alt: same control-flow structure as a model above, but with ops that
    # dflow registers (Sin/Cos/Abs/Einsum/MatrixDiagV3/StringLength/
    # ReverseSequence replaced), so the control-flow part itself is exercised.
    @model()
    def cond_control_deps_alt(s):
        x = ph("x", f32, [3])
        def t():
            side = tf.identity(x * 3.0, name="side")
            with tf.control_dependencies([side]):
                return tf.identity(x + 1.0)
        def f():
            with tf.control_dependencies([tf.debugging.assert_non_negative(tf.square(x))]):
                return x - 1.0
        out = tf.cond(x[0] > 0, t, f)
        return spec([out], [{x: np.array([1, 2, 3], np.float32)}, {x: np.array([-1, 2, 3], np.float32)}])

    @model()
    def switch_case_basic_alt(s):
        x = ph("x", f32, [3]); k = ph("k", i32, [])
        out = tf.switch_case(k, branch_fns={0: lambda: x * 1.0, 1: lambda: tf.tanh(x), 2: lambda: x * x},
                             default=lambda: -x)
        xv = np.array([0.5, 1, 2], np.float32)
        return spec([out], [{x: xv, k: np.int32(0)}, {x: xv, k: np.int32(1)}, {x: xv, k: np.int32(7)}])

    @model()
    def while_parallel_iterations_1_alt(s):
        x = ph("x", f32, [4, 4]); n = ph("n", i32, [])
        i, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.tanh(tf.matmul(v, x))),
                             [0, tf.constant(np.eye(4, dtype=np.float32))], parallel_iterations=1)
        r = rs("pi1").randn(4, 4).astype(np.float32)
        return spec([v], [{x: r, n: np.int32(5)}, {x: r, n: np.int32(1)}])

    @model()
    def while_parallel_iterations_32_alt(s):
        x = ph("x", f32, [8]); n = ph("n", i32, [])
        def body(i, a, b, c):
            fi = tf.cast(i, f32)
            return i + 1, a + tf.tanh(x * fi), b + tf.exp(-(x + fi) ** 2), c * 0.5 + tf.reduce_sum(a)
        out = tf.while_loop(lambda i, a, b, c: i < n, body, [0, tf.zeros([8]), tf.zeros([8]), tf.constant(0.0)],
                            parallel_iterations=32)
        r = rs("pi32").randn(8).astype(np.float32)
        return spec(list(out), [{x: r, n: np.int32(40)}, {x: r, n: np.int32(2)}])

    @model()
    def while_string_loop_var_alt(s):
        n = ph("n", i32, [])
        i, st = tf.while_loop(lambda i, s_: i < n, lambda i, s_: (i + 1, tf.strings.join([s_, "b"])),
                              [0, tf.constant("a")])
        return spec([i, tf.equal(st, "abbb")], [{n: np.int32(3)}, {n: np.int32(0)}])

    @model()
    def grad_cond_alt(s):
        x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
        w = tf.constant([1.0, 2.0, 3.0])
        y = tf.cond(p, lambda: tf.reduce_sum(x * x * w), lambda: tf.reduce_sum(tf.tanh(x)))
        g = tf.gradients(y, x)[0]
        xv = np.array([0.5, -1, 2], np.float32)
        return spec([y, g], [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}])

    @model()
    def grad_while_alt(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        _, v = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x + tf.tanh(v)), [0, tf.ones([2])])
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        xv = np.array([0.7, -0.4], np.float32)
        return spec([v, g], [{x: xv, n: np.int32(4)}, {x: xv, n: np.int32(1)}])

    @model()
    def grad_map_fn_alt(s):
        x = ph("x", f32, [4, 3]); w = ph("w", f32, [3])
        out = tf.map_fn(lambda r: tf.reduce_sum(tf.tanh(r * w)), x)
        gx, gw = tf.gradients(tf.reduce_sum(out), [x, w])
        rng = rs("gm")
        return spec([out, gx, gw], [{x: rng.randn(4, 3).astype(np.float32), w: rng.randn(3).astype(np.float32)}])

    @model()
    def grad_cond_in_while_single_use(s):
        # like grad_cond_in_while, but x is used by only one branch
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        def body(i, v):
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: v + 1.0)
        _, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([2])])
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        return spec([v, g], [{x: np.array([0.5, 1.5], np.float32), n: np.int32(5)},
                             {x: np.array([0.5, 1.5], np.float32), n: np.int32(1)}])

    @model()
    def tf_function_grad_alt(s):
        x = ph("x", f32, [3])
        @tf.function
        def f(a):
            return tf.reduce_sum(tf.tanh(a) * a)
        y = f(x)
        g = tf.gradients(y, x)[0]
        return spec([y, g], [{x: np.array([0.5, 1, 2], np.float32)}])

    @model()
    def train_adam_cond_alt(s):
        def b():
            x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            loss = tf.cond(p, lambda: tf.reduce_sum(tf.square(W * x - 1.0)), lambda: tf.reduce_sum(tf.square(W) * x))
            xv = np.array([1, 2, 3], np.float32)
            return loss, [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}]
        return train_common("taca", b, v1.train.AdamOptimizer(0.1), True, None)

    @model()
    def train_adam_cond_refvar_alt(s):
        def b():
            x = ph("x", f32, [3]); p = ph("p", tf.bool, [])
            W = v1.get_variable("W", initializer=tf.constant([0.5, -0.3, 0.8]))
            loss = tf.cond(p, lambda: tf.reduce_sum(tf.square(W * x - 1.0)), lambda: tf.reduce_sum(tf.square(W) * x))
            xv = np.array([1, 2, 3], np.float32)
            return loss, [{x: xv, p: np.bool_(True)}, {x: xv, p: np.bool_(False)}]
        return train_common("tacra", b, v1.train.AdamOptimizer(0.1), False, None)

    @model()
    def train_lstm_adam_alt(s):
        rng = rs("tla")
        x = ph("x", f32, [2, 5, 3]); tgt = ph("tgt", f32, [2, 5, 2]); sl = ph("seq_len", i32, [2])
        with v1.variable_scope("tla", initializer=np_init(rng)):
            out, _ = v1.nn.dynamic_rnn(v1.nn.rnn_cell.LSTMCell(4), x, sequence_length=sl, dtype=f32)
            Wp = v1.get_variable("Wp", [4, 2])
            pred = tf.reshape(tf.matmul(tf.reshape(out, [-1, 4]), Wp), [2, 5, 2])
        loss = tf.reduce_mean(tf.square(pred - tgt))
        train = v1.train.AdamOptimizer(0.01).minimize(loss)
        return spec([loss], [{x: rng.randn(2, 5, 3).astype(np.float32), tgt: rng.randn(2, 5, 2).astype(np.float32),
                              sl: np.array([5, 5], np.int32)}],
                    init=v1.global_variables_initializer(), target=train)

    @model()
    def train_gd_dynamic_rnn_full_len(s):
        rng = rs("tgd")
        x = ph("x", f32, [2, 4, 3]); tgt = ph("tgt", f32, [2, 3])
        with v1.variable_scope("tgd", initializer=np_init(rng)):
            out, st = v1.nn.dynamic_rnn(v1.nn.rnn_cell.GRUCell(3), x, dtype=f32)
        loss = tf.reduce_mean(tf.square(st - tgt))
        train = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        return spec([loss], [{x: rng.randn(2, 4, 3).astype(np.float32), tgt: rng.randn(2, 3).astype(np.float32)}],
                    init=v1.global_variables_initializer(), target=train)

    @model()
    def rnn_bidirectional_no_seqlen(s):
        rng = rs("bidi3")
        x = ph("x", f32, [2, 4, 3])
        with v1.variable_scope("bidi", initializer=np_init(rng)):
            (of, ob), (sf, sb) = v1.nn.bidirectional_dynamic_rnn(
                v1.nn.rnn_cell.LSTMCell(3), v1.nn.rnn_cell.GRUCell(2), x, dtype=f32)
        return spec([of, ob] + tf.nest.flatten(sf) + [sb], [{x: rng.randn(2, 4, 3).astype(np.float32)}],
                    init=v1.global_variables_initializer(), freeze=True)

    @model()
    def rnn_lstm_seqlen_short_max(s):
        # max(seq_len) < T: the output TensorArray is not written at the last steps
        rng = rs("lss")
        x = ph("x", f32, [2, 5, 3]); sl = ph("seq_len", i32, [2])
        with v1.variable_scope("lss", initializer=np_init(rng)):
            out, st = v1.nn.dynamic_rnn(v1.nn.rnn_cell.LSTMCell(3), x, sequence_length=sl, dtype=f32)
        return spec([out] + tf.nest.flatten(st), [{x: rng.randn(2, 5, 3).astype(np.float32), sl: np.array([5, 3], np.int32)},
                                                  {x: rng.randn(2, 5, 3).astype(np.float32), sl: np.array([2, 3], np.int32)}],
                    init=v1.global_variables_initializer(), freeze=True)

    @model()
    def ta_stack_partially_written(s):
        # TensorArray of known element shape, size 5, loop writes only n < 5 elements, then stack
        n = ph("n", i32, []); x = ph("x", f32, [2])
        ta = tf.TensorArray(f32, size=5, element_shape=tf.TensorShape([2]))
        _, ta = tf.while_loop(lambda i, ta: i < n, lambda i, ta: (i + 1, ta.write(i, x * tf.cast(i + 1, f32))), [0, ta])
        return spec([ta.stack()], [{n: np.int32(5), x: np.array([1, 2], np.float32)},
                                   {n: np.int32(3), x: np.array([1, 2], np.float32)}])


    # ------------------------------------------- explicit two-device graphs
    @model()
    def dev_cond_branches_on_two_cpus(s):
        x = ph("x", f32, [3])
        with tf.device("/cpu:0"):
            pred = tf.reduce_sum(x) > 0
        def t():
            with tf.device("/cpu:1"):
                return x * 2.0 + 1.0
        def f():
            with tf.device("/cpu:0"):
                return x - 1.0
        with tf.device("/cpu:0"):
            out = tf.cond(pred, t, f)
            out2 = tf.identity(out) * 3.0
        return spec([out, out2], [{x: np.array([1, 2, 3], np.float32)}, {x: np.array([-1, -2, 0.5], np.float32)}],
                    devices="CPU:2")

    @model()
    def dev_while_body_on_two_cpus(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        def body(i, v):
            with tf.device("/cpu:1"):
                h = tf.tanh(v * x)
            with tf.device("/cpu:0"):
                return i + 1, h + v * 0.5
        with tf.device("/cpu:0"):
            i, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([3])])
        return spec([i, v], [{x: np.array([0.5, 1, -1], np.float32), n: np.int32(4)},
                             {x: np.array([0.5, 1, -1], np.float32), n: np.int32(0)}], devices="CPU:2")

    @model()
    def dev_grad_while_on_two_cpus(s):
        x = ph("x", f32, [3]); n = ph("n", i32, [])
        def body(i, v):
            with tf.device("/cpu:1"):
                h = tf.tanh(v * x)
            return i + 1, h + v * 0.5
        i, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([3])])
        g = tf.gradients(tf.reduce_sum(v), x)[0]
        return spec([v, g], [{x: np.array([0.5, 1, -1], np.float32), n: np.int32(4)}], devices="CPU:2")

    @model()
    def dev_nested_cond_in_while_two_cpus(s):
        x = ph("x", f32, [2]); n = ph("n", i32, [])
        def body(i, v):
            def t():
                with tf.device("/cpu:1"):
                    return v * x
            return i + 1, tf.cond(tf.equal(i % 2, 0), t, lambda: v + 1.0)
        i, v = tf.while_loop(lambda i, v: i < n, body, [0, tf.ones([2])])
        return spec([v], [{x: np.array([0.5, 1.5], np.float32), n: np.int32(5)}], devices="CPU:2")

    @model()
    def tf_function_reads_variable(s):
        x = ph("x", f32, [3])
        v = tf.Variable(tf.constant([1.0, 2.0, -1.0]), name="fv")
        @tf.function
        def f(a):
            if tf.reduce_sum(a * v) > 0:
                return a * v
            return a - v
        return spec([f(x)], [{x: np.array([1, 1, 1], np.float32)}, {x: np.array([-1, -1, -1], np.float32)}],
                    init=v1.global_variables_initializer())

    @model()
    def tf_function_autograph_tensorarray(s):
        x = ph("x", f32, [None])
        @tf.function
        def f(a):
            ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
            acc = tf.constant(0.0)
            for i in tf.range(tf.shape(a)[0]):
                acc = acc + a[i]
                ta = ta.write(i, acc)
            return ta.stack(), acc
        out, acc = f(x)
        return spec([out, acc], [{x: np.array([1, 2, 3, 4], np.float32)}, {x: np.array([5], np.float32)}])
    return MODELS


# ----------------------------------------------------------------------------
def sanitize(name):
    return name.replace("/", "_").replace(":", "_")


def compare(tf_val, df_val, np):
    """Returns (ok, detail)."""
    if tf_val.dtype != df_val.dtype:
        if tf_val.dtype == object or tf_val.dtype.kind in "SU":
            pass
        return False, f"dtype TF={tf_val.dtype} dflow={df_val.dtype}"
    if tf_val.shape != df_val.shape:
        return False, f"shape TF={tf_val.shape} dflow={df_val.shape}"
    if tf_val.dtype.kind == "f":
        if tf_val.size == 0:
            return True, ""
        nan_mismatch = np.isnan(tf_val) != np.isnan(df_val)
        if nan_mismatch.any():
            return False, "NaN mismatch"
        a = np.nan_to_num(tf_val.astype(np.float64)); b = np.nan_to_num(df_val.astype(np.float64))
        diff = np.abs(a - b)
        tol = 1e-5 + 1e-5 * np.abs(a)
        if (diff > tol).any():
            return False, f"max abs diff {diff.max():.3g}"
        return True, f"max abs diff {diff.max():.3g}"
    if not np.array_equal(tf_val, df_val):
        nbad = int(np.sum(tf_val != df_val)) if tf_val.shape == df_val.shape else -1
        return False, f"{nbad} elements differ (exact compare); TF={tf_val.ravel()[:6]} dflow={df_val.ravel()[:6]}"
    return True, ""


def run_and_compare(np, cmd, ddir, fetches, touts, mdir, tag, label):
    cmd = cmd + ["--out", ddir, "--timeout_ms", str(TIMEOUT_MS)]
    cmd_s = " ".join(shlex.quote(c) for c in cmd)
    with open(os.path.join(mdir, f"repro{tag}.sh"), "w") as f:
        f.write("#!/bin/sh\n" + cmd_s + "\n")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=SUBPROC_TIMEOUT)
        rc, err, out = p.returncode, p.stderr, p.stdout
    except subprocess.TimeoutExpired as e:
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else (e.stderr or "")
        rc, out = "TIMEOUT(60s, killed)", ""
    with open(os.path.join(mdir, f"dflow_log{tag}.txt"), "w") as f:
        f.write(f"rc={rc}\n--- stdout\n{out}\n--- stderr\n{err}\n")
    if rc != 0:
        errl = [l for l in err.splitlines() if l.strip()][:6]
        return ("FAIL-ERROR", f"{label}: rc={rc}: " + " | ".join(errl)[:700], cmd_s)
    for t, v in zip(fetches, touts):
        fp = os.path.join(ddir, sanitize(t.name) + ".npy")
        if not os.path.exists(fp):
            return ("FAIL-VALUE", f"{label}: fetch {t.name}: missing output file {fp}", cmd_s)
        try:
            dv = np.load(fp, allow_pickle=True)
        except Exception as e:
            return ("FAIL-VALUE", f"{label}: fetch {t.name}: cannot load npy: {e}", cmd_s)
        ok, det = compare(v, dv, np)
        if not ok:
            return ("FAIL-VALUE", f"{label}: fetch {t.name}: {det}", cmd_s)
    return ("PASS", "", cmd_s)


def run_style(style, only=None):
    import numpy as np
    import tensorflow as tf
    tf.compat.v1.disable_eager_execution()
    if style == "v1":
        tf.compat.v1.disable_control_flow_v2()
    else:
        tf.compat.v1.enable_control_flow_v2()
    define_models(tf, np)
    sdir = os.path.join(ROOT, style)
    os.makedirs(sdir, exist_ok=True)
    res_path = os.path.join(sdir, "results.json")
    results = OrderedDict()
    if only and os.path.exists(res_path):
        results = json.load(open(res_path), object_pairs_hook=OrderedDict)
    for name, (fn, styles) in MODELS.items():
        if only and name not in only:
            continue
        if style not in styles:
            continue
        mdir = os.path.join(sdir, name)
        shutil.rmtree(mdir, ignore_errors=True)
        os.makedirs(mdir)
        r = check_model(tf, np, style, name, fn, mdir)
        results[name] = r
        print(f"[{style}] {name}: {r['status']} {r.get('detail', '')[:200]}", flush=True)
        json.dump(results, open(res_path, "w"), indent=1)


def check_model(tf, np, style, name, fn, mdir):
    v1 = tf.compat.v1
    g = tf.Graph()
    r = OrderedDict(status=None, detail="", note="", repro=[])
    # ---- build + TF reference
    try:
        with g.as_default():
            sp = fn(style)
            fetches = []
            seen = set()
            for t in tf.nest.flatten(sp["fetches"]):
                if not isinstance(t, tf.Tensor):
                    raise TypeError(f"fetch {t!r} is not a tensor")
                if t.name not in seen:
                    seen.add(t.name)
                    fetches.append(t)
            feed_sets = sp["feed_sets"]
            init = sp["init"]; target = sp["target"]
            ops_types = sorted({op.type for op in g.get_operations()})
            for fd in g.as_graph_def().library.function:
                for nd in fd.node_def:
                    ops_types.append(nd.op)
            ops_types = sorted(set(ops_types))
            tf_outs = []
            with v1.Session(graph=g, config=v1.ConfigProto(device_count={'CPU': 2})) as sess:
                for fs in feed_sets:
                    if init is not None:
                        sess.run(init)
                    if target is not None:
                        vals = sess.run(fetches + [target], feed_dict=fs)[:-1]
                    else:
                        vals = sess.run(fetches, feed_dict=fs)
                    tf_outs.append([np.asarray(v) for v in vals])
                gdef = g.as_graph_def()
                if sp["freeze"]:
                    sess.run(init)
                    out_nodes = [t.op.name for t in fetches]
                    try:
                        gdef = v1.graph_util.convert_variables_to_constants(sess, gdef, out_nodes)
                        init = None
                        r["note"] += "frozen. "
                    except Exception as e:  # fall back to --init
                        r["note"] += f"freeze failed ({type(e).__name__}: {str(e)[:120]}), using --init. "
    except Exception as e:
        r["status"] = "TF-SKIP"
        r["detail"] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
        with open(os.path.join(mdir, "tf_error.txt"), "w") as f:
            f.write(traceback.format_exc())
        return r
    r["ops"] = ops_types
    gpath = os.path.join(mdir, "graph.pb")
    with open(gpath, "wb") as f:
        f.write(gdef.SerializeToString())
    init_name = init.name if init is not None else None
    target_name = target.name if target is not None else None
    if target is not None:
        r["note"] += f"train step: --init {init_name} --target {target_name}. "
    # ---- dflow
    statuses = []
    for k, (fs, touts) in enumerate(zip(feed_sets, tf_outs)):
        fdir = os.path.join(mdir, f"feeds{k}")
        tdir = os.path.join(mdir, f"tf_out{k}")
        ddir = os.path.join(mdir, f"dflow_out{k}")
        os.makedirs(fdir); os.makedirs(tdir)
        cmd = [DFLOW, "run", "--graph", gpath]
        for ph_t, val in fs.items():
            fp = os.path.join(fdir, sanitize(ph_t.name) + ".npy")
            np.save(fp, np.asarray(val))
            cmd += ["--feed", f"{ph_t.name}={fp}"]
        for t, v in zip(fetches, touts):
            np.save(os.path.join(tdir, sanitize(t.name) + ".npy"), v)
            cmd += ["--fetch", t.name]
        if init_name:
            cmd += ["--init", init_name]
        if target_name:
            cmd += ["--target", target_name]
        if sp.get("devices"):
            cmd += ["--devices", sp["devices"]]
        base_cmd = list(cmd)
        st = run_and_compare(np, base_cmd, ddir, fetches, touts, mdir, f"{k}", f"feeds{k}")
        statuses.append(st)
        if k == 0 and not sp.get("devices"):
            # same graph/feeds on two CPU devices: placement/partitioning of control flow
            st2 = run_and_compare(np, base_cmd + ["--devices", "CPU:2"], ddir + "_cpu2", fetches, touts, mdir,
                                  "0_cpu2", "feeds0 --devices CPU:2")
            r["cpu2"] = dict(status=st2[0], detail=st2[1], repro=st2[2])
    fails = [s for s in statuses if s[0] != "PASS"]
    if not fails:
        r["status"] = "PASS"
        r["detail"] = f"{len(statuses)} feed set(s)"
    else:
        r["status"] = fails[0][0] if all(f[0] == fails[0][0] for f in fails) else fails[0][0]
        r["detail"] = fails[0][1] + (f" ({len(fails)}/{len(statuses)} feed sets failed)")
        r["repro"] = [f[2] for f in fails]
        r["all_failures"] = [f[1] for f in fails]
    return r


def write_report():
    lines = ["# dflow control-flow probe vs TensorFlow 2.21", "",
             "Generated by `tools/tf_probe/control_flow_probe.py`. Artifacts: `/tmp/cfprobe/<style>/<model>/` "
             "(graph.pb, feeds<k>/, tf_out<k>/, dflow_out<k>/, dflow_log<k>.txt, repro<k>.sh).",
             "v1 = `disable_control_flow_v2()` (Switch/Merge/Enter/Exit); v2 = `enable_control_flow_v2()` "
             "(If/While/Case/PartitionedCall + function library). Tolerance: floats |d| <= 1e-5 + 1e-5|ref|; ints/bools exact.", ""]
    allres = {}
    for style in ("v1", "v2"):
        p = os.path.join(ROOT, style, "results.json")
        if os.path.exists(p):
            allres[style] = json.load(open(p), object_pairs_hook=OrderedDict)
    names = []
    for st in allres.values():
        for n in st:
            if n not in names:
                names.append(n)
    lines += ["## Results table", "",
              "Columns `v1+CPU:2` / `v2+CPU:2`: feed set 0 rerun with `--devices CPU:2` (dev_* models already use it).", "",
              "| model | v1 | v2 | v1+CPU:2 | v2+CPU:2 |", "|---|---|---|---|---|"]
    for n in names:
        row = [n]
        for style in ("v1", "v2"):
            rr = allres.get(style, {}).get(n)
            row.append(rr["status"] if rr else "-")
        for style in ("v1", "v2"):
            rr = allres.get(style, {}).get(n)
            row.append(rr["cpu2"]["status"] if rr and rr.get("cpu2") else "-")
        lines.append("| " + " | ".join(row) + " |")
    lines += [""]
    counts = {}
    for style, st in allres.items():
        for n, rr in st.items():
            counts.setdefault(style, {}).setdefault(rr["status"], 0)
            counts[style][rr["status"]] += 1
    lines += ["## Counts", ""]
    for style, c in counts.items():
        lines.append(f"- {style}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) + f" (total {sum(c.values())})")
    lines += ["", "## Details (failures and skips)", ""]
    for style in ("v1", "v2"):
        for n, rr in allres.get(style, {}).items():
            if rr["status"] == "PASS":
                continue
            lines.append(f"### {style}/{n}: {rr['status']}")
            lines.append("")
            if rr.get("note"):
                lines.append(f"- note: {rr['note']}")
            lines.append(f"- detail: `{rr['detail']}`")
            for extra in rr.get("all_failures", [])[1:]:
                lines.append(f"- also: `{extra[:400]}`")
            if rr.get("repro"):
                lines.append("- reproduce:")
                lines.append("")
                lines.append("  ```")
                lines.append("  " + rr["repro"][0])
                lines.append("  ```")
                lines.append(f"  (also `sh /tmp/cfprobe/{style}/{n}/repro<k>.sh`; TF reference in `tf_out<k>/`)")
            lines.append("")
    lines += ["## --devices CPU:2 reruns that failed while the single-device run passed", ""]
    for style in ("v1", "v2"):
        for n, rr in allres.get(style, {}).items():
            c2 = rr.get("cpu2")
            if c2 and c2["status"] != "PASS" and rr["status"] == "PASS":
                lines += [f"### {style}/{n}: {c2['status']} (CPU:2 only)", "", f"- detail: `{c2['detail']}`",
                          "- reproduce:", "", "  ```", "  " + c2["repro"], "  ```", ""]
    lines += ["## Notes on passing models", ""]
    for style in ("v1", "v2"):
        for n, rr in allres.get(style, {}).items():
            if rr["status"] == "PASS" and rr.get("note"):
                lines.append(f"- {style}/{n}: {rr['note']}")
    manual = os.path.join(ROOT, "SUMMARY.md")
    if os.path.exists(manual):
        lines += ["", open(manual).read()]
    with open(os.path.join(ROOT, "REPORT.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", os.path.join(ROOT, "REPORT.md"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--style", choices=["v1", "v2"])
    ap.add_argument("--only", default="")
    ap.add_argument("--report", action="store_true")
    a = ap.parse_args()
    only = set(x for x in a.only.split(",") if x)
    if a.report:
        write_report()
    elif a.style:
        run_style(a.style, only)
    else:
        for st in ("v1", "v2"):
            subprocess.run([sys.executable, os.path.abspath(__file__), "--style", st]
                           + (["--only", a.only] if a.only else []))
        write_report()


if __name__ == "__main__":
    main()
