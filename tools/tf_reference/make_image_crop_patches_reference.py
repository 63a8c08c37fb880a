#!/usr/bin/env python3
"""TensorFlow 2.21's values for CropAndResize, CropAndResizeGradImage and
ExtractImagePatches: bilinear and nearest crops of boxes inside, across and
outside the image (extrapolation), flipped and one-pixel crops, the image
gradient tf.gradients writes, and patches with strides, rates and
SAME/VALID padding of float, double and int32 images.

Writes tests/testdata/tf_image_crop_patches/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/image_crop_patches_test.cc.

Run: python3 tools/tf_reference/make_image_crop_patches_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_image_crop_patches")

rng = np.random.RandomState(19)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "img": uniform(2, 6, 7, 3),
    "img_i32": rng.randint(-50, 50, (2, 5, 5, 2)).astype(np.int32),
    "boxes": np.array([[0.1, 0.2, 0.8, 0.9], [0.0, 0.0, 1.0, 1.0],
                       [-0.2, 0.3, 0.6, 1.3], [0.9, 0.8, 0.1, 0.2],
                       [0.5, 0.5, 0.5, 0.5]], np.float32),
    "box_ind": np.array([0, 1, 1, 0, 1], np.int32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  cases = {}
  img, boxes, ind = p["img"], p["boxes"], p["box_ind"]
  for name, size, method, extra in [
      ("bilinear", [4, 5], "bilinear", 0.0),
      ("nearest", [3, 4], "nearest", 0.0),
      ("extrapolate", [5, 3], "bilinear", -1.5),
      ("one_pixel", [1, 1], "bilinear", 0.0),
  ]:
    y = tf.image.crop_and_resize(img, boxes, ind, size, method=method,
                                 extrapolation_value=extra)
    cases["Crop_" + name] = y
    w = tf.constant(uniform(*y.shape.as_list()))
    cases["Crop_%s_grad" % name] = tf.gradients(tf.reduce_sum(y * w), img)[0]
  cases["Crop_i32"] = tf.image.crop_and_resize(p["img_i32"], boxes, ind,
                                               [3, 3])
  cases["Crop_f64"] = tf.image.crop_and_resize(f64(img), boxes, ind, [2, 3])
  cases["CropGrad_f64"] = R.CropAndResizeGradImage(
      grads=tf.constant(uniform(5, 2, 3, 3)), boxes=boxes, box_ind=ind,
      image_size=[2, 6, 7, 3], T=tf.float64)
  for name, x, k, s, r, pad in [
      ("k2_s1_valid", img, 2, 1, 1, "VALID"),
      ("k3_s2_same", img, 3, 2, 1, "SAME"),
      ("k2x3_rate2_same", img, [2, 3], [1, 2], 2, "SAME"),
      ("k2_s3_rate2_valid", img, 2, 3, [2, 1], "VALID"),
      ("i32", p["img_i32"], 2, 2, 1, "SAME"),
      ("f64", f64(img), 3, 1, 1, "VALID"),
  ]:
    pair = lambda v: [1, v, v, 1] if isinstance(v, int) else [1] + v + [1]
    cases["Patches_" + name] = tf.image.extract_patches(
        x, pair(k), pair(s), pair(r), pad)
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
           "make_image_crop_patches_reference.py with TensorFlow %s." %
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
