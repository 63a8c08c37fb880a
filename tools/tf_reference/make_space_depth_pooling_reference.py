#!/usr/bin/env python3
"""TensorFlow 2.21's values for SpaceToDepth, DepthToSpace,
MaxPoolWithArgmax, MaxPoolGradWithArgmax, MaxPool3D, AvgPool3D,
MaxPool3DGrad and AvgPool3DGrad, and the gradients tf.gradients writes
through them.

Writes tests/testdata/tf_space_depth_pooling/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/space_depth_pooling_test.cc.

Run: python3 tools/tf_reference/make_space_depth_pooling_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_space_depth_pooling")

rng = np.random.RandomState(11)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    # SpaceToDepth / DepthToSpace.
    "s4": uniform(2, 4, 6, 3),
    "s6i": np.arange(36, dtype=np.int32).reshape(1, 6, 3, 2),
    "d12": uniform(2, 2, 3, 12),
    "d18l": np.arange(2 * 1 * 2 * 18, dtype=np.int64).reshape(2, 1, 2, 18) - 9,
    # MaxPoolWithArgmax: random values, and one with ties.
    "p": uniform(2, 5, 6, 3),
    "ties": np.array([[1, 3, 3, 0], [3, 2, 3, 3], [0, 0, 1, 1],
                      [5, 5, 5, 5]], np.float32).reshape(1, 4, 4, 1),
    "pi": rng.randint(-20, 20, (1, 4, 5, 2)).astype(np.int32),
    # 3-D pooling.
    "v": uniform(2, 4, 5, 6, 3),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  cases = {}
  # Space <-> depth, with the gradient of each (the other op).
  s2d = R.SpaceToDepth(input=p["s4"], block_size=2)
  cases["S2D_b2"] = s2d
  cases["S2D_b3_i32"] = R.SpaceToDepth(input=p["s6i"], block_size=3)
  cases["S2D_f64"] = tf.nn.space_to_depth(f64(p["s4"]), 2)
  d2s = R.DepthToSpace(input=p["d12"], block_size=2)
  cases["D2S_b2"] = d2s
  cases["D2S_b3_i64"] = R.DepthToSpace(input=p["d18l"], block_size=3)
  w_s = tf.constant(uniform(2, 2, 3, 12))
  cases["S2D_grad"] = tf.gradients(tf.reduce_sum(s2d * w_s), p["s4"])[0]
  w_d = tf.constant(uniform(2, 4, 6, 3))
  cases["D2S_grad"] = tf.gradients(tf.reduce_sum(d2s * w_d), p["d12"])[0]
  cases["S2D_roundtrip"] = tf.nn.depth_to_space(
      tf.nn.space_to_depth(p["s4"], 2), 2)
  # MaxPoolWithArgmax and the gradient TF writes for it.
  for name, x, ksize, strides, pad, batch, idx in [
      ("same_k2s2", "p", 2, 2, "SAME", False, tf.int64),
      ("valid_k3s2_batch", "p", 3, 2, "VALID", True, tf.int64),
      ("same_k3s1_i32", "p", [3, 2], 1, "SAME", False, tf.int32),
      ("ties_k2s1", "ties", 2, 1, "VALID", False, tf.int64),
      ("int_k2s2", "pi", 2, 2, "SAME", True, tf.int32),
  ]:
    out, argmax = tf.nn.max_pool_with_argmax(
        p[x], ksize, strides, pad, output_dtype=idx,
        include_batch_in_index=batch)
    cases["MPA_%s_out" % name] = out
    cases["MPA_%s_argmax" % name] = argmax
    # TensorFlow's CPU MaxPoolGradWithArgmax takes int64 argmax only.
    if x != "pi" and idx == tf.int64:
      w = tf.constant(uniform(*out.shape.as_list()))
      cases["MPA_%s_grad" % name] = tf.gradients(
          tf.reduce_sum(out * w), p[x])[0]
  out, argmax = tf.nn.max_pool_with_argmax(f64(p["p"]), 2, 2, "VALID")
  cases["MPA_f64_out"] = out
  cases["MPA_f64_argmax"] = argmax
  cases["MPA_f64_grad"] = tf.gradients(tf.reduce_sum(out * out), p["p"])[0]
  # 3-D pooling and the gradients TF writes for it.
  for name, ksize, strides, pad in [
      ("k2s2_same", 2, 2, "SAME"),
      ("k3s2_valid", 3, 2, "VALID"),
      ("k232s1_same", [2, 3, 2], 1, "SAME"),
      ("k3s3_same", 3, [3, 2, 3], "SAME"),
  ]:
    for kind, fn in [("Max", tf.nn.max_pool3d), ("Avg", tf.nn.avg_pool3d)]:
      out = fn(p["v"], ksize, strides, pad)
      cases["%sPool3D_%s" % (kind, name)] = out
      w = tf.constant(uniform(*out.shape.as_list()))
      cases["%sPool3D_%s_grad" % (kind, name)] = tf.gradients(
          tf.reduce_sum(out * w), p["v"])[0]
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
  lines = ["# Written by tools/tf_reference/"
           "make_space_depth_pooling_reference.py with TensorFlow %s." %
           tf.__version__]
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
