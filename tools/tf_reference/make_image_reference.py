"""Writes graphs of tf.image's ops, made by TensorFlow 2.21 in TF1 graph
mode, and TensorFlow's values for them: tests/testdata/tf_images/.

  <name>.pb        the GraphDef: placeholder `x` (float), output `out`
  <name>.ops.txt   its sorted op types, one per line
  <name>.x.npy     the value fed to x
  <name>.out.npy   TensorFlow's `out` for RUNS successive runs of one
                   session, stacked on a new first dimension (random ops
                   continue their streams from run to run)

Random ops carry fixed (graph seed, op seed), so their attrs seed/seed2 are
in the GraphDef and dflow's Philox streams can be compared with
TensorFlow's value for value. Control flow is TF1's (Switch/Merge) as in
the CIFAR-10 seed's graphs; flip_v2 keeps the functional StatelessIf that
TensorFlow 2's default writes.

Models (x shape -> out):
  reverse            tf.reverse(x, [0, 2])              [2,3,4]
  reverse_grad       d/dx sum(reverse(x, [1]) * w)      [2,3,4]
  adjust_contrast    tf.image.adjust_contrast(x, 1.7)   [2,5,7,3]
  resize_<mode>      tf.compat.v1.image.resize_bilinear to [8,11] and [3,4]
                     (legacy, align_corners, half_pixel)  [2,5,7,3]
  resize_grad_<mode> d/dx sum(resize_bilinear(x) * w)    [2,5,7,3]
  standardize        per_image_standardization          [6,5,3]
  brightness         random_brightness(x, 63)           [6,5,3]
  contrast           random_contrast(x, 0.2, 1.8)       [6,5,3]
  flip, flip_v2      random_flip_left_right             [6,5,3]
  crop               tf.compat.v1.random_crop(x, [4,3,3])  [6,5,3]
  uniform_int32      float(RandomUniformInt [7] on [-5, 1000)) + x[0]  [2]
  uniform_int64      float64(RandomUniformInt int64 [5] on [-2^40, 2^41))
                     (x unused)                         [2]
  distort            the CIFAR-10 seed's distorted_inputs chain on one
                     image: crop 24x24, flip, brightness 63, contrast
                     0.2..1.8, per-image standardization   [32,32,3]

Run: python3 tools/tf_reference/make_image_reference.py
"""
import os

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_images")
RUNS = 3


def image(shape, seed):
  # Pixel-like values with fractions, so rounding differences would show.
  rng = np.random.RandomState(seed)
  return (rng.uniform(0, 255, size=shape)).astype(np.float32)


def weights(shape):
  n = int(np.prod(shape))
  return np.linspace(-1.0, 2.0, n, dtype=np.float32).reshape(shape)


def resize_fn(size, mode):
  kw = {"align_corners": mode == "align_corners",
        "half_pixel_centers": mode == "half_pixel"}
  return lambda x: tf1.image.resize_bilinear(x, size, **kw)


def resize_grad_fn(size, mode):
  def fn(x):
    y = resize_fn(size, mode)(x)
    return tf.gradients(tf.reduce_sum(y * weights([2] + size + [3])), x)[0]
  return fn


def reverse_grad(x):
  y = tf.reverse(x, [1])
  return tf.gradients(tf.reduce_sum(y * weights([2, 3, 4])), x)[0]


def distort(x):
  # cifar10_input.distorted_inputs, for one image.
  y = tf1.random_crop(x, [24, 24, 3], seed=11)
  y = tf.image.random_flip_left_right(y, seed=12)
  y = tf.image.random_brightness(y, max_delta=63, seed=13)
  y = tf.image.random_contrast(y, lower=0.2, upper=1.8, seed=14)
  return tf.image.per_image_standardization(y)


MODELS = [
    ("reverse", [2, 3, 4], lambda x: tf.reverse(x, [0, 2]), True),
    ("reverse_grad", [2, 3, 4], reverse_grad, True),
    ("adjust_contrast", [2, 5, 7, 3],
     lambda x: tf.image.adjust_contrast(x, 1.7), True),
    ("standardize", [6, 5, 3], tf.image.per_image_standardization, True),
    ("brightness", [6, 5, 3],
     lambda x: tf.image.random_brightness(x, 63, seed=5), True),
    ("contrast", [6, 5, 3],
     lambda x: tf.image.random_contrast(x, 0.2, 1.8, seed=6), True),
    ("flip", [6, 5, 3],
     lambda x: tf.image.random_flip_left_right(x, seed=7), True),
    ("flip_v2", [6, 5, 3],
     lambda x: tf.image.random_flip_left_right(x, seed=7), False),
    ("crop", [6, 5, 3], lambda x: tf1.random_crop(x, [4, 3, 3], seed=8), True),
    ("uniform_int32", [2],
     lambda x: tf.cast(tf.random.uniform([7], -5, 1000, tf.int32, seed=9),
                       tf.float32) + x[0], True),
    ("uniform_int64", [2],
     lambda x: tf.cast(tf.random.uniform([5], -(1 << 40), 1 << 41, tf.int64,
                                         seed=10), tf.float64), True),
    ("distort", [32, 32, 3], distort, True),
]
for mode in ("legacy", "align_corners", "half_pixel"):
  for tag, size in (("up", [8, 11]), ("down", [3, 4])):
    MODELS.append(("resize_%s_%s" % (mode, tag), [2, 5, 7, 3],
                   resize_fn(size, mode), True))
  MODELS.append(("resize_grad_%s" % mode, [2, 5, 7, 3],
                 resize_grad_fn([8, 11], mode), True))


def write(name, shape, fn, v1_control_flow, seed):
  if v1_control_flow:
    tf1.disable_control_flow_v2()
  else:
    tf1.enable_control_flow_v2()
  g = tf.Graph()
  with g.as_default():
    tf1.set_random_seed(1234)
    x = tf1.placeholder(tf.float32, shape, name="x")
    tf.identity(fn(x), name="out")
  value = image(shape, seed)
  with tf1.Session(graph=g) as sess:
    outs = [sess.run("out:0", {"x:0": value}) for _ in range(RUNS)]
  gd = g.as_graph_def()
  with open(os.path.join(OUT, name + ".pb"), "wb") as f:
    f.write(gd.SerializeToString(deterministic=True))
  ops = sorted({n.op for n in gd.node} |
               {n.op for fn_def in gd.library.function for n in fn_def.node_def})
  with open(os.path.join(OUT, name + ".ops.txt"), "w") as f:
    f.write("\n".join(ops) + "\n")
  np.save(os.path.join(OUT, name + ".x.npy"), value)
  np.save(os.path.join(OUT, name + ".out.npy"), np.stack(outs))


def main():
  tf1.disable_eager_execution()
  os.makedirs(OUT, exist_ok=True)
  for i, (name, shape, fn, v1) in enumerate(MODELS):
    write(name, shape, fn, v1, seed=100 + i)
    print("wrote", name)


if __name__ == "__main__":
  main()
