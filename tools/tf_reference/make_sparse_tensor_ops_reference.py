#!/usr/bin/env python3
"""TensorFlow 2.21's values for SparseToDense, SparseReshape,
SparseFillEmptyRows (alone and as tf.nn.embedding_lookup_sparse and
safe_embedding_lookup_sparse write them), MulNoNan (and its gradients),
Snapshot, EnsureShape and Empty.

Writes tests/testdata/tf_sparse_tensor_ops/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values (see
                tests/kernels/tf_value_cases.h for the format)
Read by tests/kernels/sparse_tensor_ops_test.cc.

Run: python3 tools/tf_reference/make_sparse_tensor_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_sparse_tensor_ops")

rng = np.random.RandomState(3)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "params": uniform(10, 4),
    # A batch of 4 bags; bag 3 is empty (safe_embedding_lookup_sparse fills
    # it), id 7 appears twice.
    "sp_idx": np.array([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                       np.int64),
    "sp_ids": np.array([1, 7, 9, 0, 7, 4], np.int64),
    "sp_w": np.array([1.0, 2.0, 0.5, 1.0, 3.0, -1.0], np.float32),
    "sp_shape": np.array([4, 3], np.int64),
    # SparseToDense.
    "d_idx": np.array([[0, 1], [1, 3], [2, 0]], np.int32),
    "d_idx64": np.array([[2, 2], [0, 0]], np.int64),
    "d_vals": np.array([1.5, -2.0, 3.25], np.float32),
    "d_shape": np.array([3, 4], np.int32),
    "d_shape64": np.array([3, 3], np.int64),
    "d_default": np.array(-1.0, np.float32),
    "d_vec_idx": np.array([4, 0, 2], np.int32),
    # SparseReshape / SparseFillEmptyRows on a rank-3 SparseTensor.
    "r_idx": np.array([[0, 0, 1], [1, 2, 0], [3, 1, 1], [3, 2, 0]],
                      np.int64),
    "r_vals": np.array([10, 20, 30, 40], np.int32),
    "r_shape": np.array([5, 3, 2], np.int64),
    # MulNoNan: zeros against inf and nan.
    "mx": np.array([[1.0, np.inf, np.nan], [-2.0, 3.0, 0.5]], np.float32),
    "my": np.array([[0.0, 0.0, 0.0], [2.0, -1.0, 0.0]], np.float32),
    "my_row": np.array([0.5, 0.0, 2.0], np.float32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  sp = tf.SparseTensor(p["sp_idx"], p["sp_ids"], p["sp_shape"])
  spw = tf.SparseTensor(p["sp_idx"], p["sp_w"], p["sp_shape"])
  st = tf.SparseTensor(p["r_idx"], p["r_vals"], p["r_shape"])
  params = p["params"]
  cases = {
      "ToDense": R.SparseToDense(sparse_indices=p["d_idx"],
                                 output_shape=p["d_shape"],
                                 sparse_values=p["d_vals"],
                                 default_value=p["d_default"]),
      "ToDense_i64_scalar_value": R.SparseToDense(
          sparse_indices=p["d_idx64"], output_shape=p["d_shape64"],
          sparse_values=tf.constant(7, tf.int64),
          default_value=tf.constant(0, tf.int64), validate_indices=False),
      "ToDense_vector_indices": R.SparseToDense(
          sparse_indices=p["d_vec_idx"], output_shape=tf.constant([6]),
          sparse_values=tf.constant([True, True, False]),
          default_value=False, validate_indices=False),
      "ToDense_sparse_tensor": tf.sparse.to_dense(st),
      "MulNoNan": R.MulNoNan(x=p["mx"], y=p["my"]),
      "MulNoNan_bcast": R.MulNoNan(x=p["mx"], y=p["my_row"]),
      "MulNoNan_f64": tf.math.multiply_no_nan(tf.cast(p["mx"], tf.float64),
                                              tf.cast(p["my"], tf.float64)),
      "Snapshot": R.Snapshot(input=p["params"]),
      "EnsureShape": tf.ensure_shape(p["d_vals"], [None]),
      "EnsureShape_full": tf.ensure_shape(p["params"], [10, 4]),
      "Empty_init": R.Empty(shape=tf.constant([2, 3]), dtype=tf.float32,
                            init=True),
  }
  re = tf.sparse.reshape(st, [-1, 6])
  cases["Reshape_indices"] = re.indices
  cases["Reshape_shape"] = re.dense_shape
  re2 = tf.sparse.reshape(st, [15, 2])
  cases["Reshape_2d_indices"] = re2.indices
  filled, empty = tf.sparse.fill_empty_rows(st, -5)
  cases["Fill_indices"] = filled.indices
  cases["Fill_values"] = filled.values
  cases["Fill_empty"] = empty
  out_i, out_v, out_e, rev = R.SparseFillEmptyRows(
      indices=p["sp_idx"], values=p["sp_w"], dense_shape=p["sp_shape"],
      default_value=tf.constant(0.0))
  cases["FillRaw_indices"] = out_i
  cases["FillRaw_values"] = out_v
  cases["FillRaw_empty"] = out_e
  cases["FillRaw_reverse"] = rev
  # The embedding lookups (SparseReshape, SparseFillEmptyRows, Unique,
  # SparseSegment*).
  lookups = {
      "els_mean": tf.nn.embedding_lookup_sparse(params, sp, None,
                                                combiner="mean"),
      "els_sqrtn": tf.nn.embedding_lookup_sparse(params, sp, spw,
                                                 combiner="sqrtn"),
      "els_sum": tf.nn.embedding_lookup_sparse(params, sp, spw,
                                               combiner="sum"),
      "safe_mean": tf.nn.safe_embedding_lookup_sparse(params, sp, spw,
                                                      combiner="mean"),
      "safe_sqrtn_default": tf.nn.safe_embedding_lookup_sparse(
          params, sp, None, combiner="sqrtn", default_id=2),
  }
  # (Their gradients for the table are SparseSegment*GradV2, which dflow
  # does not have yet.)
  cases.update(lookups)
  gx, gy = tf.gradients(tf.reduce_sum(R.MulNoNan(x=p["mx"], y=p["my_row"]) *
                                      tf.constant(uniform(2, 3))),
                        [p["mx"], p["my_row"]])
  cases["MulNoNan_grad_x"] = gx
  cases["MulNoNan_grad_y"] = gy
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in FEEDS.items()})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_sparse_tensor_ops_reference.py "
           "with TensorFlow %s." % tf.__version__]
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
