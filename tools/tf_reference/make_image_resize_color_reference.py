#!/usr/bin/env python3
"""TensorFlow 2.21's values for ResizeBicubic, ResizeBicubicGrad,
ResizeArea, RGBToHSV, HSVToRGB, AdjustHue and AdjustSaturation: bicubic up
and down with legacy, align_corners and half-pixel sampling (tf.image.resize
v1 and v2), the gradients tf.gradients writes through them, area resizing
of float, uint8 and int32 images, and the color conversions and
adjustments of float and double images.

Writes tests/testdata/tf_image_resize_color/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/image_resize_color_test.cc.

Run: python3 tools/tf_reference/make_image_resize_color_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_image_resize_color")

rng = np.random.RandomState(17)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "img": uniform(2, 5, 7, 3),
    # uint8 pixels, fed as int32 (the test's feeds have no uint8) and cast.
    "img_u8": rng.randint(0, 256, (1, 4, 6, 2)).astype(np.int32),
    "img_i32": rng.randint(-50, 50, (1, 5, 3, 1)).astype(np.int32),
    # Colors in [0, 1], with grays and pure primaries.
    "rgb": np.concatenate([
        np.round(rng.uniform(0, 1, (2, 4, 4, 3)), 3).reshape(-1, 3),
        np.array([[0.5, 0.5, 0.5], [0, 0, 0], [1, 0, 0], [0, 1, 0],
                  [0, 0, 1], [1, 1, 0], [0.2, 0.7, 0.7], [0.9, 0.1, 0.9]]),
    ]).astype(np.float32).reshape(2, 5, 4, 3),
    "hsv": np.round(rng.uniform(0, 1, (3, 4, 3)), 3).astype(np.float32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  cases = {}
  img = p["img"]
  img_u8 = tf.cast(p["img_u8"], tf.uint8)
  for name, size, align, half in [
      ("up_legacy", [9, 11], False, False),
      ("down_legacy", [3, 4], False, False),
      ("up_align", [8, 13], True, False),
      ("up_half", [10, 9], False, True),
      ("down_half", [2, 5], False, True),
  ]:
    y = R.ResizeBicubic(images=img, size=size, align_corners=align,
                        half_pixel_centers=half)
    cases["Bicubic_" + name] = y
    w = tf.constant(uniform(*y.shape.as_list()))
    cases["Bicubic_%s_grad" % name] = tf.gradients(tf.reduce_sum(y * w),
                                                   img)[0]
  cases["Bicubic_v2"] = tf.image.resize(img, [6, 12], method="bicubic")
  cases["Bicubic_u8"] = R.ResizeBicubic(images=img_u8, size=[7, 5],
                                        half_pixel_centers=True)
  cases["Bicubic_f64"] = R.ResizeBicubic(images=f64(img), size=[4, 9])
  cases["Bicubic_f64_grad"] = R.ResizeBicubicGrad(
      grads=tf.constant(uniform(2, 4, 9, 3)), original_image=f64(img))
  for name, x, size, align in [
      ("down", img, [2, 3], False),
      ("up", img, [8, 10], False),
      ("odd", img, [3, 5], False),
      ("align", img, [4, 5], True),
      ("u8", img_u8, [3, 4], False),
      ("i32", p["img_i32"], [2, 2], False),
  ]:
    cases["Area_" + name] = R.ResizeArea(images=x, size=size,
                                         align_corners=align)
  cases["Area_v2"] = tf.image.resize(img, [3, 3], method="area")
  rgb = p["rgb"]
  cases["RGBToHSV"] = tf.image.rgb_to_hsv(rgb)
  cases["RGBToHSV_f64"] = tf.image.rgb_to_hsv(f64(rgb))
  cases["HSVToRGB"] = tf.image.hsv_to_rgb(p["hsv"])
  cases["HSVToRGB_f64"] = tf.image.hsv_to_rgb(f64(p["hsv"]))
  cases["HSV_roundtrip"] = tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(rgb))
  for delta in [0.2, -0.45, 0.8]:
    cases["AdjustHue_%g" % delta] = R.AdjustHue(images=rgb, delta=delta)
  for scale in [0.0, 0.5, 1.7]:
    cases["AdjustSaturation_%g" % scale] = R.AdjustSaturation(
        images=rgb, scale=scale)
  cases["AdjustHue_random"] = tf.image.adjust_hue(rgb, 0.31)
  cases["AdjustSaturation_api"] = tf.image.adjust_saturation(rgb, 2.5)
  return {k.replace(".", "p").replace("-", "m"): tf.identity(
      v, name="out_" + k.replace(".", "p").replace("-", "m"))
          for k, v in cases.items()}


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
           "make_image_resize_color_reference.py with TensorFlow %s." %
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
