#!/usr/bin/env python3
"""TensorFlow 2.21's values for the everyday ops of the misc family
(graph/ops/index_ops_more.cc and friends): LinSpace, UnravelIndex, UniqueV2
and UniqueWithCountsV2 (axis), NthElement (and the gradient tf.gradients
writes through it), the v1 TopK (and its gradient) and InTopK, and Mod
(C's % for integers, fmod for floats).

Writes tests/testdata/tf_misc_more/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders, every op applied to them, each result named
                out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line (the format
                of value_cases.py)
Read by tests/kernels/misc_more_ops_test.cc.

Run: python3 tools/tf_reference/make_misc_more_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
R = tf.raw_ops
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_misc_more")

rng = np.random.RandomState(11)

FEEDS = {
    "start": np.array(-1.3, np.float32),
    "stop": np.array(2.7, np.float32),
    "start64": np.array(0.1, np.float64),
    "stop64": np.array(-3.3, np.float64),
    "flat": np.array([0, 5, 11, 23, 7, -1], np.int32),
    "flat64": np.array([0, 59, 60, 119], np.int64),
    # Rows and columns that repeat (axis 0 and axis 1), -0.0 against 0.0.
    "rep": np.array([[1, 2, 1, 2], [3, 4, 3, 5], [1, 2, 1, 2],
                     [0, -0.0, 0, 0.0]], np.float32),
    "rep3": np.array([[[1, 1], [2, 2], [1, 1]], [[5, 5], [6, 6], [5, 5]]],
                     np.int32),
    "vec": np.array([7, 3, 7, 7, -2, 3, 0], np.int64),
    "nth": np.round(rng.uniform(-3, 3, (2, 3, 6)), 1).astype(np.float32),
    "nth_i": np.array([[5, 1, 5, 2], [9, 9, 9, 9], [-1, 4, 0, 3]], np.int32),
    "topk": np.array([[0.3, 0.9, -1.0, 0.9, 2.0], [5.0, 4.0, 3.0, 2.0, 1.0]],
                     np.float32),
    "pred": np.array([[0.1, 0.7, 0.2], [0.5, 0.5, 0.0], [0.3, np.inf, 0.1],
                      [0.9, 0.05, 0.05]], np.float32),
    "tgt": np.array([1, 1, 0, 2], np.int32),
    "mx": np.array([7.5, -7.5, 7.5, -7.5, 0.0, -0.0, 1e10, 3.0], np.float32),
    "my": np.array([2.0, 2.0, -2.0, -2.0, 3.0, 3.0, 3.0, np.inf], np.float32),
    "mi": np.array([7, -7, 7, -7, 0, 13, -2147483647], np.int32),
    "mj": np.array([3, 3, -3, -3, 5, 1, 10], np.int32),
    # Two 5x6 images of 2 channels, and their transforms: a shift, a
    # rotation, a zoom, a shear and a projective one, per image.
    "img": np.round(rng.uniform(0, 10, (2, 5, 6, 2)), 2).astype(np.float32),
    "img8": rng.randint(0, 256, (2, 5, 6, 2)).astype(np.uint8),
    "tr_one": np.array([[1.0, 0.0, 1.5, 0.0, 1.0, -2.25, 0.0, 0.0]],
                       np.float32),
    "tr_two": np.array([[0.8660254, -0.5, 2.1, 0.5, 0.8660254, -1.2, 0.0,
                         0.0],
                        [1.3, 0.4, -0.7, 0.0, 0.7, 0.9, 0.02, -0.03]],
                       np.float32),
    "tr_far": np.array([[1.0, 0.0, -13.7, 0.0, 1.0, 11.2, 0.0, 0.0],
                        [-1.0, 0.0, 20.3, 0.0, -1.0, -9.6, 0.0, 0.0]],
                       np.float32),
    # Glimpse offsets (y, x) per image: inside, across an edge, far out.
    "goff_norm": np.array([[0.1, -0.2], [-0.95, 0.9]], np.float32),
    "goff_px": np.array([[1.6, 2.4], [-2.7, 4.2]], np.float32),
    "rows4": np.arange(12, dtype=np.float32).reshape(4, 3),
    # Max pooling: ties inside windows (first one wins), a NaN-free image.
    "pool": np.round(rng.uniform(-2, 2, (2, 5, 6, 3)), 0).astype(np.float32),
    # c0 x + c1 y + 1 is 0 at (x, y) = (1, 1): the fill value there.
    "tr_pole": np.array([[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.5, -0.5]],
                        np.float32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  c = {}
  for n in (1, 2, 5, 7):
    c["linspace_%d" % n] = R.LinSpace(start=p["start"], stop=p["stop"], num=n)
  c["linspace_f64"] = R.LinSpace(start=p["start64"], stop=p["stop64"],
                                 num=tf.constant(9, tf.int64))
  c["linspace_same"] = R.LinSpace(start=p["stop"], stop=p["stop"], num=4)
  c["unravel_vec"] = tf.unravel_index(p["flat"], [2, 3, 4])
  c["unravel_scalar"] = tf.unravel_index(p["flat"][2], [4, 3])
  c["unravel_i64"] = tf.unravel_index(p["flat64"], tf.constant([2, 3, 4, 5],
                                                               tf.int64))
  for axis in (0, 1, -1):
    y, idx = R.UniqueV2(x=p["rep"], axis=[axis])
    c["unique_ax%d_y" % axis], c["unique_ax%d_idx" % axis] = y, idx
  y, idx, cnt = R.UniqueWithCountsV2(x=p["rep3"], axis=[1], out_idx=tf.int64)
  c["uwc3_ax1_y"], c["uwc3_ax1_idx"], c["uwc3_ax1_count"] = y, idx, cnt
  y, idx, cnt = R.UniqueWithCountsV2(x=p["rep3"], axis=tf.constant([2],
                                                                   tf.int32))
  c["uwc3_ax2_y"], c["uwc3_ax2_idx"], c["uwc3_ax2_count"] = y, idx, cnt
  y, idx = R.UniqueV2(x=p["vec"], axis=tf.zeros([0], tf.int64))
  c["unique_vec_y"], c["unique_vec_idx"] = y, idx
  y, idx, cnt = R.UniqueWithCountsV2(x=p["vec"], axis=[0])
  c["uwc_vec_y"], c["uwc_vec_idx"], c["uwc_vec_count"] = y, idx, cnt
  for n in (0, 2, 5):
    for rev in (False, True):
      c["nth_%d_%s" % (n, "rev" if rev else "fwd")] = R.NthElement(
          input=p["nth"], n=n, reverse=rev)
  c["nth_int"] = R.NthElement(input=p["nth_i"], n=1)
  c["nth_int_rev"] = R.NthElement(input=p["nth_i"], n=0, reverse=True)
  # NthElement's gradient: the upstream gradient split among a row's
  # entries equal to the chosen one (nth_i has ties).
  w = tf.reshape(tf.range(1.0, 7.0), [2, 3])
  c["nth_grad"] = tf.gradients(
      tf.reduce_sum(R.NthElement(input=p["nth"], n=2) * w), p["nth"])[0]
  fi = tf.cast(p["nth_i"], tf.float32)
  c["nth_grad_ties"] = tf.gradients(
      tf.reduce_sum(R.NthElement(input=fi, n=3, reverse=True) *
                    tf.constant([1.0, 2.0, 3.0])), fi)[0]
  # TopK (v1) is deprecated since GraphDef version 7, so TensorFlow 2.21
  # builds no new one: these are TopKV2 nodes named TopK_v1*, which
  # to_topk_v1() rewrites into TopK (k an attr) after TensorFlow has run
  # them (the two share TensorFlow's kernel and gradient).
  for k in (0, 1, 3, 5):
    v, i = R.TopKV2(input=p["topk"], k=k, name="TopK_v1_%d" % k)
    c["topk%d_v" % k], c["topk%d_i" % k] = v, i
  v, i = R.TopKV2(input=tf.cast(p["nth_i"], tf.int64), k=2, name="TopK_v1_i64")
  c["topk_i64_v"], c["topk_i64_i"] = v, i
  c["topk_grad"] = tf.gradients(
      tf.reduce_sum(R.TopKV2(input=p["topk"], k=3, name="TopK_v1_grad")[0] *
                    tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
      p["topk"])[0]
  for k in (1, 2, 3):
    c["intopk%d" % k] = R.InTopK(predictions=p["pred"], targets=p["tgt"], k=k)
  c["intopk_i64"] = R.InTopK(predictions=p["pred"],
                             targets=tf.cast(p["tgt"], tf.int64), k=1)
  c["mod_f"] = R.Mod(x=p["mx"], y=p["my"])
  c["mod_f_bcast"] = R.Mod(x=p["mx"], y=tf.constant(2.5))
  c["mod_f64"] = R.Mod(x=tf.cast(p["mx"], tf.float64),
                       y=tf.cast(p["my"], tf.float64))
  c["mod_i"] = R.Mod(x=p["mi"], y=p["mj"])
  c["mod_i64"] = R.Mod(x=tf.cast(p["mi"], tf.int64),
                       y=tf.cast(p["mj"], tf.int64))
  # ImageProjectiveTransformV2/V3: every fill mode with both
  # interpolations, far-away points (several reflections and wraps), a
  # larger and a smaller output, uint8 images (bilinear truncates).
  for tr in ("tr_one", "tr_two", "tr_far"):
    for interp in ("NEAREST", "BILINEAR"):
      for mode in ("REFLECT", "WRAP", "CONSTANT", "NEAREST"):
        c["ipt3_%s_%s_%s" % (tr, interp, mode)] = R.ImageProjectiveTransformV3(
            images=p["img"], transforms=p[tr], output_shape=[5, 6],
            fill_value=-1.5, interpolation=interp, fill_mode=mode)
  c["ipt2_bigger"] = R.ImageProjectiveTransformV2(
      images=p["img"], transforms=p["tr_two"], output_shape=[7, 9],
      interpolation="BILINEAR", fill_mode="WRAP")
  c["ipt2_smaller"] = R.ImageProjectiveTransformV2(
      images=p["img"], transforms=p["tr_one"], output_shape=[3, 2],
      interpolation="NEAREST")
  c["ipt2_pole"] = R.ImageProjectiveTransformV3(
      images=p["img"], transforms=p["tr_pole"], output_shape=[5, 6],
      fill_value=7.0, interpolation="BILINEAR", fill_mode="CONSTANT")
  for interp in ("NEAREST", "BILINEAR"):
    c["ipt_u8_%s" % interp] = R.ImageProjectiveTransformV3(
        images=p["img8"], transforms=p["tr_two"], output_shape=[5, 6],
        fill_value=200.0 if interp == "NEAREST" else 9.7,
        interpolation=interp, fill_mode="CONSTANT")
  c["ipt_f64"] = R.ImageProjectiveTransformV2(
      images=tf.cast(p["img"], tf.float64), transforms=p["tr_two"],
      output_shape=[5, 6], interpolation="BILINEAR", fill_mode="REFLECT")
  # ExtractGlimpse / V2, every centered/normalized combination, zero noise
  # (the only deterministic fill of a window past the image), windows
  # smaller and larger than the image; and a window inside the image with
  # the default uniform noise (no noise drawn).
  for v, op in ((1, R.ExtractGlimpse), (2, R.ExtractGlimpseV2)):
    for cen in (False, True):
      for norm in (False, True):
        offs = p["goff_norm"] if norm else p["goff_px"]
        for size in ((3, 2), (7, 8)):
          c["glimpse%d_c%d_n%d_%dx%d" % (v, cen, norm, size[0], size[1])] = op(
              input=p["img"], size=list(size), offsets=offs, centered=cen,
              normalized=norm, uniform_noise=False, noise="zero")
  c["glimpse_inside"] = tf.image.extract_glimpse(
      p["img"], [2, 3], tf.constant([[0.0, 0.0], [0.1, -0.1]]))
  c["glimpse_v1_inside"] = tf1.image.extract_glimpse(
      p["img"], [2, 3], tf.constant([[0.0, 0.0], [0.1, -0.1]]))
  # MaxPoolV2 and MaxPoolGradV2 (windows as tensors), and the second
  # derivatives of max pooling (MaxPoolGradGrad / V2), whose own gradient
  # is MaxPoolGrad again; integer-valued images make ties.
  xp = p["pool"]
  wp = tf.reshape(tf.range(1.0, 1.0 + 2 * 5 * 6 * 3), [2, 5, 6, 3]) / 7.0
  for pad in ("VALID", "SAME"):
    for ks, st in (([1, 2, 2, 1], [1, 2, 2, 1]), ([1, 3, 2, 1], [1, 1, 2, 1])):
      tag = "%s_k%d%d_s%d%d" % (pad, ks[1], ks[2], st[1], st[2])
      y2 = R.MaxPoolV2(input=xp, ksize=tf.constant(ks), strides=st,
                       padding=pad)
      c["maxpool_v2_" + tag] = y2
      gx2 = tf.gradients(y2, xp, tf.ones_like(y2) * 0.5 + tf.reduce_sum(y2))[0]
      c["maxpool_grad_v2_" + tag] = gx2
      # d/d(upstream) of <gx2, wp>: MaxPoolGradGradV2.
      up = tf.ones_like(y2) * 0.25
      g1 = tf.gradients(y2, xp, up)[0]
      c["maxpool_gradgrad_v2_" + tag] = tf.gradients(g1, up, wp)[0]
      y1 = tf.nn.max_pool2d(xp, ks[1:3], st[1:3], pad)
      up1 = tf.ones_like(y1) * 0.25
      g11 = tf.gradients(y1, xp, up1)[0]
      gg = tf.gradients(g11, up1, wp)[0]
      c["maxpool_gradgrad_" + tag] = gg
      c["maxpool_gradgradgrad_" + tag] = tf.gradients(gg, wp, gg + 1.0)[0]
  # The V1 and V2 matrix-diagonal ops of older graphs (V2 packs a band
  # LEFT_LEFT), and the gradients tf.gradients writes through V1.
  dg = tf.reshape(tf.range(1.0, 13.0), [2, 2, 3])
  mat = tf.reshape(tf.range(1.0, 25.0), [2, 3, 4])
  c["matrix_diag_v1"] = R.MatrixDiag(diagonal=dg)
  c["matrix_diag_part_v1"] = R.MatrixDiagPart(input=mat)
  c["matrix_set_diag_v1"] = R.MatrixSetDiag(input=mat,
                                            diagonal=-tf.ones([2, 3]))
  c["matrix_diag_v2_band"] = R.MatrixDiagV2(diagonal=dg, k=[-1, 0],
                                            num_rows=3, num_cols=4,
                                            padding_value=9.0)
  c["matrix_diag_v2_k1"] = R.MatrixDiagV2(diagonal=dg, k=1, num_rows=-1,
                                          num_cols=-1, padding_value=0.0)
  c["matrix_diag_part_v2_band"] = R.MatrixDiagPartV2(input=mat, k=[-1, 1],
                                                     padding_value=-5.0)
  c["matrix_set_diag_v2_band"] = R.MatrixSetDiagV2(
      input=mat, diagonal=tf.reshape(tf.range(12.0), [2, 2, 3]), k=[0, 1])
  c["matrix_diag_v1_grad"] = tf.gradients(
      tf.reduce_sum(R.MatrixDiag(diagonal=dg) * tf.reshape(
          tf.range(18.0), [2, 3, 3])), dg)[0]
  c["matrix_set_diag_v1_grad"] = tf.gradients(
      tf.reduce_sum(R.MatrixSetDiag(input=mat, diagonal=dg[:, 0] * 2.0) *
                    mat), dg)[0]
  c["matrix_diag_v1_int"] = R.MatrixDiag(diagonal=p["nth_i"])
  # ConjugateTranspose of complex and real tensors (tf.linalg.adjoint), the
  # Inplace ops (repeated rows: Add/Sub add up, Update's last wins),
  # ParallelConcat, GuaranteeConst and CheckNumericsV2 on finite values.
  z = tf.complex(mat, -mat * 0.5)
  c["conj_transpose_c64"] = tf.math.real(R.ConjugateTranspose(
      x=z, perm=[0, 2, 1])) + 10.0 * tf.math.imag(R.ConjugateTranspose(
          x=z, perm=[0, 2, 1]))
  c["adjoint_c128"] = tf.math.imag(tf.linalg.adjoint(tf.cast(z,
                                                             tf.complex128)))
  c["conj_transpose_real"] = R.ConjugateTranspose(x=mat, perm=[2, 0, 1])
  # TensorFlow's Inplace kernels write into x's buffer: each gets an x of
  # its own (computed from a feed, so nothing folds it to a constant).
  vals = tf.constant([[1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [0.5, 0.5, 0.5]])
  for k, name in enumerate(("InplaceAdd", "InplaceSub", "InplaceUpdate")):
    c[name] = getattr(R, name)(x=p["rows4"] + float(k), i=[3, 0, 3], v=vals)
  c["inplace_update_int"] = R.InplaceUpdate(x=p["nth_i"] * 1, i=[1],
                                            v=[[7, 7, 7, 7]])
  c["parallel_concat"] = R.ParallelConcat(
      values=[vals[:1], vals[1:2] * 2.0, vals[2:]], shape=[3, 3])
  c["guarantee_const"] = R.GuaranteeConst(input=p["mx"]) * 2.0
  c["check_numerics_v2"] = R.CheckNumericsV2(tensor=p["nth"],
                                             message="finite") + 1.0
  # The stateful random ops of tf.random.Generator's older graphs, chained
  # by control dependencies from a set state so their order is fixed; the
  # state after them says how far each moved the counter.
  h = R.VarHandleOp(dtype=tf.int64, shape=[3], shared_name="gen_state",
                    name="gen_state")
  prev = R.AssignVariableOp(resource=h, value=tf.constant(
      [(1 << 40) + 12345, 7, 0x5EED5EED], tf.int64))
  draws = [
      ("stateful_uniform", lambda: R.StatefulUniform(
          resource=h, algorithm=1, shape=[2, 5], dtype=tf.float32)),
      ("stateful_normal_f64", lambda: R.StatefulStandardNormalV2(
          resource=h, algorithm=1, shape=tf.constant([3, 3], tf.int32),
          dtype=tf.float64)),
      ("stateful_truncated", lambda: R.StatefulTruncatedNormal(
          resource=h, algorithm=1, shape=[7], dtype=tf.float32)),
      ("stateful_uniform_int", lambda: R.StatefulUniformInt(
          resource=h, algorithm=1, shape=[4, 2],
          minval=tf.constant(-5, tf.int64), maxval=tf.constant(1000,
                                                               tf.int64))),
      ("stateful_full_int", lambda: R.StatefulUniformFullInt(
          resource=h, algorithm=1, shape=[5], dtype=tf.int64)),
      ("skip", lambda: R.RngSkip(resource=h, algorithm=1, delta=3)),
      ("stateful_uniform_after_skip", lambda: R.StatefulUniform(
          resource=h, algorithm=3, shape=[3], dtype=tf.float64)),
  ]
  for name, make in draws:
    with tf.control_dependencies([prev]):
      out = make()
    prev = out
    if name != "skip":
      c[name] = out
  with tf.control_dependencies([prev]):
    c["stateful_state_after"] = R.ReadVariableOp(resource=h, dtype=tf.int64)
  # The gradient tf.gradients writes: the inverse transform of the
  # upstream gradient (MatrixInverse: within a few ulps).
  wimg = tf.reshape(tf.range(120.0), [2, 5, 6, 2]) / 10.0
  for v in (2, 3):
    op = (R.ImageProjectiveTransformV2 if v == 2 else
          lambda **kw: R.ImageProjectiveTransformV3(fill_value=0.5, **kw))
    y = op(images=p["img"], transforms=p["tr_one"], output_shape=[5, 6],
           interpolation="BILINEAR", fill_mode="REFLECT")
    c["ipt_grad%d" % v] = tf.gradients(tf.reduce_sum(y * wimg), p["img"])[0]
  return {k: tf.identity(v, name="out_" + k) for k, v in c.items()}


def to_topk_v1(graph_def):
  consts = {n.name: n for n in graph_def.node if n.op == "Const"}
  for n in graph_def.node:
    if n.op != "TopKV2" or not n.name.startswith("TopK_v1"):
      continue
    k = tf.make_ndarray(consts[n.input[1]].attr["value"].tensor)
    n.op = "TopK"
    del n.input[1]
    n.attr["k"].i = int(k)
    del n.attr["Tk"]
    del n.attr["index_type"]


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in FEEDS.items()})
  graph_def = g.as_graph_def()
  to_topk_v1(graph_def)
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(graph_def.SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_misc_more_reference.py "
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
