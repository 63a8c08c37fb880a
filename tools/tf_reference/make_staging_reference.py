#!/usr/bin/env python3
"""TensorFlow 2.21's values for StagingArea (tf.compat.v1's
data_flow_ops.StagingArea, as multi-GPU input pipelines such as
tf_cnn_benchmarks use it to stage the next batch beside the device): Stage
(put), Unstage (get), StagePeek (peek), StageSize (size) and StageClear
(clear).

Each area gets its own pattern of puts and gets per run of `train`, chained
by control dependencies so the order is TensorFlow's (a counter variable
makes every step's tuple different):
  fifo      put each step; nothing taken: size and peek(0..2) afterwards
  chain     two puts and one get each step: the got values land in
            variables (FIFO order across steps), size afterwards
  cleared   clear, then put, each step: size 1, peek(0) the last put
  bounded   capacity 2 and a memory limit, put then get each step
  single    one float component (not a tuple), put then get each step

Writes tests/testdata/tf_staging/:
  graph.pb   one TF-written GraphDef (tf.compat.v1 graph mode): `train`
             does a step's puts and gets, `init` initializes the
             variables, and out_<case> reads each result
  cases.txt  the feeds and each result after STEPS runs of `train`
             (tests/kernels/tf_value_cases.h's format)
Read by tests/kernels/staging_ops_test.cc.

Run: python3 tools/tf_reference/make_staging_reference.py
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import data_flow_ops  # noqa: E402

from value_cases import write_cases  # noqa: E402

tf1 = tf.compat.v1
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                   "tests", "testdata", "tf_staging")
STEPS = 3

FEEDS = {
    "images": np.round(np.random.RandomState(5).uniform(-2, 2, (2, 3)),
                       3).astype(np.float32),
    "labels": np.array([4, 1], np.int32),
}


def build():
  p = {k: tf1.placeholder(tf.as_dtype(v.dtype), v.shape, name=k)
       for k, v in FEEDS.items()}
  outs = {}
  step = tf1.get_variable("step", initializer=0, use_resource=True)
  n = step.read_value()
  nf = tf.cast(n, tf.float32)

  def tuple_at(offset):
    return [p["images"] * (nf + offset), p["labels"] + n * 10 + offset]

  types = [tf.float32, tf.int32]
  shapes = [[2, 3], [2]]
  fifo = data_flow_ops.StagingArea(types, shapes, shared_name="fifo")
  put_fifo = fifo.put(tuple_at(0))

  chain = data_flow_ops.StagingArea(types, shapes, shared_name="chain")
  got_images = tf1.get_variable("got_images", initializer=tf.zeros([2, 3]),
                                use_resource=True)
  got_labels = tf1.get_variable("got_labels", initializer=tf.zeros([2],
                                                                   tf.int32),
                                use_resource=True)
  first = chain.put(tuple_at(0))
  with tf.control_dependencies([first]):
    second = chain.put(tuple_at(100))
  with tf.control_dependencies([second]):
    images, labels = chain.get()
  keep_chain = tf.group(got_images.assign(images), got_labels.assign(labels))

  cleared = data_flow_ops.StagingArea(types, shapes, shared_name="cleared")
  clear = cleared.clear()
  with tf.control_dependencies([clear]):
    put_cleared = cleared.put(tuple_at(7))

  bounded = data_flow_ops.StagingArea(types, shapes, capacity=2,
                                      memory_limit=4096, shared_name="bounded")
  got_bounded = tf1.get_variable("got_bounded", initializer=0,
                                 use_resource=True)
  put_bounded = bounded.put(tuple_at(3))
  with tf.control_dependencies([put_bounded]):
    _, bounded_labels = bounded.get()
  keep_bounded = got_bounded.assign(tf.reduce_sum(bounded_labels))

  single = data_flow_ops.StagingArea([tf.float32], [[2, 3]],
                                     shared_name="single")
  got_single = tf1.get_variable("got_single", initializer=tf.zeros([2, 3]),
                                use_resource=True)
  put_single = single.put([p["images"] - nf])
  with tf.control_dependencies([put_single]):
    single_got = single.get()  # a list of the one component
    keep_single = got_single.assign(single_got[0])

  with tf.control_dependencies([put_fifo, keep_chain, put_cleared,
                                keep_bounded, keep_single]):
    train = step.assign_add(1, name="train")
  outs["fifo_size"] = fifo.size()
  for i in range(STEPS):
    img, lab = fifo.peek(i)
    outs["fifo_peek%d_images" % i] = img
    outs["fifo_peek%d_labels" % i] = lab
  outs["chain_size"] = chain.size()
  outs["chain_got_images"] = got_images.read_value()
  outs["chain_got_labels"] = got_labels.read_value()
  outs["cleared_size"] = cleared.size()
  img, lab = cleared.peek(0)
  outs["cleared_peek0_images"] = img
  outs["cleared_peek0_labels"] = lab
  outs["bounded_size"] = bounded.size()
  outs["bounded_got"] = got_bounded.read_value()
  outs["single_size"] = single.size()
  outs["single_got"] = got_single.read_value()
  init = tf1.global_variables_initializer()
  assert init.name == "init", init.name
  reads = {k: tf.identity(v, name="out_" + k) for k, v in outs.items()}
  return reads, train


def main():
  os.makedirs(OUT, exist_ok=True)
  g = tf.Graph()
  with g.as_default():
    reads, train = build()
    feed = {g.get_tensor_by_name(k + ":0"): v for k, v in FEEDS.items()}
    with tf1.Session() as s:
      s.run("init")
      for _ in range(STEPS):
        s.run(train, feed)
      values = s.run(reads, feed)
  ops = sorted({n.op for n in g.as_graph_def().node})
  for want in ("Stage", "Unstage", "StagePeek", "StageSize", "StageClear"):
    assert want in ops, (want, ops)
  write_cases(OUT, g.as_graph_def(),
              "Written by tools/tf_reference/make_staging_reference.py with "
              "TensorFlow %s: the results after %d runs of `train`."
              % (tf.__version__, STEPS), FEEDS, values)
  print("wrote", OUT, len(values), "fetches")


if __name__ == "__main__":
  main()
