#!/usr/bin/env python3
"""TensorFlow 2.21's tf.data pipelines in tf.compat.v1 graph mode, and the
elements its session gives run after run until OutOfRange.

Writes tests/testdata/tf_dataset/:
  graph.pb          one TF-written GraphDef holding every pipeline (each in a
                    name scope), with one-shot and initializable iterators
  records_*.tfrecord, records_gz.tfrecord, lines.txt, lines.txt.gz,
  fixed.bin         the small input files the pipelines read (the graph names
                    them relative to the repository root, where the test and
                    this script run)
  steps.txt         what the session did and got, in order:
                      session                      a new session on graph.pb
                      run <targets> <fetches>      one Session.run ("-": none)
                      feed <name> <dtype> [shape] | values
                      feed_saved <name> <label>    feed what `save` kept
                      save <label>                 keep the first fetch
                      want <dtype> [shape] | values   one line per fetch
                      want_error <CODE>            the run failed with CODE
                    (numbers as value_cases.py writes them; strings as "x"
                    followed by the bytes in hex)
Read by tests/kernels/dataset_ops_test.cc.

Run from the repository root: python3 tools/tf_reference/make_dataset_reference.py
"""
import gzip
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from value_cases import fmt  # noqa: E402

tf1 = tf.compat.v1
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
REL = "tests/testdata/tf_dataset"
OUT = os.path.join(ROOT, REL)


def example(x, y):
  return tf.train.Example(features=tf.train.Features(feature={
      "x": tf.train.Feature(float_list=tf.train.FloatList(value=x)),
      "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[y])),
  })).SerializeToString()


def write_files():
  """The input files: small, deterministic."""
  for f in range(2):
    with tf.io.TFRecordWriter(os.path.join(OUT, "records_%d.tfrecord" % f)) as w:
      for r in range(5):
        k = f * 5 + r
        w.write(example([k * 0.5, -k * 0.25], k))
  with tf.io.TFRecordWriter(os.path.join(OUT, "records_gz.tfrecord"),
                            options="GZIP") as w:
    for r in range(4):
      w.write(b"gz record %d" % r)
  text = b"first line\nsecond\r\n\nfourth, after an empty one\nno newline"
  with open(os.path.join(OUT, "lines.txt"), "wb") as fh:
    fh.write(text)
  with open(os.path.join(OUT, "lines.txt.gz"), "wb") as fh:
    # mtime 0: the same bytes on every run.
    with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0) as z:
      z.write(text)
  with open(os.path.join(OUT, "fixed.bin"), "wb") as fh:
    fh.write(b"HD" + bytes(range(12)) + b"F")  # header 2, 3 x 4, footer 1


def rel(name):
  return REL + "/" + name


def build():
  """Every pipeline; returns the names the steps use."""
  n = {}
  with tf1.name_scope("map_batch"):
    ds = tf1.data.Dataset.from_tensor_slices(
        tf.reshape(tf.range(12.0), [6, 2])).map(lambda r: r * 2.0 + 1.0)
    it = tf1.data.make_one_shot_iterator(ds.batch(4))
    n["map_batch"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("records"):
    files = [rel("records_0.tfrecord"), rel("records_1.tfrecord")]
    feats = {"x": tf.io.FixedLenFeature([2], tf.float32),
             "y": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf1.data.TFRecordDataset(files).map(
        lambda s: tf.io.parse_single_example(s, feats))
    ds = ds.shuffle(5, seed=3).batch(3).repeat(2)
    it = tf1.data.make_one_shot_iterator(ds)
    e = it.get_next()
    n["records"] = [tf.identity(e["x"], name="x").name,
                    tf.identity(e["y"], name="y").name]

  with tf1.name_scope("gzip"):
    ds = tf1.data.TFRecordDataset([rel("records_gz.tfrecord")],
                                  compression_type="GZIP")
    it = tf1.data.make_one_shot_iterator(ds.skip(1).take(2))
    n["gzip"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("text"):
    plain = tf1.data.TextLineDataset([rel("lines.txt")])
    zipped = tf1.data.TextLineDataset([rel("lines.txt.gz")],
                                      compression_type="GZIP")
    it = tf1.data.make_one_shot_iterator(plain.concatenate(zipped))
    n["text"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("fixed"):
    ds = tf1.data.FixedLengthRecordDataset([rel("fixed.bin")], 4,
                                           header_bytes=2, footer_bytes=1)
    it = tf1.data.make_one_shot_iterator(
        ds.map(lambda s: tf.io.decode_raw(s, tf.uint8)))
    n["fixed"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("padded"):
    ds = tf1.data.Dataset.range(1, 6).map(
        lambda k: (tf.range(k), tf.fill([2, k], tf.cast(k, tf.float32))))
    a = tf1.data.make_one_shot_iterator(
        ds.padded_batch(2, padded_shapes=([None], [2, None])))
    b = tf1.data.make_one_shot_iterator(
        ds.padded_batch(2, padded_shapes=([6], [2, 5]),
                        padding_values=(np.int64(-1), 0.5),
                        drop_remainder=True))
    ea, eb = a.get_next(), b.get_next()
    n["padded"] = [tf.identity(ea[0], name="a0").name,
                   tf.identity(ea[1], name="a1").name]
    n["padded_fixed"] = [tf.identity(eb[0], name="b0").name,
                         tf.identity(eb[1], name="b1").name]

  with tf1.name_scope("zip_concat"):
    first = tf1.data.Dataset.zip((tf1.data.Dataset.range(3),
                                  tf1.data.Dataset.from_tensor_slices(
                                      tf.constant([10.0, 20.0, 30.0, 40.0]))))
    second = tf1.data.Dataset.zip((tf1.data.Dataset.range(100, 102),
                                   tf1.data.Dataset.from_tensor_slices(
                                       tf.constant([5.0, 6.0]))))
    it = tf1.data.make_one_shot_iterator(first.concatenate(second))
    e = it.get_next()
    n["zip_concat"] = [tf.identity(e[0], name="a").name,
                       tf.identity(e[1], name="b").name]

  with tf1.name_scope("filter"):
    ds = tf1.data.Dataset.range(20).filter(lambda x: tf.equal(x % 3, 0))
    it = tf1.data.make_one_shot_iterator(ds.map(lambda x: x * x))
    n["filter"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("interleave"):
    ds = tf1.data.Dataset.range(1, 5).interleave(
        lambda x: tf1.data.Dataset.from_tensors(x).repeat(x),
        cycle_length=2, block_length=2)
    it = tf1.data.make_one_shot_iterator(ds)
    n["interleave"] = tf.identity(it.get_next(), name="out").name
    flat = tf1.data.Dataset.range(3).flat_map(
        lambda x: tf1.data.Dataset.range(x * 10, x * 10 + x))
    it = tf1.data.make_one_shot_iterator(flat)
    n["flat_map"] = tf.identity(it.get_next(), name="flat").name

  with tf1.name_scope("shuffle"):
    ds = tf1.data.Dataset.range(10)
    a = tf1.data.make_one_shot_iterator(ds.shuffle(4, seed=7).repeat(3))
    fixed = ds.shuffle(4, seed=7, reshuffle_each_iteration=False).repeat(2)
    b = tf1.data.make_initializable_iterator(fixed)
    big = tf1.data.make_one_shot_iterator(
        tf1.data.Dataset.range(40).shuffle(100, seed=11).batch(8))
    n["shuffle"] = tf.identity(a.get_next(), name="a").name
    n["shuffle_fixed"] = tf.identity(b.get_next(), name="b").name
    n["shuffle_fixed_init"] = b.initializer.name
    n["shuffle_big"] = tf.identity(big.get_next(), name="big").name

  with tf1.name_scope("cache"):
    ds = tf1.data.Dataset.range(4).map(lambda x: x * 10).cache().repeat(2)
    it = tf1.data.make_one_shot_iterator(ds.prefetch(2))
    n["cache"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("more"):
    # What graphs get through tf.data.experimental and raw ops: the fused
    # shuffle-and-repeat (epochs kept apart in one buffer), a V3 shuffle
    # with a seed generator resource, unbatch, map_and_batch, parallel
    # interleave and batch (deterministic), get_single_element.
    spec = tf.TensorSpec([], tf.int64)
    base = tf1.data.Dataset.range(7)
    i64 = lambda v: tf.constant(v, tf.int64)  # noqa: E731
    fused = tf.raw_ops.ShuffleAndRepeatDataset(
        input_dataset=base._variant_tensor, buffer_size=i64(3), seed=i64(7),
        seed2=i64(3), count=i64(3), output_types=[tf.int64],
        output_shapes=[[]])
    gen = tf.raw_ops.AnonymousSeedGenerator(seed=i64(5), seed2=i64(6),
                                            reshuffle=tf.constant(True))
    v3 = tf.raw_ops.ShuffleDatasetV3(
        input_dataset=base._variant_tensor, buffer_size=i64(4), seed=i64(5),
        seed2=i64(6), seed_generator=gen[0], output_types=[tf.int64],
        output_shapes=[[]])
    v3_it = tf1.data.make_initializable_iterator(
        tf.data.experimental.from_variant(v3, spec).repeat(2))
    n["more_v3_init"] = v3_it.initializer.name
    for key, ds in [
        ("fused", tf.data.experimental.from_variant(fused, spec)),
        ("unbatch", base.batch(3).unbatch()),
        ("map_and_batch",
         base.apply(tf.data.experimental.map_and_batch(lambda x: x * 2, 3))),
        ("parallel_interleave",
         base.interleave(lambda x: tf1.data.Dataset.range(x), cycle_length=3,
                         block_length=2, num_parallel_calls=2,
                         deterministic=True)),
        ("parallel_batch", base.batch(2, num_parallel_calls=2))]:
      it = tf1.data.make_one_shot_iterator(ds)
      n["more_" + key] = tf.identity(it.get_next(), name=key).name
    n["more_v3"] = tf.identity(v3_it.get_next(), name="v3").name
    n["more_single"] = tf.identity(
        tf.data.experimental.get_single_element(
            tf1.data.Dataset.from_tensors(tf.constant([1, 2]))),
        name="single").name

  with tf1.name_scope("initializable"):
    ph = tf1.placeholder(tf.float32, [None], name="values")
    scale = tf1.placeholder(tf.float32, [], name="scale")
    ds = tf1.data.Dataset.from_tensor_slices(ph).map(
        lambda v: v * scale, num_parallel_calls=2).batch(2)
    it = tf1.data.make_initializable_iterator(ds)
    n["init"] = it.initializer.name
    n["init_ph"], n["init_scale"] = ph.name, scale.name
    n["init_out"] = tf.identity(it.get_next(), name="out").name

  with tf1.name_scope("feedable"):
    handle = tf1.placeholder(tf.string, [], name="handle")
    evens = tf1.data.Dataset.range(0, 10, 2)
    odds = tf1.data.Dataset.range(1, 10, 2)
    ev_it = tf1.data.make_one_shot_iterator(evens)
    od_it = tf1.data.make_one_shot_iterator(odds)
    it = tf1.data.Iterator.from_string_handle(
        handle, tf1.data.get_output_types(evens),
        tf1.data.get_output_shapes(evens))
    n["feed_handle"] = handle.name
    n["feed_out"] = tf.identity(it.get_next(), name="out").name
    n["feed_even"] = ev_it.string_handle().name
    n["feed_odd"] = od_it.string_handle().name

  with tf1.name_scope("misc"):
    ds = tf1.data.Dataset.range(7)
    n["cardinality"] = [
        tf.identity(tf.data.experimental.cardinality(d), name=nm).name
        for nm, d in [("card_range", ds), ("card_batch", ds.batch(3)),
                      ("card_drop", ds.batch(3, drop_remainder=True)),
                      ("card_repeat", ds.repeat()),
                      ("card_filter", ds.filter(lambda x: x > 2)),
                      ("card_take", ds.repeat().take(5)),
                      ("card_skip", ds.skip(2))]]
    n["reduce"] = tf.identity(
        tf1.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x),
        name="reduce").name
    opt_it = tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(2))
    opt = tf.data.experimental.get_next_as_optional(opt_it)
    n["optional"] = tf.identity(opt.has_value(), name="has_value").name

  with tf1.name_scope("bad"):
    ph = tf1.placeholder(tf.float32, None, name="values")
    it = tf1.data.make_initializable_iterator(
        tf1.data.Dataset.from_tensor_slices(ph).batch(2))
    n["bad_init"], n["bad_ph"] = it.initializer.name, ph.name
    n["bad_next"] = tf.identity(it.get_next(), name="out").name
    nan = tf1.data.make_one_shot_iterator(
        tf1.data.Dataset.from_tensor_slices(
            tf.constant([1.0, np.nan, 3.0])).map(
                lambda x: tf.debugging.check_numerics(x, "bad value")))
    n["bad_map"] = tf.identity(nan.get_next(), name="map_out").name
    ragged = tf1.data.Dataset.range(1, 4).map(lambda k: tf.range(k))
    n["bad_batch"] = tf.identity(
        tf1.data.make_one_shot_iterator(ragged.batch(2)).get_next(),
        name="batch_out").name
    n["bad_pad"] = tf.identity(
        tf1.data.make_one_shot_iterator(
            ragged.padded_batch(2, padded_shapes=[2])).get_next(),
        name="pad_out").name

  with tf1.name_scope("train"):
    rng = np.random.RandomState(5)
    xs = rng.uniform(-1, 1, size=(10, 3)).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(
        np.float32)
    ds = tf1.data.Dataset.from_tensor_slices((xs, ys)).shuffle(
        10, seed=2).batch(4).repeat(2)
    it = tf1.data.make_one_shot_iterator(ds)
    x, y = it.get_next()
    w = tf1.get_variable("w", [3, 1], initializer=tf1.zeros_initializer())
    b = tf1.get_variable("b", [1], initializer=tf1.zeros_initializer())
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf1.train.GradientDescentOptimizer(0.5).minimize(loss)
    n["train_init"] = tf1.variables_initializer([w, b]).name
    n["train_op"] = train.name
    n["train_loss"] = tf.identity(loss, name="loss").name
    n["train_w"] = tf.identity(w.read_value(), name="w_value").name
  return n


class Steps:
  """Runs the session and writes what it did and got."""

  def __init__(self, graph):
    self.graph = graph
    self.lines = []
    self.saved = {}
    self.sess = None

  def session(self):
    if self.sess is not None:
      self.sess.close()
    cfg = tf1.ConfigProto(inter_op_parallelism_threads=1,
                          intra_op_parallelism_threads=1)
    self.sess = tf1.Session(graph=self.graph, config=cfg)
    self.lines.append("session")

  def run(self, targets=(), fetches=(), feeds=None, feed_saved=None,
          save=None):
    feeds = feeds or {}
    feed_saved = feed_saved or {}
    if isinstance(fetches, str):
      fetches = [fetches]
    self.lines.append("run %s %s" % (",".join(targets) or "-",
                                     ",".join(fetches) or "-"))
    feed_dict = {}
    for name, value in feeds.items():
      value = np.asarray(value)
      self.lines.append("feed %s %s" % (name, values_text(value)))
      feed_dict[name] = value
    for name, label in feed_saved.items():
      self.lines.append("feed_saved %s %s" % (name, label))
      feed_dict[name] = self.saved[label]
    if save:
      self.lines.append("save %s" % save)
    ops = [self.graph.get_operation_by_name(t) for t in targets]
    try:
      out = self.sess.run(list(fetches) + ops, feed_dict)
    except tf.errors.OpError as e:
      self.lines.append("want_error %s" % code_name(e))
      return None
    out = out[:len(fetches)]
    if save:
      self.saved[save] = out[0]
    for v in out:
      self.lines.append("want %s" % values_text(np.asarray(v)))
    return out

  def until_end(self, fetches, limit=40):
    for _ in range(limit):
      if self.run(fetches=fetches) is None:
        return
    raise RuntimeError("no OutOfRange after %d runs of %s" % (limit, fetches))


def code_name(e):
  return {tf.errors.OutOfRangeError: "OUT_OF_RANGE",
          tf.errors.InvalidArgumentError: "INVALID_ARGUMENT",
          tf.errors.FailedPreconditionError: "FAILED_PRECONDITION",
          tf.errors.NotFoundError: "NOT_FOUND",
          tf.errors.DataLossError: "DATA_LOSS",
          tf.errors.UnimplementedError: "UNIMPLEMENTED"}[type(e)]


def values_text(a):
  shape = "[%s]" % ",".join(str(d) for d in a.shape)
  if a.dtype.kind in "SOU":
    vals = " ".join("x" + (v if isinstance(v, bytes) else
                           str(v).encode()).hex() for v in a.flat)
    return "string %s | %s" % (shape, vals)
  return "%s %s | %s" % (a.dtype.name, shape, fmt(a))


def main():
  os.chdir(ROOT)
  os.makedirs(OUT, exist_ok=True)
  write_files()
  graph = tf.Graph()
  with graph.as_default():
    n = build()
  with open(os.path.join(OUT, "graph.pb"), "wb") as fh:
    fh.write(graph.as_graph_def().SerializeToString())

  s = Steps(graph)
  s.session()
  for key in ["map_batch", "records", "gzip", "text", "fixed", "padded",
              "padded_fixed", "zip_concat", "filter", "interleave",
              "flat_map", "shuffle", "shuffle_big", "cache"]:
    s.until_end(n[key])
  for key in ["fused", "unbatch", "map_and_batch", "parallel_interleave",
              "parallel_batch"]:
    s.until_end(n["more_" + key])
  s.run(targets=[n["more_v3_init"]])
  s.until_end(n["more_v3"])
  s.run(fetches=n["more_single"])
  # Past the end: OutOfRange again.
  s.run(fetches=n["map_batch"])
  s.run(fetches=n["cardinality"])
  s.run(fetches=n["reduce"])
  for _ in range(3):
    s.run(fetches=n["optional"])

  s.session()
  # An initializable iterator, re-initialized with other feeds.
  s.run(fetches=n["init_out"])  # before its initializer: FailedPrecondition
  init_feeds = {n["init_ph"]: np.array([1, 2, 3, 4, 5], np.float32),
                n["init_scale"]: np.float32(2)}
  s.run(targets=[n["init"]], feeds=init_feeds)
  s.run(fetches=n["init_out"])
  s.run(targets=[n["init"]], feeds={n["init_ph"]: np.array([7, 8, 9],
                                                           np.float32),
                                    n["init_scale"]: np.float32(-1)})
  s.until_end(n["init_out"])
  s.run(targets=[n["init"]], feeds=init_feeds)
  s.until_end(n["init_out"])
  # Without reshuffling, each initialization gives the same order.
  for _ in range(2):
    s.run(targets=[n["shuffle_fixed_init"]])
    s.until_end(n["shuffle_fixed"])
  # Feedable iterators: the handle of each one-shot iterator, fed in turn.
  s.run(fetches=n["feed_even"], save="even")
  s.run(fetches=n["feed_odd"], save="odd")
  for label in ["even", "odd", "even", "even", "odd"]:
    s.run(fetches=n["feed_out"], feed_saved={n["feed_handle"]: label})

  s.session()
  # Bad input: a scalar where from_tensor_slices needs a vector, a missing
  # feed, then a good one; a map function that fails on the 2nd element.
  s.run(targets=[n["bad_init"]], feeds={n["bad_ph"]: np.float32(3)})
  s.run(targets=[n["bad_init"]])
  s.run(targets=[n["bad_init"]], feeds={n["bad_ph"]: np.array([1, 2, 3],
                                                             np.float32)})
  s.until_end(n["bad_next"])
  s.run(fetches=n["bad_map"])
  s.run(fetches=n["bad_map"])
  s.run(fetches=n["bad_map"])
  # Elements a batch cannot hold: shapes that differ, or exceed the padding.
  s.run(fetches=n["bad_batch"])
  s.run(fetches=n["bad_batch"])  # the batch after the bad one
  s.run(fetches=n["bad_pad"])
  s.run(fetches=n["bad_pad"])

  s.session()
  # A training step fed by the iterator, until its two epochs run out.
  s.run(targets=[n["train_init"]])
  for _ in range(8):
    # The loss of the batch the step trained on, then (in a run of its own,
    # so that the read follows the update) the weights.
    if s.run(targets=[n["train_op"]], fetches=[n["train_loss"]]) is None:
      break
    s.run(fetches=[n["train_w"]])
  s.sess.close()
  with open(os.path.join(OUT, "steps.txt"), "w") as fh:
    fh.write("# TensorFlow %s; written by "
             "tools/tf_reference/make_dataset_reference.py\n" % tf.__version__)
    fh.write("\n".join(s.lines) + "\n")
  print("wrote %s (%d lines)" % (OUT, len(s.lines)))


if __name__ == "__main__":
  main()
