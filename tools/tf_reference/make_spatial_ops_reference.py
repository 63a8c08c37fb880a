#!/usr/bin/env python3
"""TensorFlow 2.21's values for SpaceToBatchND, BatchToSpaceND,
DepthwiseConv2dNative (and its BackpropInput/BackpropFilter), MirrorPad,
MirrorPadGrad, PadV2, ResizeNearestNeighbor and ResizeNearestNeighborGrad.

Writes tests/testdata/tf_spatial_ops/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, the ops as TensorFlow's own Python writes them
                (tf.nn.conv1d / convolution / depthwise_conv2d with
                dilations write SpaceToBatchND and BatchToSpaceND around the
                convolution) and tf.gradients through them (which writes the
                gradient ops), each result named out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/spatial_ops_test.cc.

Run: python3 tools/tf_reference/make_spatial_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_spatial_ops")

rng = np.random.RandomState(11)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    # SpaceToBatchND / BatchToSpaceND: 2 block dims and a depth, 1 block dim
    # with two trailing dims, int32 data, int64 block and paddings.
    "sb_x": uniform(2, 4, 6, 3),
    "sb_y": uniform(8, 2, 3, 2),
    "sb_x3": uniform(3, 5, 2, 2),
    "sb_i": np.arange(2 * 3 * 4, dtype=np.int32).reshape(2, 3, 4),
    # Dilated conv1d / convolution (SpaceToBatchND around a Conv2D).
    "c1_x": uniform(2, 11, 3),
    "c1_w": uniform(3, 3, 4),
    # Depthwise: multiplier 2, and 1.
    "dw_x": uniform(2, 7, 8, 3),
    "dw_w": uniform(3, 3, 3, 2),
    "dw_w1": uniform(2, 3, 3, 1),
    # Pads.
    "p_x": uniform(2, 3, 4),
    "p_i": np.arange(12, dtype=np.int32).reshape(3, 4) - 5,
    "p_c": np.array(-1.5, np.float32),
    # Nearest-neighbour resizing.
    "r_x": uniform(2, 5, 7, 2),
    "r_i": np.arange(2 * 3 * 4, dtype=np.int32).reshape(1, 3, 4, 2),
}


# Case name -> the tensor whose value is its reference (see build()).
REFERENCE_OF = {}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  weights = {}

  def weighted(name, t):
    # A fixed weight per element so that gradients differ per position.
    w = np.round(rng.uniform(-1.0, 1.0, t.shape.as_list()), 2)
    weights[name] = w
    return tf.reduce_sum(t * tf.constant(w, t.dtype))

  cases = {}
  # --- SpaceToBatchND / BatchToSpaceND. ---
  cases["S2B_2d"] = tf.space_to_batch_nd(p["sb_x"], [2, 3], [[1, 1], [0, 3]])
  cases["S2B_1d"] = tf.space_to_batch_nd(
      tf.reshape(p["sb_x"], [2, 24, 3]), [4], [[2, 2]])
  cases["S2B_inner"] = R.SpaceToBatchND(
      input=p["sb_x3"], block_shape=tf.constant([2], tf.int64),
      paddings=tf.constant([[1, 0]], tf.int64))
  cases["S2B_int"] = tf.space_to_batch_nd(p["sb_i"], [2, 2], [[0, 1], [1, 1]])
  cases["B2S_2d"] = tf1.batch_to_space_nd(p["sb_y"], [2, 2], [[0, 1], [1, 0]])
  cases["B2S_int64"] = R.BatchToSpaceND(
      input=p["sb_y"], block_shape=tf.constant([4, 2], tf.int64),
      crops=tf.constant([[1, 2], [0, 0]], tf.int64))
  cases["B2S_int"] = tf1.batch_to_space_nd(p["sb_i"], [2], [[1, 0]])
  cases["S2B_grad"] = tf.gradients(
      weighted("s2b", cases["S2B_2d"]), p["sb_x"])[0]
  cases["B2S_grad"] = tf.gradients(
      weighted("b2s", cases["B2S_2d"]), p["sb_y"])[0]
  # --- Dilated convolutions as TensorFlow writes them. ---
  c1 = tf.nn.conv1d(p["c1_x"], p["c1_w"], 1, "VALID", dilations=2)
  cases["Conv1d_dilated"] = c1
  conv = tf.nn.convolution(p["c1_x"], p["c1_w"], padding="SAME",
                           dilations=[3])
  cases["Convolution_dilated"] = conv
  cases["Conv1d_dilated_dx"], cases["Conv1d_dilated_dw"] = tf.gradients(
      weighted("c1", c1) + weighted("conv", conv), [p["c1_x"], p["c1_w"]])
  # --- Depthwise convolution. ---
  dw_same = tf.nn.depthwise_conv2d(p["dw_x"], p["dw_w"], [1, 1, 1, 1], "SAME")
  dw_valid_s2 = tf.nn.depthwise_conv2d(p["dw_x"], p["dw_w"], [1, 2, 2, 1],
                                       "VALID")
  dw_rate = tf.nn.depthwise_conv2d(p["dw_x"], p["dw_w"], [1, 1, 1, 1],
                                   "SAME", dilations=[2, 2])
  dw_native = R.DepthwiseConv2dNative(
      input=p["dw_x"], filter=p["dw_w1"], strides=[1, 1, 1, 1],
      padding="SAME", dilations=[1, 1, 2, 1])
  dw_explicit = R.DepthwiseConv2dNative(
      input=p["dw_x"], filter=p["dw_w"], strides=[1, 3, 3, 1],
      padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0])
  dw_f64 = tf.nn.depthwise_conv2d(f64(p["dw_x"]), f64(p["dw_w"]),
                                  [1, 2, 2, 1], "SAME")
  cases.update(DW_same=dw_same, DW_valid_s2=dw_valid_s2, DW_rate=dw_rate,
               DW_native_dil=dw_native, DW_explicit=dw_explicit,
               DW_f64=dw_f64)
  loss = (weighted("dw_same", dw_same) + weighted("dw_valid", dw_valid_s2) +
          weighted("dw_rate", dw_rate) + weighted("dw_explicit", dw_explicit))
  cases["DW_grad_x"], cases["DW_grad_w"] = tf.gradients(
      loss, [p["dw_x"], p["dw_w"]])
  # TensorFlow's CPU gradient kernels ignore the dilations attr (its Python
  # gradient passes it on), so the gradient ops with dilations are written
  # here directly, and their reference values are the gradients of the same
  # convolution as tf.nn.depthwise_conv2d computes it (SpaceToBatchND around
  # an undilated convolution): REFERENCE_OF maps one to the other.
  dy = tf.constant(np.round(rng.uniform(-1.0, 1.0, dw_native.shape), 2),
                   tf.float32)
  native_attrs = dict(strides=[1, 1, 1, 1], padding="SAME",
                      dilations=[1, 1, 2, 1])
  cases["DW_native_grad_x"] = R.DepthwiseConv2dNativeBackpropInput(
      input_sizes=tf.shape(p["dw_x"]), filter=p["dw_w1"], out_backprop=dy,
      **native_attrs)
  cases["DW_native_grad_w"] = R.DepthwiseConv2dNativeBackpropFilter(
      input=p["dw_x"], filter_sizes=tf.shape(p["dw_w1"]), out_backprop=dy,
      **native_attrs)
  via_s2b = tf.nn.depthwise_conv2d(p["dw_x"], p["dw_w1"], [1, 1, 1, 1],
                                   "SAME", dilations=[1, 2])
  REFERENCE_OF["DW_native_grad_x"], REFERENCE_OF["DW_native_grad_w"] = (
      tf.gradients(tf.reduce_sum(via_s2b * dy), [p["dw_x"], p["dw_w1"]]))
  cases["DW_f64_grad_w"] = tf.gradients(weighted("dw_f64", dw_f64),
                                        p["dw_w"])[0]
  # --- Pads. ---
  reflect = tf.pad(p["p_x"], [[1, 1], [2, 2], [3, 3]], mode="REFLECT")
  symmetric = tf.pad(p["p_x"], [[1, 1], [3, 3], [4, 4]], mode="SYMMETRIC")
  cases["MirrorPad_reflect"] = reflect
  cases["MirrorPad_symmetric"] = symmetric
  cases["MirrorPad_int_int64"] = R.MirrorPad(
      input=p["p_i"], paddings=tf.constant([[2, 0], [1, 3]], tf.int64),
      mode="REFLECT")
  cases["MirrorPad_reflect_grad"] = tf.gradients(
      weighted("reflect", reflect), p["p_x"])[0]
  cases["MirrorPad_symmetric_grad"] = tf.gradients(
      weighted("symmetric", symmetric), p["p_x"])[0]
  cases["MirrorPadGrad_int"] = R.MirrorPadGrad(
      input=p["p_i"], paddings=tf.constant([[1, 0], [1, 1]]),
      mode="SYMMETRIC")
  padv2 = tf.pad(p["p_x"], [[1, 0], [0, 2], [1, 1]], constant_values=-1.5)
  cases["PadV2"] = padv2
  cases["PadV2_fed"] = R.PadV2(input=p["p_x"],
                               paddings=[[0, 1], [1, 0], [2, 0]],
                               constant_values=p["p_c"])
  cases["PadV2_int"] = tf.pad(p["p_i"], [[0, 1], [2, 0]], constant_values=7)
  cases["PadV2_grad"] = tf.gradients(weighted("padv2", padv2), p["p_x"])[0]
  # --- Nearest-neighbour resizing, up and down. ---
  resize = tf1.image.resize_nearest_neighbor
  for name, size, kw in [("up", [9, 11], {}),
                         ("up_ac", [9, 11], dict(align_corners=True)),
                         ("up_hp", [9, 11], dict(half_pixel_centers=True)),
                         ("down", [4, 3], {}),
                         ("down_ac", [4, 3], dict(align_corners=True)),
                         ("down_hp", [3, 4], dict(half_pixel_centers=True))]:
    r = resize(p["r_x"], size, **kw)
    cases["Resize_" + name] = r
    cases["Resize_%s_grad" % name] = tf.gradients(
        weighted("resize_" + name, r), p["r_x"])[0]
  cases["Resize_int"] = resize(p["r_i"], [6, 5])
  cases["Resize_f64_hp"] = resize(f64(p["r_x"]), [8, 8],
                                  half_pixel_centers=True)
  cases["ResizeGrad_int"] = R.ResizeNearestNeighborGrad(
      grads=p["r_i"], size=[2, 3], align_corners=True)
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      feeds = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
      values = s.run(outs, feeds)
      values.update(s.run(REFERENCE_OF, feeds))
  ops = {n.op for n in g.as_graph_def().node}
  for want in ["SpaceToBatchND", "BatchToSpaceND", "DepthwiseConv2dNative",
               "DepthwiseConv2dNativeBackpropInput",
               "DepthwiseConv2dNativeBackpropFilter", "MirrorPad",
               "MirrorPadGrad", "PadV2", "ResizeNearestNeighbor",
               "ResizeNearestNeighborGrad"]:
    assert want in ops, want
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_spatial_ops_reference.py "
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
