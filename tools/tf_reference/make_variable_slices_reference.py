#!/usr/bin/env python3
"""TensorFlow 2.21's values for the ops users write on slices and rows of
variables: ResourceStridedSliceAssign and StridedSliceAssign (Python's
`v[1:3].assign(x)` on resource and reference variables, with strides,
negative bounds, an ellipsis, a new axis and shrunk dimensions),
ResourceGatherNd (`tf.gather_nd(v, ...)`), the sparse centered RMSProp of
tf.compat.v1.train.RMSPropOptimizer(centered=True) on embedding rows
(ResourceSparseApplyCenteredRMSProp, SparseApplyCenteredRMSProp),
(Resource)SparseApplyAdagradV2 (raw ops: no optimizer writes them), and
tf.math.nextafter.

Writes tests/testdata/tf_variable_slices/:
  graph.pb   one TF-written GraphDef (tf.compat.v1 graph mode): `train`
             groups every update, `init` initializes the variables, and
             out_<case> reads each result
  cases.txt  the feeds and each result after STEPS runs of `train`
             (tests/kernels/tf_value_cases.h's format)
Read by tests/kernels/variable_slice_ops_test.cc.

Run: python3 tools/tf_reference/make_variable_slices_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_variable_slices")
STEPS = 3

rng = np.random.RandomState(23)


def uniform(*shape):
  return np.round(rng.uniform(-1.5, 1.5, shape), 3).astype(np.float32)


FEEDS = {
    "rows": uniform(2, 4),
    "column": uniform(3),
    "tail": uniform(2, 4),
    "one_row": uniform(1, 4),
    "ids": np.array([3, 0, 3, 5], np.int32),
    "targets": uniform(4, 3),
    "x1": np.array([1.0, -2.5, 0.0, 3e38, -0.0], np.float32),
    "x2": np.array([2.0, -3.0, -1.0, np.inf, 1.0], np.float32),
    "d1": np.array([1.0, 0.0, -7.25], np.float64),
    "d2": np.array([0.0, 1.0, -8.0], np.float64),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  outs, updates = {}, []

  def var(name, value, resource=True):
    return tf1.get_variable(name, initializer=value, use_resource=resource)

  # Slice assignments; each reads its slice first, so three steps compound.
  v = var("rows_res", uniform(6, 4))
  updates.append(v[1:3].assign(v[1:3] * 0.5 + p["rows"]))
  outs["rows_res"] = v
  v = var("rows_ref", uniform(6, 4), resource=False)
  updates.append(v[1:3].assign(v[1:3] * 0.5 + p["rows"]))
  outs["rows_ref"] = v
  v = var("strided_column", uniform(6, 4))  # rows 0, 2, 4 of column 1
  updates.append(v[::2, 1].assign(v[::2, 1] - p["column"]))
  outs["strided_column"] = v
  v = var("negative_ellipsis", uniform(6, 4))
  updates.append(v[-2:, ...].assign(v[-2:, ...] + p["tail"]))
  outs["negative_ellipsis"] = v
  v = var("reversed", uniform(6, 4))
  updates.append(v[4:0:-2, :].assign(v[4:0:-2, :] * 2.0 - p["rows"]))
  outs["reversed"] = v
  v = var("new_axis", uniform(6, 4))
  updates.append(v[3, tf.newaxis].assign(v[3, tf.newaxis] + p["one_row"]))
  outs["new_axis"] = v
  v = var("ints", np.arange(12, dtype=np.int32).reshape(3, 4))
  updates.append(v[1:, 2].assign(v[1:, 2] * 3 + 1))
  outs["ints"] = v
  v = var("empty_slice", uniform(6, 4))  # an empty slice: nothing changes
  updates.append(v[3:3].assign(tf.zeros([0, 4])))
  outs["empty_slice"] = v

  # tf.gather_nd of a resource variable (a tuple per row, whole rows, one
  # element), read after the steps.
  g = var("gathered", uniform(4, 3, 2))
  updates.append(g.assign_add(tf.ones([4, 3, 2]) * 0.25))
  outs["gather_nd_elements"] = tf.gather_nd(g, [[0, 1, 1], [3, 2, 0]])
  outs["gather_nd_rows"] = tf.gather_nd(g, [[[2], [0]], [[1], [1]]])
  outs["gather_nd_slices"] = tf.gather_nd(g, tf.constant([[1, 2]], tf.int64))

  # Embedding rows: the loss of rows `ids` against targets.
  def embedding_loss(table):
    rows = tf.gather(table, p["ids"])
    return tf.reduce_sum(tf.square(rows - p["targets"]))

  for resource in (True, False):
    kind = "res" if resource else "ref"
    with tf1.variable_scope("rmsprop_" + kind):
      t = var("table", uniform(6, 3), resource)
      opt = tf1.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5,
                                       epsilon=1e-3, centered=True)
      updates.append(opt.minimize(embedding_loss(t), var_list=[t]))
      outs["rmsprop_centered_" + kind] = t
    with tf1.variable_scope("adagrad_v2_" + kind):
      t = var("table", uniform(6, 3), resource)
      accum = var("accum", np.full((6, 3), 0.1, np.float32), resource)
      grad = tf.gradients(embedding_loss(t), t)[0]  # IndexedSlices
      raw = (tf.raw_ops.ResourceSparseApplyAdagradV2 if resource
             else tf.raw_ops.SparseApplyAdagradV2)
      updates.append(raw(var=t.handle if resource else t,
                         accum=accum.handle if resource else accum,
                         lr=tf.constant(0.1), epsilon=tf.constant(1e-4),
                         grad=grad.values, indices=grad.indices))
      outs["adagrad_v2_" + kind] = t
      outs["adagrad_v2_accum_" + kind] = accum

  outs["nextafter_float"] = tf.math.nextafter(p["x1"], p["x2"])
  outs["nextafter_double"] = tf.math.nextafter(p["d1"], p["d2"])

  train = tf.group(*updates, name="train")
  init = tf1.global_variables_initializer()
  assert init.name == "init", init.name
  reads = {}
  for k, v in outs.items():
    if isinstance(v, tf.Variable):
      v = v.read_value() if hasattr(v, "handle") else tf.identity(v)
    reads[k] = tf.identity(v, name="out_" + k)
  return reads, train


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads, train = build()
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    with tf1.Session() as s:
      s.run("init")
      for _ in range(STEPS):
        s.run(train, feed)
      values = s.run(reads, feed)
  ops = sorted({n.op for n in g.as_graph_def().node})
  for want in ("ResourceStridedSliceAssign", "StridedSliceAssign",
               "ResourceGatherNd", "ResourceSparseApplyCenteredRMSProp",
               "SparseApplyCenteredRMSProp", "ResourceSparseApplyAdagradV2",
               "SparseApplyAdagradV2", "NextAfter"):
    assert want in ops, (want, ops)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_variable_slices_reference.py "
           "with TensorFlow %s: the results after %d runs of `train`."
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
