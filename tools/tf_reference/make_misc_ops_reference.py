#!/usr/bin/env python3
"""TensorFlow 2.21's values for ops the op probe found missing in session 14
that no other reference covers: UniqueWithCounts, Erfinv, Ndtri,
EuclideanNorm, Diag, DiagPart, LowerBound/UpperBound (tf.searchsorted),
Bucketize (Keras's Discretization, feature columns' bucketized_column),
FusedBatchNormV3 and its gradient on float16 and bfloat16 (mixed precision),
Print (tf.compat.v1.Print passes its input on) and Mul/AddV2/Sub of uint8,
uint16 and int8 (tf.image.convert_image_dtype).

Writes tests/testdata/tf_misc_ops/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/misc_ops_test.cc.

Run: python3 tools/tf_reference/make_misc_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_misc_ops")

rng = np.random.RandomState(5)

FEEDS = {
    "ids": np.array([4, 1, 4, 7, 1, 4, 0], np.int32),
    "fl": np.array([0.5, -1.0, 0.5, 2.0, -0.0, 0.0], np.float32),
    "p": np.array([-0.999, -0.5, 0.0, 0.25, 0.9, 0.999999], np.float32),
    "q": np.array([1e-6, 0.01, 0.3, 0.5, 0.7, 0.99], np.float64),
    "m": np.round(rng.uniform(-2, 2, (3, 4, 5)), 3).astype(np.float32),
    "d": np.array([1.5, -2.0, 3.0], np.float32),
    "d2": np.arange(6, dtype=np.int32).reshape(2, 3),
    "sorted": np.array([[0.0, 1.0, 1.0, 3.0, 7.0], [-2.0, -1.0, 0.0, 0.0, 5.0]],
                       np.float32),
    "vals": np.array([[1.0, -1.0, 8.0], [0.0, 5.0, -3.0]], np.float32),
    "sorted1": np.array([1, 3, 3, 9], np.int64),
    "vals1": np.array([0, 3, 4, 10, 9], np.int64),
    "img8": np.array([[0, 17, 255], [128, 3, 64]], np.uint8),
    "img16": np.array([0, 300, 65535], np.uint16),
    "i8": np.array([-128, -1, 0, 5, 127], np.int8),
    "bn_x": np.round(rng.uniform(-2, 2, (2, 3, 3, 4)), 3).astype(np.float32),
    "bn_dy": np.round(rng.uniform(-1, 1, (2, 3, 3, 4)), 3).astype(np.float32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  cases = {}
  y, idx, count = tf.unique_with_counts(p["ids"])
  cases["uwc_y"], cases["uwc_idx"], cases["uwc_count"] = y, idx, count
  y64, idx64, count64 = tf.unique_with_counts(p["fl"], out_idx=tf.int64)
  cases["uwc_f_y"], cases["uwc_f_idx"], cases["uwc_f_count"] = (y64, idx64,
                                                                count64)
  cases["erfinv"] = tf.math.erfinv(p["p"])
  cases["ndtri"] = tf.math.ndtri(p["q"])
  cases["ndtri_f32"] = tf.math.ndtri(tf.cast(p["q"], tf.float32))
  cases["norm_all"] = tf.norm(p["m"])
  cases["norm_axis"] = tf.norm(p["m"], axis=1)
  cases["norm_keep"] = tf.norm(p["m"], axis=[0, 2], keepdims=True)
  cases["norm_f64"] = tf.norm(tf.cast(p["m"], tf.float64), axis=-1)
  cases["diag"] = tf.linalg.tensor_diag(p["d"])
  cases["diag2"] = tf.linalg.tensor_diag(p["d2"])
  cases["diag_part"] = tf.linalg.tensor_diag_part(
      tf.linalg.tensor_diag(p["d2"]))
  cases["diag_part_grad"] = tf.gradients(
      tf.reduce_sum(tf.linalg.tensor_diag(p["d"]) * tf.reshape(
          tf.range(9.0), [3, 3])), p["d"])[0]
  cases["lower"] = tf.searchsorted(p["sorted"], p["vals"], side="left")
  cases["upper"] = tf.searchsorted(p["sorted"], p["vals"], side="right")
  cases["lower64"] = tf.searchsorted(p["sorted1"], p["vals1"], side="left",
                                     out_type=tf.int64)
  cases["upper64"] = tf.searchsorted(p["sorted1"], p["vals1"], side="right")
  # Bucketize: values on, between and outside the boundaries, each dtype.
  bounds = [-1.0, 0.0, 0.5, 3.0]
  cases["bucketize"] = tf.raw_ops.Bucketize(input=p["vals"], boundaries=bounds)
  cases["bucketize_i64"] = tf.raw_ops.Bucketize(input=p["vals1"],
                                                boundaries=[0.5, 3.0, 9.5])
  cases["bucketize_f64"] = tf.raw_ops.Bucketize(
      input=tf.cast(p["vals"], tf.float64) + 1e-9, boundaries=bounds)
  cases["bucketize_i32"] = tf.raw_ops.Bucketize(input=p["d2"],
                                                boundaries=[1.0, 1.5, 4.0])
  cases["bucketize_empty"] = tf.raw_ops.Bucketize(input=p["vals"],
                                                  boundaries=[])
  # Batch normalization of half and bfloat16 x (float statistics), in
  # training and inference, with the gradient tf.gradients writes; outputs
  # cast to float32 for the comparison.
  scale = tf.constant([1.5, 0.5, 1.0, 2.0])
  offset = tf.constant([0.1, -0.2, 0.0, 0.3])
  for name, dt in (("f16", tf.float16), ("bf16", tf.bfloat16)):
    xh = tf.cast(p["bn_x"], dt)
    y, bm, bv = tf1.nn.fused_batch_norm(xh, scale, offset, epsilon=1e-3)
    cases["bn_%s_train" % name] = tf.cast(y, tf.float32)
    cases["bn_%s_mean" % name] = bm
    cases["bn_%s_var" % name] = bv
    dx, dscale = tf.gradients(y, [xh, scale], tf.cast(p["bn_dy"], dt))
    cases["bn_%s_dx" % name] = tf.cast(dx, tf.float32)
    cases["bn_%s_dscale" % name] = dscale
    yi, _, _ = tf1.nn.fused_batch_norm(xh, scale, offset, mean=bm, variance=bv,
                                       epsilon=1e-3, is_training=False)
    cases["bn_%s_infer" % name] = tf.cast(yi, tf.float32)
  cases["print"] = tf1.Print(p["d"] * 2.0, [p["d"], p["ids"]],
                             message="d and ids: ", summarize=4) + 1.0
  cases["img8_to_float"] = tf.image.convert_image_dtype(p["img8"], tf.float32)
  cases["img16_to_8"] = tf.image.convert_image_dtype(p["img16"], tf.uint8)
  cases["img8_to_16"] = tf.image.convert_image_dtype(p["img8"], tf.uint16)
  cases["u8_arith"] = p["img8"] * tf.constant(3, tf.uint8) + tf.constant(
      7, tf.uint8) - tf.constant(1, tf.uint8)
  cases["i8_mul"] = p["i8"] * tf.constant(3, tf.int8)
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
  lines = ["# Written by tools/tf_reference/make_misc_ops_reference.py "
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
