#!/usr/bin/env python3
"""TensorFlow 2.21's values for BatchMatMul/V2/V3, ClipByValue, ArgMin,
GatherNd, ScatterNd, ListDiff, BroadcastArgs and MatrixDiagV3/MatrixDiagPartV3.

Writes tests/testdata/tf_array_ops_more/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders (float32, float64 by Cast, int32 and int64 index
                and shape feeds), every op applied to them, each result
                named out_<case> by an Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/array_ops_more_test.cc.

Run: python3 tools/tf_reference/make_array_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_array_ops_more")

rng = np.random.RandomState(7)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    # BatchMatMul*: broadcast batches, adjoints, rank-2 operands.
    "bx": uniform(2, 1, 3, 4),
    "by": uniform(3, 4, 5),
    "bxt": uniform(2, 4, 3),
    "byt": uniform(2, 5, 4),
    "b1x": uniform(2, 3, 4),
    "b1y": uniform(2, 4, 5),
    "y2": uniform(4, 5),
    # ClipByValue: scalar bounds, full bounds (one min above its max).
    "t": np.array([[-3.0, -0.5, -0.25, 0.0], [0.5, 0.75, 1.0, 9.0]],
                  np.float32),
    "lo": np.array(-0.4, np.float32),
    "hi": np.array(0.8, np.float32),
    "lo_full": np.array([[-1, 0, -1, 0.5], [0, 1, 0.2, -1]], np.float32),
    "hi_full": np.array([[1, 1, 0, 0.25], [2, 2, 0.9, 8]], np.float32),
    "ti": np.array([-7, -2, 0, 3, 5, 100], np.int32),
    "ti_lo": np.array(-2, np.int32),
    "ti_hi": np.array(4, np.int32),
    # ArgMin: ties go to the first index.
    "am": np.array([[3, 1, 4, 1], [5, -9, 2, 6], [5, 3, -9, 0]], np.float32),
    "ami": np.array([[4, 2, 2, 8, 1], [0, 0, -3, 7, -3]], np.int32),
    # GatherNd.
    "params": np.arange(12, dtype=np.float32).reshape(3, 4) * 0.5,
    "params3": np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 4.0,
    "gi32": np.array([[0, 0], [2, 3], [1, 2]], np.int32),
    "gi64": np.array([[1], [0]], np.int64),
    "gi3": np.array([[[1], [0]], [[0], [1]]], np.int32),
    # ScatterNd: duplicate indices add up.
    "sidx": np.array([[1], [3], [1], [0]], np.int32),
    "supd": uniform(4, 3),
    "sshape": np.array([5, 3], np.int32),
    "sidx64": np.array([[0, 1], [1, 2], [0, 1]], np.int64),
    "supd_i": np.array([5, -2, 7], np.int32),
    "sshape64": np.array([2, 3], np.int64),
    # ListDiff.
    "lx": np.array([1, 2, 3, 4, 5, 6, 2, 7], np.int32),
    "ly": np.array([2, 4, 9], np.int32),
    "lxf": np.array([0.5, -1.0, 2.0, 0.5, 3.0], np.float32),
    "lyf": np.array([0.5, 3.0], np.float32),
    "lx64": np.array([10, 20, 30], np.int64),
    "ly64": np.array([40], np.int64),
    # BroadcastArgs.
    "s0": np.array([2, 1, 3], np.int32),
    "s1": np.array([4, 1], np.int32),
    "s0_64": np.array([7, 1, 0], np.int64),
    "s1_64": np.array([1, 1], np.int64),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  cases = {
      "BMMV2_bcast": R.BatchMatMulV2(x=p["bx"], y=p["by"]),
      "BMMV2_adj": R.BatchMatMulV2(x=p["bxt"], y=p["byt"], adj_x=True,
                                   adj_y=True),
      "BMMV2_adj_x": R.BatchMatMulV2(x=p["bxt"], y=p["b1y"], adj_x=True),
      "BMMV2_rank2": R.BatchMatMulV2(x=p["b1x"], y=p["y2"]),
      "BMMV2_f64": R.BatchMatMulV2(x=f64(p["bx"]), y=f64(p["by"])),
      "BMM_v1": R.BatchMatMul(x=p["b1x"], y=p["b1y"]),
      "BMM_v1_adj_y": R.BatchMatMul(x=p["b1x"], y=p["byt"], adj_y=True),
      "BMMV3": R.BatchMatMulV3(x=p["b1x"], y=p["b1y"], Tout=tf.float32),
      "Clip_scalar": R.ClipByValue(t=p["t"], clip_value_min=p["lo"],
                                   clip_value_max=p["hi"]),
      "Clip_full": R.ClipByValue(t=p["t"], clip_value_min=p["lo_full"],
                                 clip_value_max=p["hi_full"]),
      "Clip_i32": R.ClipByValue(t=p["ti"], clip_value_min=p["ti_lo"],
                                clip_value_max=p["ti_hi"]),
      "Clip_f64": R.ClipByValue(t=f64(p["t"]), clip_value_min=f64(p["lo"]),
                                clip_value_max=f64(p["hi_full"])),
      "ArgMin_0": R.ArgMin(input=p["am"], dimension=0),
      "ArgMin_1_i32": R.ArgMin(input=p["am"], dimension=1,
                               output_type=tf.int32),
      "ArgMin_neg": R.ArgMin(input=p["am"], dimension=-1),
      "ArgMin_int": R.ArgMin(input=p["ami"],
                             dimension=tf.constant(1, tf.int64)),
      "GatherNd_elems": R.GatherNd(params=p["params"], indices=p["gi32"]),
      "GatherNd_rows": R.GatherNd(params=p["params"], indices=p["gi64"]),
      "GatherNd_3d": R.GatherNd(params=p["params3"], indices=p["gi3"]),
      "GatherNd_int": R.GatherNd(params=p["ami"], indices=p["gi64"]),
      "ScatterNd_rows": R.ScatterNd(indices=p["sidx"], updates=p["supd"],
                                    shape=p["sshape"]),
      "ScatterNd_elems": R.ScatterNd(indices=p["sidx64"],
                                     updates=p["supd_i"],
                                     shape=p["sshape64"]),
      "BroadcastArgs_i32": R.BroadcastArgs(s0=p["s0"], s1=p["s1"]),
      "BroadcastArgs_i64": R.BroadcastArgs(s0=p["s0_64"], s1=p["s1_64"]),
  }
  for name, x, y, idx in [("i32", "lx", "ly", tf.int32),
                          ("f32_i64", "lxf", "lyf", tf.int64),
                          ("i64", "lx64", "ly64", tf.int32)]:
    out, index = R.ListDiff(x=p[x], y=p[y], out_idx=idx)
    cases["ListDiff_%s_out" % name] = out
    cases["ListDiff_%s_idx" % name] = index
  # MatrixDiagV3 / MatrixDiagPartV3: tf.eye, tf.linalg.diag (batched, off
  # the main diagonal, with explicit sizes) and tf.linalg.diag_part.
  cases["Diag_eye"] = tf.eye(3)
  cases["Diag_rect_i32"] = R.MatrixDiagV3(
      diagonal=tf.constant([4, 5], tf.int32), k=0, num_rows=2, num_cols=4,
      padding_value=-1)
  cases["Diag_batch"] = tf.linalg.diag(p["t"])
  cases["Diag_k1"] = tf.linalg.diag(p["t"], k=1)
  cases["Diag_km1_sized"] = tf.linalg.diag(p["t"], k=-1, num_rows=5,
                                           num_cols=4, padding_value=7.0)
  cases["DiagPart"] = tf.linalg.diag_part(p["bx"])
  cases["DiagPart_k1"] = tf.linalg.diag_part(p["bx"], k=1)
  cases["DiagPart_km1"] = tf.linalg.diag_part(p["bx"], k=-1)
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
  lines = ["# Written by tools/tf_reference/make_array_ops_reference.py "
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
