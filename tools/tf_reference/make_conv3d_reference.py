#!/usr/bin/env python3
"""TensorFlow 2.21's values for Conv3D, Conv3DBackpropInputV2 and
Conv3DBackpropFilterV2: SAME and VALID, strides, dilations, float32 and
float64, tf.nn.conv3d_transpose and the gradients tf.gradients writes
through Conv3D.

Writes tests/testdata/tf_conv3d/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/conv3d_test.cc.

Run: python3 tools/tf_reference/make_conv3d_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_conv3d")

rng = np.random.RandomState(13)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "x": uniform(2, 5, 6, 7, 3),
    "w": uniform(3, 2, 3, 3, 4),
    "w1": uniform(1, 1, 1, 3, 2),
    "xt": uniform(1, 3, 3, 3, 4),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  cases = {}
  for name, x, w, strides, pad, dil in [
      ("same", p["x"], p["w"], [1, 1, 1, 1, 1], "SAME", None),
      ("valid_s", p["x"], p["w"], [1, 2, 1, 2, 1], "VALID", None),
      ("same_s2", p["x"], p["w"], [1, 2, 2, 2, 1], "SAME", None),
      ("dil_same", p["x"], p["w"], [1, 1, 1, 1, 1], "SAME", [1, 2, 1, 2, 1]),
      ("dil_valid", p["x"], p["w"], [1, 1, 1, 1, 1], "VALID",
       [1, 1, 2, 2, 1]),
      ("pointwise", p["x"], p["w1"], [1, 1, 2, 1, 1], "VALID", None),
      ("f64", f64(p["x"]), f64(p["w"]), [1, 1, 2, 1, 1], "SAME", None),
  ]:
    y = tf.nn.conv3d(x, w, strides, pad, dilations=dil)
    cases["Conv3D_" + name] = y
    g = tf.constant(uniform(*y.shape.as_list()))
    if name == "f64":
      g = f64(g)
    dx, dw = tf.gradients(tf.reduce_sum(y * g), [x, w])
    cases["Conv3D_%s_dx" % name] = dx
    cases["Conv3D_%s_dw" % name] = dw
  cases["Conv3DTranspose"] = tf.nn.conv3d_transpose(
      p["xt"], p["w"][:, :, :, :, :], [1, 6, 6, 6, 3], [1, 2, 2, 2, 1],
      "SAME")
  cases["Conv3DTranspose_i64_sizes"] = tf.raw_ops.Conv3DBackpropInputV2(
      input_sizes=tf.constant([1, 7, 7, 7, 3], tf.int64), filter=p["w"],
      out_backprop=p["xt"], strides=[1, 2, 2, 2, 1], padding="VALID")
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
           "make_conv3d_reference.py with TensorFlow %s." %
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
