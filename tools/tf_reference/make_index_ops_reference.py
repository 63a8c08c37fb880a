#!/usr/bin/env python3
"""TensorFlow 2.21's values for the segment reductions (SegmentSum, Mean,
Max, Min, Prod; UnsortedSegmentMax, Min, Prod; SparseSegmentSum, Mean,
SqrtN, their WithNumSegments forms and their Grad ops), DynamicPartition,
ParallelDynamicStitch, TensorScatterUpdate/Add/Sub/Max/Min and Roll, with
the gradients TensorFlow writes through them (tf.gradients).

Writes tests/testdata/tf_index_ops/:
  graph.pb      one TF-written GraphDef (tf.compat.v1 graph mode): shaped
                placeholders (float32, float64 by Cast, int32 and int64 ids),
                every op applied to them, each result named out_<case> by an
                Identity
  cases.txt     the feeds and TensorFlow's values, one per line:
                  feed <name> <dtype> [<dims>] | v0 v1 ...
                  fetch <name> <dtype> [<dims>] | v0 v1 ...
                (floats printed with %.9g / %.17g: exact)
Read by tests/kernels/index_ops_test.cc.

Run: python3 tools/tf_reference/make_index_ops_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from value_cases import fmt, head  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_index_ops")

rng = np.random.RandomState(11)


def uniform(*shape):
  return np.round(rng.uniform(-2.0, 2.0, shape), 3).astype(np.float32)


FEEDS = {
    "x": uniform(7, 3),
    "x3": uniform(6, 2, 2),
    "xi": np.array([[3, -1], [4, 2], [-5, 9], [0, 7], [1, 1], [8, -2],
                    [6, 5]], np.int32),
    # Sorted ids with an empty segment (2) and a repeated last one.
    "ids": np.array([0, 0, 1, 3, 3, 3, 4], np.int32),
    "ids64": np.array([0, 1, 1, 1, 2, 5, 5], np.int64),
    # Unsorted ids: a dropped -1, empty segments 4 and 5.
    "uids": np.array([2, 0, 3, 2, -1, 0, 1], np.int32),
    "uids64": np.array([1, 1, 0, 3, 0, 3], np.int64),
    # Sparse: indices repeat, segment 2 is empty.
    "sidx": np.array([0, 6, 6, 2, 1, 4], np.int32),
    "sseg": np.array([0, 0, 1, 1, 1, 3], np.int32),
    "sidx64": np.array([5, 0, 3], np.int64),
    "sseg64": np.array([1, 1, 2], np.int64),
    # DynamicPartition: rows and elements, one partition empty.
    "part": np.array([2, 0, 1, 0, 2, 2, 0], np.int32),
    "part_el": np.array([[1, 0], [0, 0], [3, 1], [0, 3], [1, 1], [0, 0],
                         [3, 3]], np.int32),
    # ParallelDynamicStitch.
    "st0": np.array([0, 4], np.int32),
    "st1": np.array([[1, 3], [2, 5]], np.int32),
    "sd0": uniform(2, 3),
    "sd1": uniform(2, 2, 3),
    # TensorScatter*: rows (a repeated one) and elements (int64).
    "t": uniform(5, 3),
    "tidx": np.array([[1], [3], [1]], np.int32),
    "tupd": uniform(3, 3),
    "tidx2": np.array([[0, 0], [4, 2], [2, 1]], np.int64),
    "tupd2": uniform(3),
    "ti": np.array([[1, 2, 3], [4, 5, 6]], np.int32),
    "tidx_i": np.array([[1, 0], [0, 2]], np.int32),
    "tupd_i": np.array([-7, 9], np.int32),
    # Roll.
    "r": uniform(3, 4, 5),
    "shift": np.array([1, -2], np.int32),
    "axis": np.array([0, 2], np.int32),
    "shift64": np.array(7, np.int64),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  R = tf.raw_ops
  f64 = lambda v: tf.cast(v, tf.float64)  # noqa: E731
  x, ids, uids = p["x"], p["ids"], p["uids"]
  cases = {
      "SegmentSum": tf.math.segment_sum(x, ids),
      "SegmentMean": tf.math.segment_mean(x, ids),
      "SegmentMax": tf.math.segment_max(x, ids),
      "SegmentMin": tf.math.segment_min(x, ids),
      "SegmentProd": tf.math.segment_prod(x, ids),
      "SegmentSum_ids64_f64": tf.math.segment_sum(f64(x), p["ids64"]),
      "SegmentMean_3d": tf.math.segment_mean(p["x3"], p["ids64"][:6]),
      "SegmentMax_int": tf.math.segment_max(p["xi"], ids),
      "SegmentMin_int": tf.math.segment_min(p["xi"], p["ids64"]),
      "SegmentProd_int": tf.math.segment_prod(p["xi"], ids),
      "SegmentMean_int": tf.math.segment_mean(p["xi"], ids),
      "UnsortedMax": tf.math.unsorted_segment_max(x, uids, 6),
      "UnsortedMin": tf.math.unsorted_segment_min(x, uids, 6),
      "UnsortedProd": tf.math.unsorted_segment_prod(x, uids, 6),
      "UnsortedMax_int_n64": tf.math.unsorted_segment_max(
          p["xi"], uids, tf.constant(5, tf.int64)),
      "UnsortedMin_f64_ids64": tf.math.unsorted_segment_min(
          f64(p["x3"]), p["uids64"], 4),
      "UnsortedProd_int": tf.math.unsorted_segment_prod(p["xi"], uids, 4),
      "SparseSum": tf.sparse.segment_sum(x, p["sidx"], p["sseg"]),
      "SparseMean": tf.sparse.segment_mean(x, p["sidx"], p["sseg"]),
      "SparseSqrtN": tf.sparse.segment_sqrt_n(x, p["sidx"], p["sseg"]),
      "SparseSum_n": tf.sparse.segment_sum(x, p["sidx"], p["sseg"],
                                           num_segments=6),
      "SparseMean_n": tf.sparse.segment_mean(x, p["sidx"], p["sseg"],
                                             num_segments=5),
      "SparseSqrtN_n": tf.sparse.segment_sqrt_n(x, p["sidx"], p["sseg"],
                                                num_segments=4),
      "SparseSum_int": tf.sparse.segment_sum(p["xi"], p["sidx"], p["sseg"]),
      "SparseMean_i64_f64": tf.sparse.segment_mean(
          f64(p["x3"]), p["sidx64"], p["sseg64"]),
      "SparseSqrtN_3d": tf.sparse.segment_sqrt_n(p["x3"], p["sidx64"],
                                                 p["sseg64"]),
      "Stitch_parallel": R.ParallelDynamicStitch(
          indices=[p["st0"], p["st1"]], data=[p["sd0"], p["sd1"]]),
      "TSUpdate": tf.tensor_scatter_nd_update(p["t"], p["tidx2"], p["tupd2"]),
      "TSUpdate_rows": tf.tensor_scatter_nd_update(
          p["t"], p["tidx"][:2], p["tupd"][:2]),
      "TSAdd": tf.tensor_scatter_nd_add(p["t"], p["tidx"], p["tupd"]),
      "TSSub": tf.tensor_scatter_nd_sub(p["t"], p["tidx"], p["tupd"]),
      "TSMax": tf.tensor_scatter_nd_max(p["t"], p["tidx"], p["tupd"]),
      "TSMin": tf.tensor_scatter_nd_min(p["t"], p["tidx"], p["tupd"]),
      "TSAdd_elems": tf.tensor_scatter_nd_add(p["t"], p["tidx2"], p["tupd2"]),
      "TSAdd_int": tf.tensor_scatter_nd_add(p["ti"], p["tidx_i"],
                                            p["tupd_i"]),
      "TSMax_int": tf.tensor_scatter_nd_max(p["ti"], p["tidx_i"],
                                            p["tupd_i"]),
      "TSUpdate_f64": tf.tensor_scatter_nd_update(f64(p["t"]), p["tidx2"],
                                                  f64(p["tupd2"])),
      "Roll": tf.roll(p["r"], 2, axis=1),
      "Roll_multi": tf.roll(p["r"], p["shift"], p["axis"]),
      "Roll_neg_big": tf.roll(p["r"], -13, axis=2),
      "Roll_same_axis": tf.roll(p["r"], [1, 2], [2, -1]),
      "Roll_i64": tf.roll(p["r"], p["shift64"], tf.constant(0, tf.int64)),
      "Roll_int": tf.roll(p["xi"], [3, 1], [0, 1]),
  }
  parts = tf.dynamic_partition(x, p["part"], 4)
  for i, t in enumerate(parts):
    cases["Partition_%d" % i] = t
  parts_el = tf.dynamic_partition(p["xi"], p["part_el"], 4)
  for i, t in enumerate(parts_el):
    cases["Partition_el_%d" % i] = t
  # Gradients: TensorFlow writes SparseSegment*Grad, ParallelDynamicStitch
  # (DynamicPartition's gradient), Roll, TensorScatterUpdate and the
  # sorted / unsorted reductions' own graphs.
  w = tf.constant(np.linspace(0.5, 2.0, 21).reshape(7, 3), tf.float32)
  grads = {
      "sparse_sum": tf.sparse.segment_sum(x, p["sidx"], p["sseg"]),
      "sparse_mean": tf.sparse.segment_mean(x, p["sidx"], p["sseg"]),
      "sparse_sqrtn": tf.sparse.segment_sqrt_n(x, p["sidx"], p["sseg"],
                                               num_segments=5),
      "segment_sum": tf.math.segment_sum(x, ids),
      "segment_mean": tf.math.segment_mean(x, ids),
      "segment_max": tf.math.segment_max(x, ids),
      "unsorted_max": tf.math.unsorted_segment_max(x, uids, 6),
      "unsorted_min": tf.math.unsorted_segment_min(x, uids, 6),
      "partition": tf.concat(tf.dynamic_partition(x * w, p["part"], 4), 0),
      "roll": tf.roll(x * w, [2, -1], [0, 1]),
      "scatter_update": tf.tensor_scatter_nd_update(
          x * w, p["tidx"][:2], p["tupd"][:2] * 3.0),
      "scatter_add": tf.tensor_scatter_nd_add(x * w, p["tidx"], p["tupd"]),
  }
  for name, y in grads.items():
    cases["Grad_" + name] = tf.gradients(tf.reduce_sum(y * y), x)[0]
  return {k: tf.identity(v, name="out_" + k) for k, v in cases.items()}


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    outs = build()
    with tf1.Session() as s:
      values = s.run(outs, {g.get_tensor_by_name(k + ":0"): v
                            for k, v in FEEDS.items()})
  ops = sorted({n.op for n in g.as_graph_def().node})
  with open(os.path.join(OUT, "graph.pb"), "wb") as f:
    f.write(g.as_graph_def().SerializeToString(deterministic=True))
  lines = ["# Written by tools/tf_reference/make_index_ops_reference.py "
           "with TensorFlow %s." % tf.__version__,
           "# Ops: " + " ".join(ops)]
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
