#!/usr/bin/env python3
"""TensorFlow 2.21's values for the variable scatters: ScatterMul, ScatterDiv,
ScatterMax, ScatterMin, ScatterNdUpdate, ScatterNdAdd, ScatterNdSub and their
Resource* forms (tf.compat.v1.scatter_* on reference and resource
variables).

Writes tests/testdata/tf_variable_scatter/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): per case a
                variable (reference or resource; float32, float64, int32 or
                int64), one scatter into it with fed or constant indices and
                updates (repeated indices included), all grouped in
                `update`; `init` initializes every variable, and out_<case>
                reads each variable
  cases.txt     the feeds and each variable's value after STEPS runs of
                `update` (see tests/kernels/tf_value_cases.h for the format)
Read by tests/kernels/variable_scatter_test.cc.

Run: python3 tools/tf_reference/make_variable_scatter_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_variable_scatter")
STEPS = 2

rng = np.random.RandomState(5)

FEEDS = {
    "rows": np.array([3, 0, 3], np.int32),
    "rows64": np.array([1, 4], np.int64),
    "upd3": np.round(rng.uniform(0.5, 2.0, (3, 3)), 3).astype(np.float32),
    "upd2": np.round(rng.uniform(-2.0, 2.0, (2, 3)), 3).astype(np.float32),
    "tuples": np.array([[0, 1], [4, 2], [0, 1]], np.int32),
    "tuple_values": np.array([1.5, -2.25, 0.5], np.float32),
    "row_tuples": np.array([[2], [1]], np.int64),
}

INIT = np.round(rng.uniform(-3.0, 3.0, (5, 3)), 3)


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  S = tf1
  row_ops = {
      "mul": S.scatter_mul, "div": S.scatter_div, "max": S.scatter_max,
      "min": S.scatter_min,
  }
  nd_ops = {
      "nd_update": S.scatter_nd_update, "nd_add": S.scatter_nd_add,
      "nd_sub": S.scatter_nd_sub,
  }
  outs, updates = {}, []

  def var(name, dtype, resource):
    init = INIT.astype(dtype)
    if np.dtype(dtype).kind == "i":
      init = (INIT * 4).astype(dtype)
    return tf1.get_variable(name, initializer=init, use_resource=resource)

  for resource in (False, True):
    kind = "resource" if resource else "ref"
    for name, op in row_ops.items():
      for dtype in (np.float32, np.float64, np.int32, np.int64):
        case = "%s_%s_%s" % (name, kind, np.dtype(dtype).name)
        v = var(case, dtype, resource)
        if np.dtype(dtype).kind == "i":
          # Integer updates, never zero for a division.
          u = tf.constant(np.array([[2, -3, 5], [7, 1, -2], [3, 3, 4]]),
                          dtype)
          updates.append(op(v, p["rows"], u))
        elif dtype == np.float64:
          updates.append(op(v, p["rows64"], tf.cast(p["upd2"], tf.float64)))
        else:
          updates.append(op(v, p["rows"], p["upd3"]))
        outs[case] = v
      if resource:
        # A scalar update applies to every row named.
        case = "%s_resource_scalar" % name
        v = var(case, np.float32, True)
        updates.append(op(v, p["rows64"], tf.constant(1.5)))
        outs[case] = v
    for name, op in nd_ops.items():
      for dtype in (np.float32, np.float64, np.int32):
        case = "%s_%s_%s" % (name, kind, np.dtype(dtype).name)
        v = var(case, dtype, resource)
        if dtype == np.int32:
          updates.append(op(v, p["tuples"], tf.constant([4, -9, 2])))
        elif dtype == np.float64:
          # Whole rows through 1-tuples.
          updates.append(op(v, p["row_tuples"],
                            tf.cast(p["upd2"], tf.float64)))
        else:
          updates.append(op(v, p["tuples"], p["tuple_values"]))
        outs[case] = v
  tf.group(*updates, name="update")
  init = tf1.global_variables_initializer()
  assert init.name == "init", init.name
  reads = {}
  for k, v in outs.items():
    value = v.read_value() if hasattr(v, "handle") else tf.identity(v)
    reads[k] = tf.identity(value, name="out_" + k)
  return reads


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads = build()
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    with tf1.Session() as s:
      s.run("init")
      for _ in range(STEPS):
        s.run("update", feed)
      values = s.run(reads)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_variable_scatter_reference.py "
           "with TensorFlow %s: the variables after %d runs of `update`."
           % (tf.__version__, STEPS)]
  for k, v in FEEDS.items():
    lines.append("%s | %s" % (head("feed", k, v), fmt(v)))
  for k in sorted(values):
    lines.append("%s | %s" % (head("fetch", "out_" + k, values[k]),
                              fmt(values[k])))
  with open(os.path.join(OUT, "cases.txt"), "w") as f:
    f.write("\n".join(lines) + "\n")
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
