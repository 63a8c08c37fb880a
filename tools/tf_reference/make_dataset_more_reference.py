#!/usr/bin/env python3
"""More of TensorFlow 2.21's tf.data pipelines in tf.compat.v1 graph mode:
shard, take_while, scan, window (+ flat_map of the windows), unique,
ignore_errors, sample_from_datasets / choose_from_datasets (RandomDataset,
DirectedInterleaveDataset) and group_by_window / bucket_by_sequence_length,
with the elements TensorFlow's session gives run after run until
OutOfRange, and the errors of bad parameters.

Writes tests/testdata/tf_dataset_more/graph.pb and steps.txt, in the format
of make_dataset_reference.py (whose Steps writer this script uses). Read by
tests/kernels/dataset_ops_test.cc.

Run from the repository root:
  python3 tools/tf_reference/make_dataset_more_reference.py
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dataset_reference import Steps  # noqa: E402

tf1 = tf.compat.v1
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "tests/testdata/tf_dataset_more")
D = tf1.data.Dataset


def one_shot(n, key, ds):
  """n[key]: the fetch names of a one-shot iterator's elements."""
  e = tf1.data.make_one_shot_iterator(ds).get_next()
  flat = tf.nest.flatten(e)
  n[key] = [tf.identity(t, name="%s_%d" % (key, i)).name
            for i, t in enumerate(flat)]


def build():
  n = {}
  with tf1.name_scope("shard"):
    r = D.range(10)
    one_shot(n, "shard_3_0", r.shard(3, 0))
    one_shot(n, "shard_3_2", r.shard(3, 2))
    one_shot(n, "shard_4_3", r.shard(4, 3))
    one_shot(n, "shard_1_0", r.shard(1, 0))
    one_shot(n, "shard_big", r.shard(20, 15))
    one_shot(n, "shard_tuple",
             D.zip((r, r.map(lambda x: tf.strings.as_string(x)))).shard(2, 1))
    nsh = tf1.placeholder(tf.int64, [], name="num_shards")
    idx = tf1.placeholder(tf.int64, [], name="index")
    it = tf1.data.make_initializable_iterator(r.shard(nsh, idx))
    n["shard_init"], n["shard_n"], n["shard_i"] = (it.initializer.name,
                                                   nsh.name, idx.name)
    n["shard_fed"] = [tf.identity(it.get_next(), name="fed").name]

  with tf1.name_scope("take_while"):
    r = D.range(10)
    one_shot(n, "tw_lt5", r.take_while(lambda x: x < 5))
    one_shot(n, "tw_none", r.take_while(lambda x: x > 5))
    one_shot(n, "tw_all", r.take_while(lambda x: x < 100))
    limit = tf.constant(3.5)
    one_shot(n, "tw_tuple",
             D.zip((r, r.map(lambda x: tf.cast(x, tf.float32) * 0.5)))
             .take_while(lambda a, b: b < limit))

  with tf1.name_scope("scan"):
    r = D.range(1, 8)
    one_shot(n, "scan_sum", r.scan(np.int64(0), lambda s, x: (s + x, s * 10)))
    one_shot(n, "scan_tuple",
             r.scan((np.int64(0), np.float32(1.0)),
                    lambda s, x: ((s[0] + x, s[1] * 2.0),
                                  (s[0], s[1], tf.strings.as_string(x)))))
    one_shot(n, "scan_vec",
             r.scan(tf.constant([0, 0], tf.int64),
                    lambda s, x: (s + tf.stack([x, x * x]), s)))

  with tf1.name_scope("window"):
    r = D.range(7)
    batch = lambda w: w.batch(10)  # noqa: E731
    one_shot(n, "win_3", r.window(3).flat_map(batch))
    one_shot(n, "win_3_drop", r.window(3, drop_remainder=True).flat_map(batch))
    one_shot(n, "win_shift_gt_size", r.window(2, shift=4).flat_map(batch))
    one_shot(n, "win_stride",
             r.window(3, shift=1, stride=2, drop_remainder=True)
             .flat_map(batch))
    one_shot(n, "win_stride_rem",
             D.range(10).window(2, shift=3, stride=3).flat_map(batch))
    one_shot(n, "win_tuple",
             D.zip((r, r.map(lambda x: tf.cast(x, tf.float32))))
             .window(3, shift=2)
             .flat_map(lambda a, b: D.zip((a.batch(3), b.batch(3)))))
    one_shot(n, "win_flat", r.window(2, shift=3).flat_map(lambda w: w))
    size = tf1.placeholder(tf.int64, [], name="size")
    it = tf1.data.make_initializable_iterator(
        r.window(size).flat_map(batch))
    n["win_init"], n["win_size"] = it.initializer.name, size.name
    n["win_fed"] = [tf.identity(it.get_next(), name="fed").name]

  with tf1.name_scope("unique"):
    one_shot(n, "uniq_int",
             D.from_tensor_slices(tf.constant([3, 1, 3, 2, 1, 5, 2], tf.int64))
             .unique())
    one_shot(n, "uniq_int32",
             D.from_tensor_slices(tf.constant([7, 7, -1, 0, -1], tf.int32))
             .unique())
    one_shot(n, "uniq_str",
             D.from_tensor_slices(tf.constant(["b", "a", "b", "", "c", "a",
                                               ""])).unique())

  with tf1.name_scope("ignore_errors"):
    vals = tf.constant([1.0, np.nan, 3.0, np.inf, 5.0, np.nan])
    checked = D.from_tensor_slices(vals).map(
        lambda x: tf.debugging.check_numerics(x, "bad value"))
    one_shot(n, "ign", checked.ignore_errors())
    one_shot(n, "ign_batch", checked.ignore_errors().batch(2))
    one_shot(n, "ign_none", D.range(4).ignore_errors())

  with tf1.name_scope("sample"):
    a, b, c = D.range(5), D.range(100, 104), D.range(200, 203)
    one_shot(n, "sample_even", D.sample_from_datasets([a, b], seed=3))
    one_shot(n, "sample_weights",
             D.sample_from_datasets([a, b, c], weights=[0.2, 0.5, 0.3],
                                    seed=7))
    one_shot(n, "sample_stop",
             D.sample_from_datasets([a, b], weights=[0.5, 0.5], seed=11,
                                    stop_on_empty_dataset=True))
    one_shot(n, "choose",
             D.choose_from_datasets(
                 [a, b, c], D.from_tensor_slices(
                     tf.constant([2, 0, 0, 1, 2, 2, 2, 0, 1], tf.int64))))
    one_shot(n, "choose_all",
             D.choose_from_datasets(
                 [a, b], D.from_tensor_slices(
                     tf.constant([1, 1, 1, 1, 1, 0, 0], tf.int64)),
                 stop_on_empty_dataset=False))
    one_shot(n, "choose_bad",
             D.choose_from_datasets(
                 [a, b], D.from_tensor_slices(tf.constant([0, 5], tf.int64))))
    one_shot(n, "random", D.random(seed=5).take(9))

  with tf1.name_scope("group"):
    r = D.range(20)
    one_shot(n, "gbw",
             r.group_by_window(lambda x: x % 3, lambda k, w: w.batch(4), 4))
    one_shot(n, "gbw_size_func",
             r.group_by_window(lambda x: x % 3,
                               lambda k, w: w.batch(10).map(
                                   lambda v: (k, v)),
                               window_size_func=lambda k: k + 2))
    one_shot(n, "gbw_tuple",
             D.zip((r, r.map(lambda x: tf.strings.as_string(x))))
             .group_by_window(lambda x, s: x // 7,
                              lambda k, w: w.batch(5), 5))
    seqs = D.range(1, 12).map(lambda k: tf.range(k % 7 + 1))
    one_shot(n, "bucket",
             seqs.bucket_by_sequence_length(lambda x: tf.size(x), [3, 5],
                                            [2, 3, 2]))
    one_shot(n, "bucket_pad",
             seqs.bucket_by_sequence_length(lambda x: tf.size(x), [4, 8],
                                            [3, 2, 2], pad_to_bucket_boundary=True,
                                            padding_values=np.int64(-1)))
  return n


def main():
  os.chdir(ROOT)
  os.makedirs(OUT, exist_ok=True)
  graph = tf.Graph()
  with graph.as_default():
    n = build()
  with open(os.path.join(OUT, "graph.pb"), "wb") as fh:
    fh.write(graph.as_graph_def().SerializeToString())
  s = Steps(graph)
  s.session()
  for key in ["shard_3_0", "shard_3_2", "shard_4_3", "shard_1_0", "shard_big",
              "shard_tuple", "tw_lt5", "tw_none", "tw_all", "tw_tuple",
              "scan_sum", "scan_tuple", "scan_vec", "win_3", "win_3_drop",
              "win_shift_gt_size", "win_stride", "win_stride_rem",
              "win_tuple", "win_flat", "uniq_int", "uniq_int32", "uniq_str",
              "ign", "ign_batch", "ign_none", "sample_even", "sample_weights",
              "sample_stop", "choose", "choose_all", "random", "gbw",
              "gbw_size_func", "gbw_tuple", "bucket", "bucket_pad"]:
    s.until_end(n[key])
  # Past the end: OutOfRange again.
  s.run(fetches=n["shard_3_0"])
  s.run(fetches=n["win_3"])
  # A selector index no input has.
  s.run(fetches=n["choose_bad"])
  s.run(fetches=n["choose_bad"])
  # Shards fed: good ones, then an index out of range and no shards.
  for num, idx in [(3, 1), (3, 3), (0, 0), (-1, 0), (2, -1), (5, 4)]:
    s.run(targets=[n["shard_init"]],
          feeds={n["shard_n"]: np.int64(num), n["shard_i"]: np.int64(idx)})
    s.until_end(n["shard_fed"])
  for size in [4, 0, -2, 1]:
    s.run(targets=[n["win_init"]], feeds={n["win_size"]: np.int64(size)})
    s.until_end(n["win_fed"])
  s.sess.close()
  with open(os.path.join(OUT, "steps.txt"), "w") as fh:
    fh.write("# TensorFlow %s; written by "
             "tools/tf_reference/make_dataset_more_reference.py\n" %
             tf.__version__)
    fh.write("\n".join(s.lines) + "\n")
  print("wrote %s (%d lines)" % (OUT, len(s.lines)))


if __name__ == "__main__":
  main()
